#include "core/log/log_filter.h"

#include <algorithm>
#include <cctype>
#include "core/common/text.h"

namespace ts::log {
namespace {

std::string upper(std::string s) {
    for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    return s;
}

}  // namespace

Result<LogMatcher> LogMatcher::create(const LogFilter& filter) {
    LogMatcher m;
    m.m_filter = filter;
    for (const auto& mod : filter.modules) m.m_modulesUpper.push_back(upper(mod));
    if (!filter.text.empty()) {
        if (filter.regex) {
            try {
                auto flags = std::regex::ECMAScript;
                if (!filter.caseSensitive) flags |= std::regex::icase;
                m.m_regex = std::make_shared<std::regex>(filter.text, flags);
            } catch (const std::regex_error& e) {
                return Error{"invalid regular expression '" + filter.text + "': " + e.what()};
            }
        } else {
            m.m_textLower = filter.caseSensitive ? filter.text : asciiLower(filter.text);
        }
    }
    return m;
}

bool LogMatcher::matchesText(const std::string& s) const {
    if (m_filter.text.empty()) return true;
    if (m_regex) return std::regex_search(s, *m_regex);
    if (m_filter.caseSensitive) return s.find(m_filter.text) != std::string::npos;
    return asciiLower(s).find(m_textLower) != std::string::npos;
}

bool LogMatcher::matches(const LogRecord& r) const {
    if (r.level < m_filter.minLevel) return false;
    if (!m_modulesUpper.empty() && std::find(m_modulesUpper.begin(), m_modulesUpper.end(),
                                             upper(r.module)) == m_modulesUpper.end())
        return false;
    if (m_filter.fromNs || m_filter.toNs) {
        if (!r.tsNs) return false;
        if (m_filter.fromNs && *r.tsNs < *m_filter.fromNs) return false;
        if (m_filter.toNs && *r.tsNs > *m_filter.toNs) return false;
    }
    if (m_filter.text.empty()) return true;
    return matchesText(r.message) || matchesText(r.module) || matchesText(r.file);
}

}  // namespace ts::log
