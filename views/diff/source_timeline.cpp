#include "views/diff/source_timeline.h"

#include <algorithm>
#include <limits>

using ts::timeline::TimelineModel;

std::shared_ptr<const TimelineModel> sourceTimeline(const TimelineModel& m, int64_t sourceId) {
    auto out = std::make_shared<TimelineModel>();
    out->strings = m.strings;
    out->originNs = m.originNs;
    out->flowsMissing = m.flowsMissing;
    std::vector<int> remap(m.tracks.size(), -1);
    for (size_t i = 0; i < m.tracks.size(); ++i) {
        if (m.tracks[i].sourceId != sourceId) continue;
        remap[i] = static_cast<int>(out->tracks.size());
        out->tracks.push_back(m.tracks[i]);
        out->sliceCount += m.tracks[i].sliceCount;
    }
    for (const auto& g : m.groups) {
        ts::timeline::TrackGroup kept = g;
        kept.tracks.clear();
        for (int t : g.tracks)
            if (remap[static_cast<size_t>(t)] >= 0)
                kept.tracks.push_back(remap[static_cast<size_t>(t)]);
        if (!kept.tracks.empty()) out->groups.push_back(std::move(kept));
    }
    for (size_t f = 0; f < m.flows.size(); ++f) {
        auto flow = m.flows[f];
        const int from = remap[static_cast<size_t>(flow.from.track)];
        const int to = remap[static_cast<size_t>(flow.to.track)];
        if (from < 0 || to < 0) continue;
        flow.from.track = from;
        flow.to.track = to;
        out->flows.push_back(flow);
        out->flowLo.push_back(m.flowLo[f]);
        out->maxFlowSpan = std::max(out->maxFlowSpan, m.maxFlowSpan);
    }
    int64_t lo = std::numeric_limits<int64_t>::max(), hi = std::numeric_limits<int64_t>::min();
    for (const auto& t : out->tracks) {
        for (const auto& lv : t.levels)
            if (lv.size())
                lo = std::min(lo, lv.ts.front()), hi = std::max(hi, lv.end(lv.size() - 1));
        if (!t.counter.ts.empty())
            lo = std::min(lo, t.counter.ts.front()), hi = std::max(hi, t.counter.ts.back());
        if (!t.instants.ts.empty())
            lo = std::min(lo, t.instants.ts.front()), hi = std::max(hi, t.instants.ts.back());
    }
    if (lo <= hi) {
        out->startNs = lo;
        out->endNs = std::max(hi, lo + 1);
    }
    return out;
}
