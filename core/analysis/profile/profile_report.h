#pragma once
// ProfileReport: everything the Step, Memory and Advice views and `trainscope-cli analyze`
// show for one profile — the profile sources of the session (for the source chooser), the
// source analysed, its steps (joined with their device side on GPU traces), memory, the
// device-side report (GPU overview, kernels, HTA, communication) where the trace has device
// work, and advice that names the device — computed in one pass. No Qt.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/analysis/gpu/ascend_tables.h"
#include "core/analysis/gpu/gpu_report.h"
#include "core/analysis/profile/advice.h"
#include "core/analysis/profile/memory_analysis.h"
#include "core/analysis/profile/profile_data.h"
#include "core/analysis/profile/step_analysis.h"

namespace ts::analysis {

struct ProfileReport {
    std::vector<ProfileSourceInfo> sources;  // newest first
    int64_t sourceId = 0;
    std::string sourceLabel;
    StepAnalysis steps;
    MemoryAnalysis memory;
    std::vector<AdviceFinding> advice;
    std::optional<AdviceFinding> overview;    // costOverview(): where the time goes, always
    std::vector<OpSelfTime> ops;              // op self time by type, largest first
    std::optional<gpu::GpuReport> gpu;        // when the source has device work
    std::optional<gpu::AscendTables> ascend;  // the session's Ascend profiler tables, if any
    std::string device = "cpu";               // what the advice is about: cuda | rocm | ascend
                                              // | engine | cpu
};

/// Analyses the profile picked by resolveProfileSource(sourceId, runId).
/// Errors: no profile, unknown source or run, damaged store, cancelled.
Result<ProfileReport> analyzeProfile(store::TraceStore& store, std::optional<int64_t> sourceId,
                                     std::optional<int64_t> runId, JobControl* job = nullptr);
/// Same, opening the session at `path` read-only.
Result<ProfileReport> analyzeProfile(const std::string& path, std::optional<int64_t> sourceId,
                                     std::optional<int64_t> runId, JobControl* job = nullptr);

}  // namespace ts::analysis
