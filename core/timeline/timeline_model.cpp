#include "core/timeline/timeline_model.h"

#include <algorithm>
#include <cctype>

namespace ts::timeline {

std::string threadTitle(const std::string& name, const std::string& tid) {
    if (name.empty()) return "Thread " + tid;
    auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) != 0; };
    for (size_t at = name.find(tid); !tid.empty() && at != std::string::npos;
         at = name.find(tid, at + 1))
        if ((at == 0 || !word(name[at - 1])) &&
            (at + tid.size() == name.size() || !word(name[at + tid.size()])))
            return name;  // holds the tid as a whole word already
    return name + " (" + tid + ")";
}

std::string processTitle(const std::string& name, const std::string& pid,
                         const std::string& labels) {
    std::string title = name.empty() ? "Process " + pid : name + " (" + pid + ")";
    // A label the name holds already (a source prefix "rank0: GPU 0") is not repeated.
    if (!labels.empty() && name.find(labels) == std::string::npos) title += " \u00b7 " + labels;
    return title;
}

int64_t TimelineModel::modelTime(int64_t storeNs) const {
    int64_t offset = 0;
    bool found = false;
    for (const SourceExtent& e : sourceExtents)
        if (storeNs >= e.startNs && storeNs <= e.endNs) {
            offset = alignmentOf(e.sourceId).offsetNs;
            found = true;
            break;
        }
    if (!found && !sourceExtents.empty()) offset = alignmentOf(sourceExtents[0].sourceId).offsetNs;
    return storeNs + offset - originNs;
}

SourceAlignment TimelineModel::alignmentOf(int64_t sourceId) const {
    for (const SourceAlignment& a : alignments)
        if (a.sourceId == sourceId) return a;
    SourceAlignment none;
    none.sourceId = sourceId;
    return none;
}

size_t SliceLevel::firstEndingAtOrAfter(int64_t t) const {
    // Ends are sorted because slices in a level do not overlap.
    size_t lo = 0, hi = ts.size();
    while (lo < hi) {
        const size_t mid = lo + (hi - lo) / 2;
        if (end(mid) < t)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

size_t SliceLevel::firstStartingAtOrAfter(int64_t t) const {
    return static_cast<size_t>(std::lower_bound(ts.begin(), ts.end(), t) - ts.begin());
}

void SliceLevel::buildSummary() {
    const size_t n = ts.size();
    smallMax.assign((n + kSmallBlock - 1) / kSmallBlock, 0);
    bigMax.assign((n + kBigBlock - 1) / kBigBlock, 0);
    for (size_t i = 0; i < n; ++i) {
        const int64_t key = std::max(dur[i], i ? ts[i] - end(i - 1) : dur[i]);
        smallMax[i / kSmallBlock] = std::max(smallMax[i / kSmallBlock], key);
        bigMax[i / kBigBlock] = std::max(bigMax[i / kBigBlock], key);
    }
}

const std::string& TimelineModel::nameOf(uint32_t id) const {
    static const std::string kEmpty;
    return id < strings.size() ? strings[id] : kEmpty;
}

SliceRef TimelineModel::find(int64_t id) const {
    for (size_t t = 0; t < tracks.size(); ++t) {
        const auto& levels = tracks[t].levels;
        for (size_t l = 0; l < levels.size(); ++l) {
            const auto& ids = levels[l].sliceId;
            for (size_t i = 0; i < ids.size(); ++i)
                if (ids[i] == id)
                    return {static_cast<int>(t), static_cast<int>(l), static_cast<int64_t>(i)};
        }
    }
    return {};
}

int64_t TimelineModel::selfTime(const SliceRef& r) const {
    const TimelineTrack& track = tracks[r.track];
    const SliceLevel& lv = track.levels[r.level];
    const int64_t start = lv.ts[r.index];
    const int64_t end = lv.end(r.index);
    int64_t children = 0;
    for (const SliceLevel& child : track.levels) {
        if (child.depth != lv.depth + 1) continue;
        for (size_t i = child.firstStartingAtOrAfter(start); i < child.size() && child.ts[i] < end;
             ++i)
            children += std::min(child.end(i), end) - child.ts[i];
    }
    return std::max<int64_t>(0, lv.dur[r.index] - children);
}

std::pair<size_t, size_t> TimelineModel::flowsIn(double t0, double t1) const {
    auto at = [&](double t) {
        return static_cast<size_t>(
            std::lower_bound(flowLo.begin(), flowLo.end(), t,
                             [](int64_t lo, double v) { return static_cast<double>(lo) < v; }) -
            flowLo.begin());
    };
    const size_t first = at(t0 - static_cast<double>(maxFlowSpan));
    auto last =
        std::upper_bound(flowLo.begin() + static_cast<std::ptrdiff_t>(first), flowLo.end(), t1,
                         [](double v, int64_t lo) { return v < static_cast<double>(lo); });
    return {first, static_cast<size_t>(last - flowLo.begin())};
}

size_t TimelineModel::memoryBytes() const {
    size_t bytes = 0;
    for (const auto& t : tracks) {
        for (const auto& l : t.levels)
            bytes += l.ts.capacity() * 8 + l.dur.capacity() * 8 + l.name.capacity() * 4 +
                     l.sliceId.capacity() * 8 + (l.smallMax.capacity() + l.bigMax.capacity()) * 8;
        bytes += t.counter.ts.capacity() * 16 + t.instants.ts.capacity() * 12;
    }
    for (const auto& s : strings) bytes += s.capacity() + sizeof(std::string);
    return bytes;
}

}  // namespace ts::timeline
