#pragma once
// A source's label ("rank0", "train.py cycle 2") and the names of its processes, which the
// timeline shows prefixed with it ("cycle 2: python3 (4242)") so that the processes of
// several sources tell apart. Used by the importers (every source once a session holds
// several) and by command runs (each profiler cycle of a script).
#include <cstdint>
#include <string>

#include "core/common/result.h"

namespace ts::store {
class TraceStore;
}

namespace ts::session {

/// Sets sources.label of `sourceId` and prefixes its processes' names with "<label>: "
/// (once: a name that has the prefix already keeps it). Runs in the caller's transaction
/// when one is open.
Status labelSource(store::TraceStore& store, int64_t sourceId, const std::string& label);

}  // namespace ts::session
