#pragma once
// The PyTorch CUDA memory snapshot importer ("torch_memory_snapshot"): a snapshot pickle
// (torch.cuda.memory._dump_snapshot) becomes a source of the session beside the run's
// trace. Per device: the counters "Memory In Use (bytes)" (memory_viz's active memory) and
// "Memory Pool (bytes)" (reserved segments) after each event, an "Allocations" thread with
// one "alloc" instant per allocation (bytes, address, stream, the site that allocated it as
// its op, its Python frames, when it was freed) and the "oom" events with their cause, and
// the record_function annotations the allocator saw as slices. So the Memory, Timeline and
// Diff views and `analyze` read it as they read a profile. Times: the snapshot's clock is
// microseconds since the epoch; when a trace of the session shares it — Kineto's
// baseTimeNanoseconds, or a trace in epoch time — the snapshot is shifted onto that trace's
// time, else it keeps epoch time (the import report says which).
#include <cstdint>
#include <string>
#include <string_view>

#include "core/common/job_control.h"
#include "importers/registry.h"

namespace ts::importers {

Importer torchMemoryImporter();

namespace torch_memory {

/// 95 for a pickle whose first bytes name snapshot keys; else 0.
int sniff(const std::string& path, std::string_view head);
ImportReport importSnapshot(const std::string& path, store::TraceStore& store, JobControl& control);

struct Alignment {
    int64_t offsetNs = 0;  // added to epoch ns
    int64_t sourceId = 0;  // the trace it is aligned to (0: none)
    std::string how;
};
/// How to place [firstNs, lastNs] (epoch ns) beside the session's other sources: the source
/// whose time range overlaps it most, with offset 0 (a trace in epoch time) or minus its
/// Kineto base time.
Alignment alignToSession(store::TraceStore& store, int64_t ownSource, int64_t firstNs,
                         int64_t lastNs);

}  // namespace torch_memory
}  // namespace ts::importers
