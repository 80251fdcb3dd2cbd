#pragma once
// Reading the CSV tables Ascend's profilers and msprof-analyze write (kernel_details.csv,
// op_statistic.csv, step_trace_time.csv, operator_memory.csv, ...; MindSpore 1.x's
// *_raw_*.csv): lines (plain or gzip, a UTF-8 BOM dropped, CRLF or LF, blank lines
// skipped), fields split as RFC 4180 quotes them and trimmed of white space (Excel's
// trailing tab after a long number: ts::splitCsvLine, core/common/csv.h, one line splitter for
// core and importers), numbers read in C locale ("N/A" and "NA" are none),
// columns found by name prefix, units of a header ("Size(KB)", "Duration(us)").
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/csv.h"
#include "core/common/result.h"

namespace ts::importers::csv {

/// The number in `s`, nullopt when empty, "N/A", "NA" or not a finite number.
std::optional<double> number(std::string_view s);
/// The non-blank lines of a file (plain or gzip). Errors: cannot open, read error.
Result<std::vector<std::string>> readLines(const std::string& path);

/// Index of the first header field starting with `prefix`, -1 when none.
int column(const std::vector<std::string>& header, std::string_view prefix);
/// Index of the header field equal to `name`, -1 when none.
int exactColumn(const std::vector<std::string>& header, std::string_view name);
/// Bytes per unit of a size header: "(GB)", "(MB)", "(KB)", else 1.
double bytesPerUnit(const std::vector<std::string>& header, int col);
/// Nanoseconds per unit of a time header: "(ms)" 1e6, "(ns)" 1, "(s)" 1e9, else 1000 (us).
double nsPerUnit(const std::vector<std::string>& header, int col);

/// One data line split into fields.
struct Row {
    std::vector<std::string> fields;
    /// The number in column `c` (nullopt when absent, empty or not a number).
    std::optional<double> get(int c) const {
        return c >= 0 && static_cast<size_t>(c) < fields.size()
                   ? number(fields[static_cast<size_t>(c)])
                   : std::nullopt;
    }
    bool has(int c) const { return c >= 0 && static_cast<size_t>(c) < fields.size(); }
    /// The text of column `c`, "" when absent.
    const std::string& text(int c) const;
};

}  // namespace ts::importers::csv
