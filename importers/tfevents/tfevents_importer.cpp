#include "importers/tfevents/tfevents_importer.h"

#include <zlib.h>

#include <cmath>
#include <cstring>
#include <filesystem>

#include "core/store/scalar_writer.h"
#include "core/store/sqlite_db.h"

namespace ts::importers {
namespace tfevents {

namespace {
Result<std::string> readAll(const std::string& path) {
    gzFile f = gzopen(path.c_str(), "rb");
    if (!f) return Error{"cannot open " + path};
    std::string data;
    char buf[1 << 16];
    int n;
    while ((n = gzread(f, buf, sizeof buf)) > 0) data.append(buf, static_cast<size_t>(n));
    gzclose(f);
    if (n < 0) return Error{path + ": read error"};
    return data;
}
}  // namespace

int sniffTfevents(const std::string& path, std::string_view head) {
    const std::string name = std::filesystem::path(path).filename().string();
    if (name.find("tfevents") != std::string::npos) return 90;
    if (head.size() < 16) return 0;
    engine::tb::RecordReader r(head);
    std::string_view rec;
    return r.next(rec) == engine::tb::RecordReader::Outcome::Record && engine::tb::decodeEvent(rec)
               ? 70
               : 0;
}

Result<ParsedEvents> readEventFile(const std::string& path) {
    auto data = readAll(path);
    if (!data) return Error{data.error()};
    ParsedEvents out;
    engine::tb::RecordReader reader(data.value());
    std::string_view rec;
    for (;;) {
        const auto o = reader.next(rec);
        if (o == engine::tb::RecordReader::Outcome::End) break;
        if (o == engine::tb::RecordReader::Outcome::Truncated) {
            out.truncated = true;
            break;
        }
        ++out.records;
        if (o == engine::tb::RecordReader::Outcome::BadCrc) {
            ++out.badRecords;
            continue;
        }
        auto ev = engine::tb::decodeEvent(rec);
        if (!ev) {
            ++out.badRecords;
            continue;
        }
        if (!ev->fileVersion.empty()) out.fileVersion = ev->fileVersion;
        out.nonScalar += ev->nonScalarValues;
        for (auto& s : ev->scalars)
            out.scalars.push_back({std::move(s.tag), ev->step, ev->wallTime, s.value});
    }
    if (out.records == 0)
        return Error{path + ": no TFRecord events (not a TensorBoard event file?)"};
    if (out.records == out.badRecords)
        return Error{path + ": no readable event (every record failed its CRC or decoding)"};
    return out;
}

ImportReport importEventFile(const std::string& path, store::TraceStore& store,
                             JobControl& control) {
    ImportReport report;
    report.path = path;
    report.kind = "tfevents";
    auto parsed = readEventFile(path);
    if (!parsed) {
        report.error = parsed.error();
        return report;
    }
    const ParsedEvents& p = parsed.value();
    auto src = store.beginSource(path, "tfevents");
    if (!src) {
        report.error = src.error();
        return report;
    }
    report.sourceId = src.value();
    const std::string name = std::filesystem::path(path).filename().string();
    auto run = store.beginRun(name, "{\"imported_from\":\"tfevents\",\"source_id\":" +
                                        std::to_string(report.sourceId) + "}");
    if (!run) {
        report.error = run.error();
        (void)store.deleteSource(report.sourceId);
        report.sourceId = 0;
        return report;
    }
    std::string writeError;
    if (auto s = store.begin(); !s) writeError = s.error();
    store::ScalarWriter scalars(store, run.value());
    if (!scalars.ok()) writeError = scalars.error();
    control.setTotal(p.scalars.size());
    for (size_t i = 0; i < p.scalars.size() && writeError.empty(); ++i) {
        if (control.cancelled()) break;
        const ScalarPoint& s = p.scalars[i];
        if (!std::isfinite(s.value)) {
            report.skip("tfevents_nonfinite_value");
            continue;
        }
        const int64_t wall = static_cast<int64_t>(s.wallTime * 1e9);
        if (auto r = scalars.add(s.tag, s.step, wall, s.value); !r) writeError = r.error();
        ++report.events;
        report.counterSamples++;
        report.seeTime(wall, wall);
        if (i % 4096 == 0) control.setDone(i);
    }
    if (writeError.empty()) {
        if (auto s = store.commit(); !s) writeError = s.error();
    } else if (store.inTransaction()) {
        (void)store.rollback();
    }
    if (control.cancelled()) {
        if (store.inTransaction()) (void)store.rollback();
        (void)store.finishRun(run.value(), store::RunStatus::Failed, "import cancelled");
        (void)store.deleteSource(report.sourceId);
        report.status = store::SourceStatus::Cancelled;
        report.sourceId = 0;
        return report;
    }
    for (int64_t i = 0; i < p.badRecords; ++i) report.skip("tfevents_bad_record");
    for (int64_t i = 0; i < p.nonScalar; ++i) report.skip("tfevents_non_scalar_summary");
    report.extraJson = "{\"records\":" + std::to_string(p.records) +
                       ",\"run_id\":" + std::to_string(run.value()) +
                       ",\"truncated\":" + (p.truncated ? "true" : "false") + "}";
    if (!writeError.empty()) {
        report.error = writeError;
        report.status = store::SourceStatus::Failed;
    } else {
        report.status = p.truncated || p.badRecords > 0 ? store::SourceStatus::Partial
                                                        : store::SourceStatus::Complete;
        if (p.truncated) report.error = "the file ends inside a record (truncated)";
    }
    (void)store.finishRun(run.value(),
                          report.status == store::SourceStatus::Failed
                              ? store::RunStatus::Failed
                              : store::RunStatus::Completed,
                          "imported from " + name);
    recordSource(store, report);
    return report;
}

}  // namespace tfevents

Importer tfeventsImporter() {
    Importer imp;
    imp.name = "tfevents";
    imp.description = "TensorBoard event files (events.out.tfevents.*)";
    imp.sniff = [](const std::string& path, std::string_view head) {
        return tfevents::sniffTfevents(path, head);
    };
    imp.run = [](const std::string& path, store::TraceStore& store, JobControl& control) {
        return tfevents::importEventFile(path, store, control);
    };
    return imp;
}

}  // namespace ts::importers
