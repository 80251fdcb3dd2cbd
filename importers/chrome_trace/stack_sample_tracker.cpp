#include "importers/chrome_trace/stack_sample_tracker.h"

#include <algorithm>

#include "core/common/json_read.h"

namespace ts::importers::chrome {

uint32_t StackSampleTracker::frameIndex(const std::string& key) {
    auto [it, added] = m_keys.try_emplace(key, static_cast<uint32_t>(m_frames.size()));
    if (added) m_frames.emplace_back();
    return it->second;
}

void StackSampleTracker::frame(const ChromeEvent& e) {
    const uint32_t i = frameIndex(e.id);
    FrameDef& f = m_frames[i];
    f.defined = true;
    // A frame without a name is shown by its key.
    f.nameId = m_w.intern(e.hasName && !e.name.empty() ? e.name : e.id);
    f.catId = m_w.intern(e.category);
    // (frameIndex may grow m_frames: take the parent's index first.)
    const uint32_t parent = e.hasParent ? frameIndex(e.parent) : kNone;
    m_frames[i].parent = parent == i ? kNone : parent;
}

// The frames of a `stack` array (names, root first) as a chain of frames made for it, shared
// with other stacks that start the same way; the index of its leaf, kNone when empty.
uint32_t StackSampleTracker::stackLeaf(const std::string& stackJson) {
    rapidjson::Document d;
    const auto parsed = ts::json::parse<rapidjson::kParseNumbersAsStringsFlag |
                                        rapidjson::kParseTrailingCommasFlag>(d, stackJson);
    if (!parsed || !d.IsArray()) return kNone;
    uint32_t leaf = kNone;
    for (const auto& v : d.GetArray()) {
        if (!v.IsString()) continue;
        const int64_t name = m_w.intern(std::string_view(v.GetString(), v.GetStringLength()));
        m_key.assign("\x01")
            .append(std::to_string(leaf))
            .append("\x01")
            .append(std::to_string(name));
        auto [it, added] = m_keys.try_emplace(m_key, static_cast<uint32_t>(m_frames.size()));
        if (added) {
            FrameDef f;
            f.nameId = name;
            f.parent = leaf;
            f.defined = true;
            m_frames.push_back(f);
        }
        leaf = it->second;
    }
    return leaf;
}

void StackSampleTracker::sample(uint32_t thread, int64_t ts, const ChromeEvent& e) {
    Pending p{};
    p.ts = ts;
    p.nameId = m_w.intern(e.name);
    p.catId = m_w.intern(e.cat);
    p.argId = e.args.empty() || e.args == "{}" ? 0
              : e.argsTrailingCommas           ? m_w.addArgs(withoutTrailingCommas(e.args))
                                               : m_w.addArgs(e.args);
    p.frame = e.hasSf ? frameIndex(e.sf) : !e.stack.empty() ? stackLeaf(e.stack) : kNone;
    p.byTid = thread == kByTid;
    if (p.byTid) {
        const std::string tid = e.hasTid ? e.tid : std::string();
        auto [it, added] = m_tidIndex.try_emplace(tid, static_cast<uint32_t>(m_tids.size()));
        if (added) m_tids.push_back(tid);
        p.thread = it->second;
    } else {
        p.thread = thread;
    }
    m_samples.push_back(p);
}

// The row of a frame, writing it and the callers it needs first. Walks up iteratively (a
// stack may be deep); a frame never defined has no row (its callees become roots), and a
// parent chain that loops back is cut where it does.
int64_t StackSampleTracker::rowOf(uint32_t frame) {
    if (frame == kNone || !m_frames[frame].defined) return 0;
    if (m_frames[frame].rowId > 0) return m_frames[frame].rowId;
    std::vector<uint32_t> chain;
    for (uint32_t f = frame; f != kNone && m_frames[f].defined && m_frames[f].rowId == 0;
         f = m_frames[f].parent) {
        m_frames[f].rowId = -1;  // on the current walk
        chain.push_back(f);
    }
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) {
        FrameDef& f = m_frames[*it];
        int64_t parentRow = 0;
        if (f.parent != kNone && m_frames[f.parent].defined && m_frames[f.parent].rowId > 0)
            parentRow = m_frames[f.parent].rowId;
        f.rowId = m_w.addStackFrame(parentRow, f.nameId, f.catId);
    }
    return std::max<int64_t>(m_frames[frame].rowId, 0);
}

void StackSampleTracker::finish(int64_t offset, const std::function<int64_t(uint32_t)>& trackOf,
                                const std::function<uint32_t(const std::string&)>& threadOfTid) {
    std::vector<uint32_t> tidThreads(m_tids.size());
    for (size_t i = 0; i < m_tids.size(); ++i) tidThreads[i] = threadOfTid(m_tids[i]);
    // Each thread's samples in time order (a trace need not write them so).
    std::stable_sort(m_samples.begin(), m_samples.end(),
                     [](const Pending& a, const Pending& b) { return a.ts < b.ts; });
    for (const Pending& p : m_samples) {
        const uint32_t thread = p.byTid ? tidThreads[p.thread] : p.thread;
        m_w.addSample(trackOf(thread), p.ts + offset, p.nameId, p.catId, rowOf(p.frame), p.argId);
    }
    m_samples.clear();
}

}  // namespace ts::importers::chrome
