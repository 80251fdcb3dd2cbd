#pragma once
// LogTokenizer: turns the lines of a log file into records. A header line (see
// log_line_parser.h) starts a record; a Python traceback ("Traceback (most recent call
// last):" through its exception line, chained tracebacks included) is one ERROR record
// with module PYTHON; an indented line continues the record before it; any other line
// becomes a record of its own (level guessed from its words, module ""). No line is
// dropped: blank lines only separate records (blank lines inside a record are kept).
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "core/log/log_record.h"

namespace ts::log {

struct TokenizerStats {
    int64_t lines = 0;
    int64_t records = 0;
    int64_t continuationLines = 0;
    std::map<std::string, int64_t> formats;  // glog, python, plog, plog_short, traceback, unknown
};

class LogTokenizer {
public:
    using Emit = std::function<void(LogRecord&&)>;
    /// `year`: the year of classic glog lines until a "Log file created at:" line says
    /// otherwise (default: this year).
    explicit LogTokenizer(Emit onRecord, int year = 0);

    /// Lines that are neither a header, a traceback nor a continuation become records of
    /// this level and module, instead of the level their words suggest and no module (a
    /// command run's stdout/stderr: "everything else is INFO with the stream's name").
    void setPlainLines(Level level, std::string module);
    /// True while a record is being assembled (finish() emits it).
    bool pending() const { return m_current.has_value(); }

    /// One line without its '\n' (a trailing '\r' is removed; bad UTF-8 is replaced).
    void addLine(std::string_view line);
    /// Emits the record in progress.
    void finish();
    const TokenizerStats& stats() const { return m_stats; }

private:
    enum class Tb { None, Frames, AfterException, AwaitChained };
    void emitCurrent();
    void start(LogRecord r, std::string_view format);
    void append(std::string_view line);

    Emit m_emit;
    std::optional<LogRecord> m_current;
    Tb m_tb = Tb::None;
    int m_pendingBlanks = 0;
    int m_year = 1970;
    std::optional<Level> m_plainLevel;
    std::string m_plainModule;
    TokenizerStats m_stats;
};

}  // namespace ts::log
