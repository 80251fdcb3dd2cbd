#pragma once
// Writes trace data of a session as a Chrome Trace Event Format file (object form) that
// chrome://tracing and Perfetto open: M events for process/thread names and sort indexes,
// X for slices (B for unfinished ones), b/e/n for async tracks, i for instants, R for marks,
// P for stack samples (with the top-level stackFrames their sf refer to), c for clock syncs,
// C for counters, s/f pairs (bp "e") for flows, args as stored. ts/dur are microseconds written
// exactly as decimals with 3 fractional digits (the stored nanoseconds, nothing rounded).
#include <cstdint>
#include <optional>
#include <string>

#include "core/common/result.h"
#include "core/store/trace_store.h"

namespace ts::chrome_export {

struct ChromeExportStats {
    int64_t events = 0, slices = 0, asyncSlices = 0, instants = 0, counterSamples = 0, flows = 0;
    int64_t marks = 0, samples = 0;
};

/// Exports source `sourceId` (every source when nullopt) of `store` to `outPath`.
Result<ChromeExportStats> exportChromeTrace(store::TraceStore& store, const std::string& outPath,
                                            std::optional<int64_t> sourceId);

/// Nanoseconds as microseconds with exactly 3 fractional digits ("-1.500", "12.000").
std::string nsToMicros(int64_t ns);

}  // namespace ts::chrome_export
