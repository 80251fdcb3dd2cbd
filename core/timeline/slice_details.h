#pragma once
// What the details panel shows for one slice: read from the store on demand (a job),
// not kept in the timeline model.
#include <cstdint>
#include <string>
#include <vector>

#include "core/common/result.h"

namespace ts::store {
class TraceStore;
}

namespace ts::timeline {

/// The other end of a flow arrow.
struct FlowLink {
    int64_t sliceId = 0;
    std::string name;      // name of the slice at the other end
    std::string flowName;  // name of the flow ("ac2g", ...), may be empty
    int64_t ts = 0;
    std::string via;  // for flows of nested slices: the nested slice they leave ("cudaLaunch...")
};

struct SliceDetails {
    int64_t id = 0;
    std::string name, category, track;
    int64_t ts = 0, dur = 0, selfNs = 0;
    int32_t depth = 0;
    bool unfinished = false;
    std::string argsJson;  // pretty-printed JSON object, "" when the slice has no args
    std::vector<FlowLink> flowsIn, flowsOut;
    /// Flows leaving slices nested in this one (a CPU op's runtime calls -> their kernels:
    /// Kineto's CPU op -> runtime -> kernel chain), at most kMaxNestedFlows of them.
    std::vector<FlowLink> nestedFlowsOut;
    int64_t nestedFlowsMore = 0;  // nested flows beyond the ones listed
    static constexpr int kMaxNestedFlows = 50;
};

/// Where a slice is in the slices table: its primary key (track_id, ts, id), so that it is
/// found through the index rather than by scanning millions of rows.
struct SliceKey {
    int64_t id = 0, trackId = 0, ts = 0;
};

/// Details of slice `key`; self time = duration minus direct children on its track. The
/// other ends of its flows are located through `known` (keys the caller can place, e.g. the
/// timeline model's flow ends); ends not in it are looked up by id (a scan of the table).
/// Error when the slice does not exist.
Result<SliceDetails> readSliceDetails(store::TraceStore& store, const SliceKey& key,
                                      const std::vector<SliceKey>& known = {});
Result<SliceDetails> readSliceDetails(const std::string& path, const SliceKey& key,
                                      const std::vector<SliceKey>& known = {});
/// Same, by id alone (finds the slice with a scan of the slices table: fine for small
/// sessions and the CLI, slow on millions of slices).
Result<SliceDetails> readSliceDetails(store::TraceStore& store, int64_t sliceId);
Result<SliceDetails> readSliceDetails(const std::string& path, int64_t sliceId);

/// Pretty-prints a JSON text with 2-space indents (the text itself when it does not parse).
std::string prettyJson(std::string_view json);

}  // namespace ts::timeline
