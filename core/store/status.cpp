#include "core/store/status.h"

#include <array>
#include <utility>

namespace ts::store {
namespace {

constexpr std::array<std::pair<SourceStatus, const char*>, 6> kSourceWords{{
    {SourceStatus::Importing, "importing"},
    {SourceStatus::Complete, "complete"},
    {SourceStatus::Partial, "partial"},
    {SourceStatus::Failed, "failed"},
    {SourceStatus::Incomplete, "incomplete"},
    {SourceStatus::Cancelled, "cancelled"},
}};

constexpr std::array<std::pair<RunStatus, const char*>, 5> kRunWords{{
    {RunStatus::Running, "running"},
    {RunStatus::Completed, "completed"},
    {RunStatus::Stopped, "stopped"},
    {RunStatus::Failed, "failed"},
    {RunStatus::Interrupted, "interrupted"},
}};

template <class E, size_t N>
const char* nameOf(const std::array<std::pair<E, const char*>, N>& words, E e) {
    for (const auto& [v, w] : words)
        if (v == e) return w;
    return "unknown";
}

template <class E, size_t N>
E parse(const std::array<std::pair<E, const char*>, N>& words, std::string_view w, E fallback) {
    for (const auto& [v, word] : words)
        if (w == word) return v;
    return fallback;
}

}  // namespace

const char* statusName(SourceStatus s) {
    return nameOf(kSourceWords, s);
}
const char* statusName(RunStatus s) {
    return nameOf(kRunWords, s);
}
SourceStatus parseSourceStatus(std::string_view word, SourceStatus fallback) {
    return parse(kSourceWords, word, fallback);
}
RunStatus parseRunStatus(std::string_view word, RunStatus fallback) {
    return parse(kRunWords, word, fallback);
}

}  // namespace ts::store
