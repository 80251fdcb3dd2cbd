#include "core/log/log_tokenizer.h"

#include <cctype>
#include <ctime>

#include "core/log/log_line_parser.h"

namespace ts::log {
namespace {

bool isIndented(std::string_view s) {
    return !s.empty() && (s[0] == ' ' || s[0] == '\t');
}

bool isBlank(std::string_view s) {
    return s.find_first_not_of(" \t") == std::string_view::npos;
}

// The lines MindSpore appends to an exception's message after the traceback's last line:
// a ruler, "- C++ Call Stack: (For framework developers)", and source locations
// ("mindspore/ccsrc/runtime/.../graph_scheduler.cc:1031 Run").
bool isExceptionDetail(std::string_view s) {
    if (s.size() >= 10 && s.find_first_not_of('-') == std::string_view::npos) return true;
    if (s.starts_with("- ") && s.find(':') != std::string_view::npos && s.size() < 120) return true;
    size_t i = 0;
    while (i < s.size() && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_' ||
                            s[i] == '/' || s[i] == '.' || s[i] == '-'))
        ++i;
    const std::string_view path = s.substr(0, i);
    const bool source = path.ends_with(".cc") || path.ends_with(".cpp") || path.ends_with(".h") ||
                        path.ends_with(".py") || path.ends_with(".cxx") || path.ends_with(".hpp");
    if (!source || i >= s.size() || s[i] != ':') return false;
    size_t d = i + 1;
    while (d < s.size() && std::isdigit(static_cast<unsigned char>(s[d]))) ++d;
    return d > i + 1 && (d == s.size() || s[d] == ' ');
}

}  // namespace

LogTokenizer::LogTokenizer(Emit onRecord, int year) : m_emit(std::move(onRecord)), m_year(year) {
    if (m_year <= 0) {
        const time_t now = time(nullptr);
        std::tm tm{};
        localtime_r(&now, &tm);
        m_year = tm.tm_year + 1900;
    }
}

void LogTokenizer::setPlainLines(Level level, std::string module) {
    m_plainLevel = level;
    m_plainModule = std::move(module);
}

void LogTokenizer::emitCurrent() {
    if (m_current) {
        ++m_stats.records;
        m_emit(std::move(*m_current));
        m_current.reset();
    }
    m_tb = Tb::None;
    m_pendingBlanks = 0;
}

void LogTokenizer::start(LogRecord r, std::string_view format) {
    emitCurrent();
    m_current = std::move(r);
    ++m_stats.formats[std::string(format)];
}

void LogTokenizer::append(std::string_view line) {
    for (; m_pendingBlanks > 0; --m_pendingBlanks) m_current->message += '\n';
    m_current->message += '\n';
    m_current->message.append(line);
    ++m_stats.continuationLines;
}

void LogTokenizer::addLine(std::string_view raw) {
    if (!raw.empty() && raw.back() == '\r') raw.remove_suffix(1);
    const std::string clean = sanitizeUtf8(raw);
    const std::string_view line = clean;
    ++m_stats.lines;
    if (isBlank(line)) {
        if (m_current) ++m_pendingBlanks;
        return;
    }
    if (isTracebackStart(line)) {
        if (m_current && m_tb == Tb::AwaitChained) {
            append(line);
            m_tb = Tb::Frames;
            return;
        }
        LogRecord r;
        r.level = Level::Error;
        r.module = "PYTHON";
        r.message = std::string(line);
        start(std::move(r), "traceback");
        m_tb = Tb::Frames;
        return;
    }
    if (const int y = glogFileHeaderYear(line)) m_year = y;
    if (auto h = parseHeaderLine(line, m_year)) {
        start(std::move(h->record), formatName(h->format));
        return;
    }
    if (m_current && m_tb != Tb::None) {
        switch (m_tb) {
            case Tb::Frames:
                append(line);
                if (!isIndented(line)) m_tb = Tb::AfterException;
                return;
            case Tb::AfterException:
            case Tb::AwaitChained:
                if (isTracebackChain(line)) {
                    append(line);
                    m_tb = Tb::AwaitChained;
                    return;
                }
                if ((isIndented(line) || isExceptionDetail(line)) && m_tb == Tb::AfterException) {
                    append(line);
                    return;
                }
                break;
            case Tb::None:
                break;
        }
    } else if (m_current && isIndented(line)) {
        append(line);
        return;
    }
    LogRecord r;
    r.level = m_plainLevel ? *m_plainLevel : guessLevel(line);
    r.module = m_plainModule;
    r.message = std::string(line);
    start(std::move(r), "unknown");
}

void LogTokenizer::finish() {
    emitCurrent();
}

}  // namespace ts::log
