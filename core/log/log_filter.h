#pragma once
// LogFilter: which records to show (level, sub-modules, text or regex, time range), used by
// the CLI, the store query and the log view alike.
#include <cstdint>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "core/common/result.h"
#include "core/log/log_record.h"

namespace ts::log {

struct LogFilter {
    Level minLevel = Level::Debug;
    std::vector<std::string> modules;  // empty = all; compared case-insensitively
    std::string text;                  // "" = any; substring, or a regex when `regex`
    bool regex = false;
    bool caseSensitive = false;
    std::optional<int64_t> fromNs;  // with a bound set, records without a time are left out
    std::optional<int64_t> toNs;
};

/// A compiled LogFilter. Matches the text against the message, module and file.
class LogMatcher {
public:
    /// Error when `regex` is set and `text` is not a valid ECMAScript regex.
    static Result<LogMatcher> create(const LogFilter& filter);
    bool matches(const LogRecord& r) const;
    bool matchesText(const std::string& s) const;
    const LogFilter& filter() const { return m_filter; }

private:
    LogFilter m_filter;
    std::vector<std::string> m_modulesUpper;
    std::string m_textLower;
    std::shared_ptr<std::regex> m_regex;
};

}  // namespace ts::log
