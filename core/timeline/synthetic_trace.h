#pragma once
// A synthetic profile for benchmarks and demos: `processes` x `threadsPerProcess` thread
// tracks of nested op slices (depth 0..2, random durations), about `slices` slices in all,
// plus ProfilerStep#N slices are not written (the benches measure the timeline, not steps).
#include <cstdint>
#include <string>

#include "core/common/result.h"

namespace ts::timeline {

struct SyntheticTraceSpec {
    int64_t slices = 10'000'000;
    int processes = 4;
    int threadsPerProcess = 4;
    int distinctNames = 200;
    uint64_t seed = 42;
};

/// Writes a new session at `path` (which must not exist) and returns the slices written.
Result<int64_t> writeSyntheticTrace(const std::string& path, const SyntheticTraceSpec& spec);

}  // namespace ts::timeline
