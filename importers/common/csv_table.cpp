#include "importers/common/csv_table.h"

#include <charconv>
#include <cmath>

#include "core/common/file_io.h"
#include "core/common/text.h"

namespace ts::importers::csv {

std::optional<double> number(std::string_view s) {
    s = asciiTrim(s);
    if (s.empty() || s == "N/A" || s == "NA") return std::nullopt;
    double v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p != s.data() + s.size() || !std::isfinite(v)) return std::nullopt;
    return v;
}

Result<std::vector<std::string>> readLines(const std::string& path) {
    auto read = readMaybeGzipped(path);
    if (!read) return Error{read.error()};
    std::string data = std::move(read.value());
    if (data.rfind("\xEF\xBB\xBF", 0) == 0) data.erase(0, 3);
    std::vector<std::string> lines;
    size_t start = 0;
    while (start < data.size()) {
        size_t end = data.find('\n', start);
        if (end == std::string::npos) end = data.size();
        std::string line = data.substr(start, end - start);
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (!asciiTrim(line).empty()) lines.push_back(std::move(line));
        start = end + 1;
    }
    return lines;
}

int column(const std::vector<std::string>& header, std::string_view prefix) {
    for (size_t i = 0; i < header.size(); ++i)
        if (header[i].rfind(prefix, 0) == 0) return static_cast<int>(i);
    return -1;
}

int exactColumn(const std::vector<std::string>& header, std::string_view name) {
    for (size_t i = 0; i < header.size(); ++i)
        if (header[i] == name) return static_cast<int>(i);
    return -1;
}

double bytesPerUnit(const std::vector<std::string>& header, int col) {
    if (col < 0) return 1;
    const std::string& h = header[static_cast<size_t>(col)];
    if (h.find("(MB)") != std::string::npos) return 1024.0 * 1024.0;
    if (h.find("(KB)") != std::string::npos) return 1024.0;
    if (h.find("(GB)") != std::string::npos) return 1024.0 * 1024.0 * 1024.0;
    return 1;
}

double nsPerUnit(const std::vector<std::string>& header, int col) {
    if (col < 0) return 1000;
    const std::string& h = header[static_cast<size_t>(col)];
    if (h.find("(ms)") != std::string::npos) return 1e6;
    if (h.find("(ns)") != std::string::npos) return 1;
    if (h.find("(s)") != std::string::npos) return 1e9;
    return 1000;
}

const std::string& Row::text(int c) const {
    static const std::string kEmpty;
    return has(c) ? fields[static_cast<size_t>(c)] : kEmpty;
}

}  // namespace ts::importers::csv
