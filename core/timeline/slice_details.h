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
};

struct SliceDetails {
    int64_t id = 0;
    std::string name, category, track;
    int64_t ts = 0, dur = 0, selfNs = 0;
    int32_t depth = 0;
    bool unfinished = false;
    std::string argsJson;  // pretty-printed JSON object, "" when the slice has no args
    std::vector<FlowLink> flowsIn, flowsOut;
};

/// Details of slice `sliceId`; self time = duration minus direct children on its track.
/// Error when the slice does not exist.
Result<SliceDetails> readSliceDetails(store::TraceStore& store, int64_t sliceId);
Result<SliceDetails> readSliceDetails(const std::string& path, int64_t sliceId);

/// Pretty-prints a JSON text with 2-space indents (the text itself when it does not parse).
std::string prettyJson(std::string_view json);

}  // namespace ts::timeline
