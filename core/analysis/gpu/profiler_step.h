#pragma once
// PyTorch's step marks: "ProfilerStep#N", which torch.profiler's schedule writes around each
// step (PyTorch 2.x writes it twice: a CPU user_annotation and a gpu_user_annotation).
#include <cstdint>
#include <optional>
#include <string_view>

namespace ts::analysis {

/// Step number of a "ProfilerStep#N" name, nullopt for any other name.
std::optional<int64_t> profilerStepNumber(std::string_view name);

}  // namespace ts::analysis
