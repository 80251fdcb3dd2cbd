#pragma once
// Recognises the first line of a log record in the formats users bring:
//   glog C++ (MindSpore): [WARNING] ME(12345,7f3a2b,python):2021-01-01-12:00:00.123.456
//   [file.cc:42] Func] msg older C++:            [WARNING]
//   DEVICE(3316,python):2021-01-01-12:00:00.123.456 [file.cc:42] msg MindSpore Python: [WARNING]
//   ME(12345:139770,MainProcess):2021-01-01-12:00:00.123.456 [file.py:42] msg Ascend plog: [ERROR]
//   RUNTIME(12731,python3.7):2021-02-02-22:23:56.475.679 [file.cc:1408]12828 msg Ascend short:
//   [ERROR] RUNTIME(160809)kernel task happen error
// Python logging, basicConfig's default:   WARNING:torch.distributed:msg
// Python logging, the cookbook's format:   2021-01-01 12:00:00,123 - name - WARNING - msg
// Pure functions; no state.
#include <optional>
#include <string>
#include <string_view>

#include "core/log/log_record.h"

namespace ts::log {

enum class LineFormat { Glog, Python, Plog, PlogShort, GlogClassic, PyLogging };

struct ParsedHeader {
    LineFormat format = LineFormat::Glog;
    LogRecord record;
};

/// The record a header line starts, or nullopt when `line` is not a header (leading
/// whitespace is ignored). `year` dates classic glog lines, which carry none.
std::optional<ParsedHeader> parseHeaderLine(std::string_view line, int year = 1970);
/// The year of glog's first file line "Log file created at: 2021/01/01 12:00:00", or 0.
int glogFileHeaderYear(std::string_view line);

/// Short stable name: "glog", "python", "plog", "plog_short", "glog_classic", "pylogging".
std::string_view formatName(LineFormat f);

/// True for "Traceback (most recent call last):" (leading whitespace ignored).
bool isTracebackStart(std::string_view line);
/// True for the lines Python prints between chained tracebacks.
bool isTracebackChain(std::string_view line);
/// The level a line without a header most likely has, from its words (error, warning...).
Level guessLevel(std::string_view line);
/// `s` with invalid UTF-8 sequences replaced by U+FFFD.
std::string sanitizeUtf8(std::string_view s);

}  // namespace ts::log
