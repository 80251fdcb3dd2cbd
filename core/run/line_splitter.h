#pragma once
// LineSplitter: bytes as they come from a pipe or a growing file -> complete lines
// (without '\n'; a trailing '\r' stays for the consumer to strip). A line longer than
// kMaxLine is cut into pieces of that size, so a child printing megabytes without a
// newline cannot make the launcher's memory grow without bound.
#include <cstddef>
#include <string>
#include <string_view>

namespace ts::run {

class LineSplitter {
public:
    static constexpr size_t kMaxLine = 1 << 20;

    /// Calls `onLine(std::string_view)` for every line `bytes` completes.
    template <class F>
    void feed(std::string_view bytes, F&& onLine) {
        while (!bytes.empty()) {
            const size_t nl = bytes.find('\n');
            if (nl == std::string_view::npos) {
                m_partial.append(bytes);
                while (m_partial.size() >= kMaxLine) {
                    onLine(std::string_view(m_partial).substr(0, kMaxLine));
                    m_partial.erase(0, kMaxLine);
                }
                return;
            }
            if (m_partial.empty()) {
                onLine(bytes.substr(0, nl));
            } else {
                m_partial.append(bytes.substr(0, nl));
                onLine(std::string_view(m_partial));
                m_partial.clear();
            }
            bytes.remove_prefix(nl + 1);
        }
    }
    /// Emits what is left without a newline (at the end of the stream).
    template <class F>
    void finish(F&& onLine) {
        if (!m_partial.empty()) onLine(std::string_view(m_partial));
        m_partial.clear();
    }
    bool hasPartial() const { return !m_partial.empty(); }

private:
    std::string m_partial;
};

}  // namespace ts::run
