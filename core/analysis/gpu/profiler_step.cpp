#include "core/analysis/gpu/profiler_step.h"

#include <charconv>

namespace ts::analysis {

std::optional<int64_t> profilerStepNumber(std::string_view name) {
    constexpr std::string_view kPrefix = "ProfilerStep#";
    if (name.size() <= kPrefix.size() || name.substr(0, kPrefix.size()) != kPrefix)
        return std::nullopt;
    int64_t n = 0;
    const char* b = name.data() + kPrefix.size();
    const char* e = name.data() + name.size();
    auto [p, ec] = std::from_chars(b, e, n);
    if (ec != std::errc() || p != e) return std::nullopt;
    return n;
}

}  // namespace ts::analysis
