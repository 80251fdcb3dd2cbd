#pragma once
// The TrainScope logger: levelled, per-sub-module, thread-safe, glog-compatible.
//
//   TS_LOG(ENGINE, INFO) << "epoch " << epoch << " loss " << loss;
//   TS_LOG_WARNING(DATASET, "row {} has {} columns, expected {}", row, got, want);
//
// Every call names its sub-module (log_level.h). A disabled level costs one relaxed atomic
// load: neither the stream nor the arguments are evaluated. Levels change at runtime
// (Logger::setModuleLevel) and every thread sees the change on its next call.
// CRITICAL records are logged like the others; they do not end the process.
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "core/log/log_config.h"
#include "core/log/log_level.h"
#include "core/log/log_record.h"

namespace ts::log {

/// Receives every record that passes its sub-module's level. write() is called with the
/// logger's lock held (records arrive one at a time, in order) and must not block long or
/// log itself (nested records are dropped).
class LogSink {
public:
    virtual ~LogSink() = default;
    /// `line` is the record formatted by formatRecord().
    virtual void write(const LogRecord& record, std::string_view line) = 0;
    virtual void flush() {}
};

namespace detail {
// Effective level per sub-module, read lock-free by every log call.
inline std::atomic<uint8_t> g_levels[kSubModuleCount] = {2, 2, 2, 2, 2, 2, 2, 2,
                                                         2, 2, 2, 2, 2, 2, 2};
}  // namespace detail

/// The calling thread's OS thread id (gettid), as records carry it.
int64_t currentThreadId();

/// True when a record of `level` from `module` would be logged.
inline bool enabled(SubModule module, Level level) {
    return static_cast<uint8_t>(level) >=
           detail::g_levels[static_cast<size_t>(module)].load(std::memory_order_relaxed);
}

class Logger {
public:
    /// The process-wide logger. It configures itself from the environment (GLOG_v, ...) when
    /// the program starts (any program that links a log call); configure() replaces that.
    static Logger& instance();

    Level globalLevel() const;
    /// Sets GLOG_v's level; sub-modules without their own level follow it.
    void setGlobalLevel(Level level);
    /// Gives `module` its own level, or (nullopt) makes it follow the global level again.
    void setModuleLevel(SubModule module, std::optional<Level> level);
    std::optional<Level> moduleOverride(SubModule module) const;
    /// The level `module` logs at now.
    Level level(SubModule module) const { return static_cast<Level>(rawLevel(module)); }

    /// Applies levels and replaces the output sinks (stderr, files) from `config`;
    /// sinks added with addSink() stay. Errors (a log folder that cannot be made) fall back
    /// to stderr and are returned.
    std::vector<std::string> configure(const LogConfig& config);
    /// parseLogEnv(processEnv()) + configure(); logs each warning (module COMMON) whatever
    /// the level and returns them.
    std::vector<std::string> initFromEnvironment();
    /// Program name used in records and file names (default: the executable's name).
    void setProgramName(std::string name);
    std::string programName();

    void addSink(std::shared_ptr<LogSink> sink);
    void removeSink(const LogSink* sink);
    /// Flushes every sink.
    void flush();

    /// Fills pid, tid, program and time when unset, formats and hands the record to the
    /// sinks. Does not check the level (the macros do).
    void write(LogRecord record);

private:
    Logger();
    uint8_t rawLevel(SubModule m) const {
        return detail::g_levels[static_cast<size_t>(m)].load(std::memory_order_relaxed);
    }
    void publishLevels();  // requires m_levelMutex

    mutable std::mutex m_levelMutex;
    Level m_global = Level::Warning;
    std::optional<Level> m_overrides[kSubModuleCount];

    std::mutex m_sinkMutex;
    std::vector<std::shared_ptr<LogSink>> m_outputSinks;  // from configure()
    std::vector<std::shared_ptr<LogSink>> m_sinks;        // from addSink()
    std::string m_program;
};

/// Adds a sink to the logger for its lifetime (RAII): e.g. a StoreSink for one run.
class ScopedLogSink {
public:
    explicit ScopedLogSink(std::shared_ptr<LogSink> sink) : m_sink(std::move(sink)) {
        Logger::instance().addSink(m_sink);
    }
    ~ScopedLogSink() {
        Logger::instance().removeSink(m_sink.get());
        if (m_sink) m_sink->flush();
    }
    ScopedLogSink(const ScopedLogSink&) = delete;
    ScopedLogSink& operator=(const ScopedLogSink&) = delete;
    LogSink* get() const { return m_sink.get(); }

private:
    std::shared_ptr<LogSink> m_sink;
};

/// Builds one record; sends it from the destructor. Use through TS_LOG.
class LogMessage {
public:
    LogMessage(SubModule module, Level level, const char* file, int line, const char* function);
    ~LogMessage();
    LogMessage(const LogMessage&) = delete;
    LogMessage& operator=(const LogMessage&) = delete;
    std::ostream& stream() { return m_stream; }

private:
    SubModule m_module;
    Level m_level;
    const char* m_file;
    int m_line;
    const char* m_function;
    std::ostringstream m_stream;
};

/// "a {} b {}" with each {} replaced by the next argument (operator<<); "{{" and "}}" are
/// literal braces; a {} without an argument stays as "{}", extra arguments are ignored.
template <class... Args>
std::string formatBraces(std::string_view fmt, const Args&... args);

namespace detail {
struct Voidify {
    void operator&(std::ostream&) {}
};
void appendArgs(std::ostringstream& out, std::string_view fmt, size_t& pos);
template <class A, class... Rest>
void appendArgs(std::ostringstream& out, std::string_view fmt, size_t& pos, const A& a,
                const Rest&... rest);
/// Writes the text of `fmt` up to the next {} placeholder; false when none is left.
bool copyUntilPlaceholder(std::ostringstream& out, std::string_view fmt, size_t& pos);

template <class A, class... Rest>
void appendArgs(std::ostringstream& out, std::string_view fmt, size_t& pos, const A& a,
                const Rest&... rest) {
    if (!copyUntilPlaceholder(out, fmt, pos)) return;
    out << a;
    appendArgs(out, fmt, pos, rest...);
}
}  // namespace detail

template <class... Args>
std::string formatBraces(std::string_view fmt, const Args&... args) {
    std::ostringstream out;
    size_t pos = 0;
    detail::appendArgs(out, fmt, pos, args...);
    return out.str();
}

}  // namespace ts::log

/// Stream-style log call: TS_LOG(ENGINE, INFO) << "text" << value;
#define TS_LOG(mod, lvl)                                                                         \
    !::ts::log::enabled(::ts::log::detail::kModule_##mod, ::ts::log::detail::kLevel_##lvl)       \
        ? (void)0                                                                                \
        : ::ts::log::detail::Voidify() & ::ts::log::LogMessage(::ts::log::detail::kModule_##mod, \
                                                               ::ts::log::detail::kLevel_##lvl,  \
                                                               __FILE__, __LINE__, __func__)     \
                                             .stream()

/// Format-style log call: TS_LOGF(ENGINE, INFO, "step {} loss {}", step, loss);
#define TS_LOGF(mod, lvl, ...)                                                                     \
    do {                                                                                           \
        if (::ts::log::enabled(::ts::log::detail::kModule_##mod, ::ts::log::detail::kLevel_##lvl)) \
            ::ts::log::LogMessage(::ts::log::detail::kModule_##mod,                                \
                                  ::ts::log::detail::kLevel_##lvl, __FILE__, __LINE__, __func__)   \
                    .stream()                                                                      \
                << ::ts::log::formatBraces(__VA_ARGS__);                                           \
    } while (0)

#define TS_LOG_DEBUG(mod, ...) TS_LOGF(mod, DEBUG, __VA_ARGS__)
#define TS_LOG_INFO(mod, ...) TS_LOGF(mod, INFO, __VA_ARGS__)
#define TS_LOG_WARNING(mod, ...) TS_LOGF(mod, WARNING, __VA_ARGS__)
#define TS_LOG_ERROR(mod, ...) TS_LOGF(mod, ERROR, __VA_ARGS__)
#define TS_LOG_CRITICAL(mod, ...) TS_LOGF(mod, CRITICAL, __VA_ARGS__)
