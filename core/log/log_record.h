#pragma once
// LogRecord: one log record, from our own logger or parsed from an external log file,
// and the glog/MindSpore line format both share:
//   [WARNING] ENGINE(12345,7f3a,trainscope):2021-01-01-12:00:00.123.456 [file.cc:42] Func] msg
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "core/log/log_level.h"

namespace ts::log {

struct LogRecord {
    std::optional<int64_t> tsNs;  // Unix nanoseconds; nullopt when the line had no time
    Level level = Level::Info;
    std::string module;    // "ENGINE", or an external one ("ME", "RUNTIME"); "" unknown
    std::string file;      // source file as written in the record ("" unknown)
    int64_t line = 0;      // 0 unknown
    std::string function;  // "" unknown (not kept in the store)
    int64_t pid = 0;       // 0 unknown
    int64_t tid = 0;       // 0 unknown
    std::string program;   // process name in the header ("trainscope", "python")
    std::string message;   // may hold several lines (a traceback)
};

/// The record as one glog/MindSpore-style line (no trailing newline); the tid is printed
/// in hex, the time in local time, "?" when absent.
std::string formatRecord(const LogRecord& r);
/// `2021-01-01-12:00:00.123.456` (local time, microseconds).
std::string formatLogTime(int64_t unixNs);
/// Parses `YYYY-MM-DD-HH:MM:SS[.mmm[.uuu]]` or `YYYY-MM-DD HH:MM:SS[,.]mmm` as local time;
/// nullopt when malformed. `consumed` (optional) receives the characters read. Results are
/// cached per hour: the process's time zone must not change once times were parsed.
std::optional<int64_t> parseLogTime(std::string_view text, size_t* consumed = nullptr);

}  // namespace ts::log
