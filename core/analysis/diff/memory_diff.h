#pragma once
// Memory of two runs side by side (the Diff view's Memory tab): each side's peak (memory in
// use and pool), the allocations live at it, and per op (or op and input shapes) the bytes
// allocated and still held at the end, per step when both sides count ProfilerStep#N steps,
// ranked by the change. Each side is a profile of a session as the run diff picks it
// (core/analysis/run_diff: a run, a source, or the newest profile). No Qt.
#include <cstdint>
#include <string>
#include <vector>

#include "core/analysis/diff/run_diff.h"
#include "core/common/job_control.h"
#include "core/common/result.h"

namespace ts::memory {

struct MemoryDiffSide {
    int64_t sourceId = 0;
    std::string label;
    std::string origin;  // where the memory figures come from ("" when the profile has none)
    double peakBytes = 0, poolPeakBytes = 0;
    int64_t liveAtPeak = 0;
    int64_t steps = 0;  // ProfilerStep#N slices (per-step figures divide by it when > 0)
};

struct OpMemoryDiffRow {
    std::string op, shapes;
    double allocated[2] = {0, 0};  // bytes per step (per profile when a side has no steps)
    double net[2] = {0, 0};
    double allocations[2] = {0, 0};
    double delta() const { return allocated[1] - allocated[0]; }
};

struct MemoryDiff {
    MemoryDiffSide a, b;
    bool perStep = false;
    std::vector<OpMemoryDiffRow> ops;  // by |delta|, largest first
    std::string explains;              // one sentence
};

Result<MemoryDiff> diffMemory(const analysis::DiffSideSpec& a, const analysis::DiffSideSpec& b,
                              bool byShape, JobControl* job = nullptr);

}  // namespace ts::memory
