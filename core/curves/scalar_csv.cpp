#include "core/curves/scalar_csv.h"

#include <charconv>
#include <cmath>

#include "core/common/file_io.h"
#include "core/curves/smoothing.h"

namespace ts::curves {
namespace {

void appendField(std::string& out, std::string_view s) {
    if (s.find_first_of(",\"\r\n") == std::string_view::npos) {
        out += s;
        return;
    }
    out += '"';
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    out += '"';
}

void appendNumber(std::string& out, double v) {
    if (std::isnan(v)) {
        out += "nan";
    } else if (std::isinf(v)) {
        out += v > 0 ? "inf" : "-inf";
    } else {
        char buf[32];
        const auto r = std::to_chars(buf, buf + sizeof buf, v);
        out.append(buf, r.ptr);
    }
}

}  // namespace

std::string scalarsCsv(std::span<const RunScalars> runs, double smoothing) {
    std::string out = "run_id,run,tag,step,wall_time_ns,value,smoothed\n";
    for (const auto& run : runs) {
        for (const auto& series : run.series) {
            std::vector<double> values;
            values.reserve(series.points.size());
            for (const auto& p : series.points) values.push_back(p.value);
            const auto smoothed = smoothSeries(values, isSmoothedTag(series.tag) ? smoothing : 0.0);
            for (size_t i = 0; i < series.points.size(); ++i) {
                const auto& p = series.points[i];
                out += std::to_string(run.runId);
                out += ',';
                appendField(out, run.name);
                out += ',';
                appendField(out, series.tag);
                out += ',' + std::to_string(p.step) + ',' + std::to_string(p.wallTimeNs) + ',';
                appendNumber(out, p.value);
                out += ',';
                appendNumber(out, smoothed[i]);
                out += '\n';
            }
        }
    }
    return out;
}

Status writeScalarsCsv(const std::string& path, std::span<const RunScalars> runs, double smoothing,
                       const std::vector<std::string>& inputs) {
    return writeFileAtomically(path, scalarsCsv(runs, smoothing), inputs);
}

}  // namespace ts::curves
