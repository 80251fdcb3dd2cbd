#include "core/log/logger.h"

#include <sys/syscall.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "core/common/clock.h"
#include "core/log/output_sinks.h"

namespace ts::log {
namespace {

thread_local bool t_inSink = false;

}  // namespace

int64_t currentThreadId() {
    thread_local const int64_t tid = static_cast<int64_t>(syscall(SYS_gettid));
    return tid;
}

namespace {

// Source paths relative to the project root, like MindSpore's "mindspore/ccsrc/...".
std::string shortFile(const char* file) {
    if (!file) return {};
    std::string_view f(file);
#ifdef TRAINSCOPE_SOURCE_DIR
    constexpr std::string_view root = TRAINSCOPE_SOURCE_DIR;
    if (f.size() > root.size() && f.substr(0, root.size()) == root && f[root.size()] == '/')
        f.remove_prefix(root.size() + 1);
#endif
    return std::string(f);
}

// glog reads its variables when the program starts; so do we, in any program that logs.
[[maybe_unused]] const bool g_configuredFromEnv = [] {
    Logger::instance().initFromEnvironment();
    return true;
}();

}  // namespace

Logger& Logger::instance() {
    static Logger* logger = new Logger();  // never destroyed: logging works during exit
    return *logger;
}

Logger::Logger() {
    m_program = program_invocation_short_name ? program_invocation_short_name : "trainscope";
    m_outputSinks.push_back(std::make_shared<StderrSink>());
}

Level Logger::globalLevel() const {
    std::lock_guard lock(m_levelMutex);
    return m_global;
}

void Logger::setGlobalLevel(Level level) {
    std::lock_guard lock(m_levelMutex);
    m_global = level;
    publishLevels();
}

void Logger::setModuleLevel(SubModule module, std::optional<Level> level) {
    std::lock_guard lock(m_levelMutex);
    m_overrides[static_cast<size_t>(module)] = level;
    publishLevels();
}

std::optional<Level> Logger::moduleOverride(SubModule module) const {
    std::lock_guard lock(m_levelMutex);
    return m_overrides[static_cast<size_t>(module)];
}

void Logger::publishLevels() {
    for (size_t i = 0; i < kSubModuleCount; ++i)
        detail::g_levels[i].store(static_cast<uint8_t>(m_overrides[i].value_or(m_global)),
                                  std::memory_order_relaxed);
}

std::vector<std::string> Logger::configure(const LogConfig& config) {
    std::vector<std::string> errors;
    Level lowest = config.globalLevel;
    {
        std::lock_guard lock(m_levelMutex);
        m_global = config.globalLevel;
        for (auto& o : m_overrides) o.reset();
        for (const auto& [module, level] : config.moduleLevels) {
            m_overrides[static_cast<size_t>(module)] = level;
            lowest = std::min(lowest, level);
        }
        publishLevels();
    }
    std::vector<std::shared_ptr<LogSink>> outputs;
    if (!config.toStderr && !config.logDir.empty()) {
        auto files =
            GlogFileSink::create(config.fileDir(), programName(), lowest, config.maxFileMb << 20);
        if (files) {
            outputs.push_back(std::shared_ptr<LogSink>(std::move(files.value())));
            outputs.push_back(std::make_shared<StderrSink>(config.stderrThreshold));
        } else {
            errors.push_back("GLOG_log_dir: " + files.error() + "; logging to stderr");
        }
    }
    if (outputs.empty()) outputs.push_back(std::make_shared<StderrSink>());
    std::lock_guard lock(m_sinkMutex);
    for (auto& s : m_outputSinks) s->flush();
    m_outputSinks = std::move(outputs);
    return errors;
}

std::vector<std::string> Logger::initFromEnvironment() {
    LogConfigResult parsed = parseLogEnv(processEnv());
    std::vector<std::string> warnings = std::move(parsed.warnings);
    for (auto& e : configure(parsed.config)) warnings.push_back(std::move(e));
    for (const auto& w : warnings) {
        LogRecord r;
        r.level = Level::Warning;
        r.module = std::string(subModuleName(SubModule::Common));
        r.file = shortFile(__FILE__);
        r.line = __LINE__;
        r.function = __func__;
        r.message = w;
        write(std::move(r));
    }
    return warnings;
}

void Logger::setProgramName(std::string name) {
    std::lock_guard lock(m_sinkMutex);
    m_program = std::move(name);
}

std::string Logger::programName() {
    std::lock_guard lock(m_sinkMutex);
    return m_program;
}

void Logger::addSink(std::shared_ptr<LogSink> sink) {
    if (!sink) return;
    std::lock_guard lock(m_sinkMutex);
    m_sinks.push_back(std::move(sink));
}

void Logger::removeSink(const LogSink* sink) {
    std::lock_guard lock(m_sinkMutex);
    std::erase_if(m_sinks, [sink](const auto& s) { return s.get() == sink; });
}

void Logger::flush() {
    // Flush outside the lock: a sink's flush may wait on a thread that logs (StoreSink).
    std::vector<std::shared_ptr<LogSink>> sinks;
    {
        std::lock_guard lock(m_sinkMutex);
        sinks = m_outputSinks;
        sinks.insert(sinks.end(), m_sinks.begin(), m_sinks.end());
    }
    for (auto& s : sinks) s->flush();
}

void Logger::write(LogRecord record) {
    if (t_inSink) return;  // a sink logging from inside write(): dropped, no deadlock
    if (!record.tsNs) record.tsNs = nowNs();
    if (!record.pid) record.pid = static_cast<int64_t>(getpid());
    if (!record.tid) record.tid = currentThreadId();
    std::lock_guard lock(m_sinkMutex);
    if (record.program.empty()) record.program = m_program;
    const std::string line = formatRecord(record);
    t_inSink = true;
    for (auto& s : m_outputSinks) s->write(record, line);
    for (auto& s : m_sinks) s->write(record, line);
    t_inSink = false;
}

LogMessage::LogMessage(SubModule module, Level level, const char* file, int line,
                       const char* function)
    : m_module(module), m_level(level), m_file(file), m_line(line), m_function(function) {}

LogMessage::~LogMessage() {
    LogRecord r;
    r.level = m_level;
    r.module = std::string(subModuleName(m_module));
    r.file = shortFile(m_file);
    r.line = m_line;
    r.function = m_function ? m_function : "";
    r.message = m_stream.str();
    Logger::instance().write(std::move(r));
}

namespace detail {

bool copyUntilPlaceholder(std::ostringstream& out, std::string_view fmt, size_t& pos) {
    while (pos < fmt.size()) {
        const char c = fmt[pos];
        if (c == '{' && pos + 1 < fmt.size() && fmt[pos + 1] == '{') {
            out << '{';
            pos += 2;
        } else if (c == '}' && pos + 1 < fmt.size() && fmt[pos + 1] == '}') {
            out << '}';
            pos += 2;
        } else if (c == '{' && pos + 1 < fmt.size() && fmt[pos + 1] == '}') {
            pos += 2;
            return true;
        } else {
            out << c;
            ++pos;
        }
    }
    return false;
}

void appendArgs(std::ostringstream& out, std::string_view fmt, size_t& pos) {
    while (copyUntilPlaceholder(out, fmt, pos)) out << "{}";
}

}  // namespace detail

}  // namespace ts::log
