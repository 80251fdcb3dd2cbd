#pragma once
// StackSampleTracker: the stack samples of a Chrome trace — `P` events and the elements of
// the top-level `samples` array — with their stacks, given by `sf` (a key of the top-level
// `stackFrames` object: name, category, parent) or, on P events, by `stack` (an array of
// frame names, root first). Samples wait until the end, since stackFrames may come after
// the events that refer to it; finish() writes the frames the samples reach (each once, a
// parent before its children) and the samples, as instants with scope 's' whose frame_id is
// the leaf of their stack.
#include <cstdint>
#include <functional>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/store/store_writer.h"
#include "importers/chrome_trace/chrome_event.h"

namespace ts::importers::chrome {

class StackSampleTracker {
public:
    explicit StackSampleTracker(store::StoreWriter& writer) : m_w(writer) {}

    /// A member of stackFrames (its key in e.id). A key given twice keeps its last value.
    void frame(const ChromeEvent& e);
    /// A sample at ts whose place is `thread` (the builder's thread index) or, when
    /// `thread` is kByTid, the thread with e.tid, found at finish().
    void sample(uint32_t thread, int64_t ts, const ChromeEvent& e);
    static constexpr uint32_t kByTid = UINT32_MAX;

    /// Writes the frames and samples, every ts moved by `offset`. `trackOf(thread)` gives the
    /// samples track of a builder thread; `threadOfTid(tid)` the builder thread of a global
    /// sample's tid.
    void finish(int64_t offset, const std::function<int64_t(uint32_t)>& trackOf,
                const std::function<uint32_t(const std::string&)>& threadOfTid);

private:
    static constexpr uint32_t kNone = UINT32_MAX;
    struct FrameDef {
        int64_t nameId = 0, catId = 0;
        uint32_t parent = kNone;  // index of the calling frame
        int64_t rowId = 0;        // stack_frames.id once written; -1 while being resolved
        bool defined = false;     // seen in stackFrames (or made from a `stack` array)
    };
    struct Pending {
        int64_t ts, nameId, catId, argId;
        uint32_t thread;  // builder thread, or an index into m_tids (kByTid samples)
        uint32_t frame;   // leaf frame index, kNone when the sample has no stack
        bool byTid;
    };

    uint32_t frameIndex(const std::string& key);
    uint32_t stackLeaf(const std::string& stackJson);
    int64_t rowOf(uint32_t frame);

    store::StoreWriter& m_w;
    std::unordered_map<std::string, uint32_t> m_keys;  // stackFrames key -> m_frames
    std::vector<FrameDef> m_frames;
    std::vector<Pending> m_samples;
    std::unordered_map<std::string, uint32_t> m_tidIndex;  // tid -> m_tids
    std::vector<std::string> m_tids;
    std::string m_key;
};

}  // namespace ts::importers::chrome
