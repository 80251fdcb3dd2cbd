#include "core/analysis/diff/diff_side.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <unordered_map>

#include "core/common/text.h"
#include "core/store/trace_store.h"
#include "core/timeline/op_stats.h"

namespace ts::analysis {
namespace {

/// Host ops, and the runtime and driver calls they make (a cudaStreamSynchronize that waits
/// for the device is where a host step loses time to it).
bool isHostOpCategory(std::string_view c) {
    const std::string l = asciiLower(c);
    return l == "cpu_op" || l == "operator" || l == "cuda_runtime" || l == "runtime" ||
           l == "cuda_driver" || l == "driver";
}

bool isDeviceOpCategory(std::string_view c) {
    const std::string l = asciiLower(c);
    return l == "kernel" || l == "gpu_memcpy" || l == "memcpy" || l == "gpu_memset" ||
           l == "memset";
}

bool isStructuralName(const std::string& name, const std::string& category) {
    if (profilerStepNumber(name)) return true;
    return category == "phase" || category == "step";
}

/// Which lane the ops of each track belong to: tracks with host op categories are host
/// tracks, tracks of device streams (or holding only kernels and device copies) device ones.
void classifyOps(DiffSide& s) {
    const ProfileData& d = s.data;
    // Per category id: 1 host op category, 2 device op category, 0 neither.
    std::unordered_map<int64_t, uint8_t> kinds;
    auto kindOf = [&](const ProfileSlice& sl) {
        auto it = kinds.find(sl.catId);
        if (it == kinds.end()) {
            const std::string& c = d.category(sl);
            it = kinds.emplace(sl.catId, isHostOpCategory(c)     ? 1
                                         : isDeviceOpCategory(c) ? 2
                                                                 : 0)
                     .first;
        }
        return it->second;
    };
    bool anyOpCategory = false;
    for (const auto& sl : d.slices)
        if (kindOf(sl) != 0) {
            anyOpCategory = true;
            break;
        }
    s.lane.assign(d.slices.size(), OpLane::None);
    for (const auto& t : d.tracks) {
        auto [lo, hi] = d.trackRange(t.id);
        bool host = false, device = t.kind == "gpu_stream";
        for (size_t i = lo; i < hi && !host; ++i) host = kindOf(d.slices[i]) == 1;
        for (size_t i = lo; i < hi && !device && !host; ++i) device = kindOf(d.slices[i]) == 2;
        const OpLane trackLane = device && !host ? OpLane::Device : OpLane::Host;
        for (size_t i = lo; i < hi; ++i) {
            const ProfileSlice& sl = d.slices[i];
            const uint8_t kind = kindOf(sl);
            if (anyOpCategory && kind == 0) continue;
            if (isStructuralName(d.name(sl), d.category(sl))) continue;
            s.lane[i] = trackLane;
        }
    }
}

/// Self time by containment on each track (slices sorted by start, parents first).
void computeSelf(DiffSide& s) {
    const ProfileData& d = s.data;
    s.self.resize(d.slices.size());
    std::vector<size_t> stack;
    for (const auto& t : d.tracks) {
        auto [lo, hi] = d.trackRange(t.id);
        stack.clear();
        for (size_t i = lo; i < hi; ++i) {
            const ProfileSlice& sl = d.slices[i];
            s.self[i] = sl.dur;
            while (!stack.empty() && d.slices[stack.back()].end() <= sl.ts &&
                   !(d.slices[stack.back()].ts == sl.ts && d.slices[stack.back()].dur == 0 &&
                     sl.dur == 0))
                stack.pop_back();
            if (!stack.empty() && sl.end() <= d.slices[stack.back()].end())
                s.self[stack.back()] -= sl.dur;
            stack.push_back(i);
        }
    }
    for (auto& v : s.self) v = std::max<int64_t>(v, 0);
}

std::string stepRange(const StepAnalysis& a) {
    if (a.steps.empty()) return "no ProfilerStep#N slices";
    int64_t lo = a.steps.front().number, hi = lo;
    for (const auto& st : a.steps) lo = std::min(lo, st.number), hi = std::max(hi, st.number);
    return lo == hi ? "step " + std::to_string(lo)
                    : "steps " + std::to_string(lo) + "-" + std::to_string(hi);
}

Status pickScope(DiffSide& s, const DiffSideSpec& spec, const char* which) {
    const auto& steps = s.steps.steps;
    if (spec.step) {
        for (size_t i = 0; i < steps.size(); ++i)
            if (steps[i].number == *spec.step) s.scope.push_back(i);
        if (s.scope.empty())
            return Error{std::string(which) + " has no step " + std::to_string(*spec.step) + " (" +
                         stepRange(s.steps) + ")"};
        s.alignedIndex = static_cast<int32_t>(s.scope.front());
        return {};
    }
    for (size_t i = 0; i < steps.size(); ++i) {
        if (steps[i].warmup && steps.size() > 1) {
            s.info.warmupSkipped = true;
            continue;
        }
        s.scope.push_back(i);
    }
    if (s.scope.empty()) return {};
    // The representative step: the one closest to the median duration (the earliest on ties).
    std::vector<double> durs;
    for (size_t i : s.scope) durs.push_back(static_cast<double>(steps[i].dur));
    const double med = median(durs);
    size_t best = s.scope.front();
    for (size_t i : s.scope)
        if (std::fabs(static_cast<double>(steps[i].dur) - med) <
            std::fabs(static_cast<double>(steps[best].dur) - med))
            best = i;
    s.alignedIndex = static_cast<int32_t>(best);
    return {};
}

/// The step (index into steps.steps) of each op in scope. Host ops by their start; device
/// ops by the start of the host slice that launched them (a flow into them: Kineto's
/// launch -> kernel), since kernels run after their step's host part, else by their start.
Status assignSteps(DiffSide& s, store::TraceStore& st) {
    const ProfileData& d = s.data;
    s.stepOf.assign(d.slices.size(), -1);
    std::vector<size_t> order = s.scope;
    std::sort(order.begin(), order.end(),
              [&](size_t x, size_t y) { return s.steps.steps[x].ts < s.steps.steps[y].ts; });
    auto stepAt = [&](int64_t ts) -> int32_t {
        auto it = std::upper_bound(order.begin(), order.end(), ts,
                                   [&](int64_t t, size_t k) { return t < s.steps.steps[k].ts; });
        if (it == order.begin()) return -1;
        const StepBreakdown& step = s.steps.steps[*(it - 1)];
        return ts < step.ts + step.dur ? static_cast<int32_t>(*(it - 1)) : -1;
    };
    bool any = false;
    std::unordered_map<int64_t, size_t> device;  // slice id -> index
    for (size_t i = 0; i < d.slices.size(); ++i) {
        if (s.lane[i] == OpLane::None) continue;
        const ProfileSlice& sl = d.slices[i];
        s.spanStart = any ? std::min(s.spanStart, sl.ts) : sl.ts;
        s.spanEnd = any ? std::max(s.spanEnd, sl.end()) : sl.end();
        any = true;
        s.stepOf[i] = stepAt(sl.ts);
        if (s.lane[i] == OpLane::Device) device.emplace(sl.id, i);
    }
    if (device.empty() || order.empty()) return {};
    store::Statement q =
        st.db().prepare("SELECT slice_out, slice_in FROM flows WHERE source_id = ?");
    if (!q.ok()) return Error{q.error()};
    q.bind(1, d.sourceId);
    std::vector<std::pair<int64_t, size_t>> launches;  // (launching slice id, device op)
    std::unordered_map<int64_t, int64_t> launchTs;
    while (q.step()) {
        auto it = device.find(q.int64(1));
        if (it == device.end()) continue;
        launches.emplace_back(q.int64(0), it->second);
        launchTs.emplace(q.int64(0), -1);
    }
    if (!q.error().empty()) return Error{q.error()};
    for (const auto& sl : d.slices) {
        auto it = launchTs.find(sl.id);
        if (it != launchTs.end()) it->second = sl.ts;
    }
    for (const auto& [out, i] : launches) {
        const int64_t ts = launchTs[out];
        if (ts >= 0) s.stepOf[i] = stepAt(ts);
    }
    return {};
}

Status readShapes(DiffSide& s, store::TraceStore& st, JobControl* job) {
    const ProfileData& d = s.data;
    s.shape.assign(d.slices.size(), 0);
    std::unordered_map<int64_t, size_t> indexOf;
    std::map<int64_t, std::pair<int64_t, int64_t>> trackSpan;  // track -> [min ts, max ts]
    for (size_t i = 0; i < d.slices.size(); ++i) {
        if (!s.inScope(i)) continue;
        const ProfileSlice& sl = d.slices[i];
        indexOf.emplace(sl.id, i);
        auto [it, fresh] = trackSpan.emplace(sl.trackId, std::make_pair(sl.ts, sl.ts));
        if (!fresh)
            it->second = {std::min(it->second.first, sl.ts), std::max(it->second.second, sl.ts)};
    }
    store::Statement q = st.db().prepare(
        "SELECT id, arg_set_id FROM slices WHERE track_id = ? AND ts >= ? AND ts <= ?");
    store::Statement args = st.db().prepare("SELECT json FROM args WHERE id = ?");
    if (!q.ok()) return Error{q.error()};
    std::unordered_map<int64_t, uint32_t> byArg;
    std::map<std::string, uint32_t> byText{{std::string(), 0u}};
    for (const auto& [track, span] : trackSpan) {
        if (job && job->cancelled()) return Error{"cancelled"};
        q.reset();
        q.bind(1, track);
        q.bind(2, span.first);
        q.bind(3, span.second);
        while (q.step()) {
            auto idx = indexOf.find(q.int64(0));
            if (idx == indexOf.end() || q.isNull(1)) continue;
            const int64_t argId = q.int64(1);
            auto known = byArg.find(argId);
            if (known == byArg.end()) {
                std::string text;
                args.reset();
                args.bind(1, argId);
                if (args.step()) text = timeline::inputShapesOf(args.textView(0));
                auto [t, fresh] = byText.emplace(text, static_cast<uint32_t>(s.shapeTexts.size()));
                if (fresh) s.shapeTexts.push_back(text);
                known = byArg.emplace(argId, t->second).first;
            }
            s.shape[idx->second] = known->second;
        }
        if (!q.error().empty()) return Error{q.error()};
    }
    return {};
}

void fillInfo(DiffSide& s, store::TraceStore& st, const DiffSideSpec& spec) {
    DiffSideInfo& info = s.info;
    info.path = spec.path;
    info.sourceId = s.data.sourceId;
    info.kind = s.data.kind;
    info.step = spec.step;
    info.runId = spec.runId;
    if (auto list = listProfileSources(st))
        for (const auto& p : list.value())
            if (p.id == info.sourceId) info.label = p.label;
    if (!info.runId)
        if (auto runs = st.runs())
            for (const auto& r : runs.value())
                if (r.profileSourceId && *r.profileSourceId == info.sourceId) info.runId = r.id;
    const auto& steps = s.steps.steps;
    info.profileSteps = static_cast<int64_t>(steps.size());
    info.split = s.steps.split;
    double sum = 0;
    for (size_t i : s.scope) {
        info.steps.push_back(steps[i].number);
        sum += static_cast<double>(steps[i].dur);
    }
    info.stepNs = s.scope.empty() ? static_cast<double>(s.spanEnd - s.spanStart)
                                  : sum / static_cast<double>(s.scope.size());
    size_t steady = 0;
    for (const auto& x : steps) steady += x.warmup ? 0 : 1;
    info.spread = steady >= 3 && s.steps.medianNs > 0 ? s.steps.madNs / s.steps.medianNs : 0;
    for (size_t i = 0; i < s.data.slices.size(); ++i) info.opSlices += s.inScope(i) ? 1 : 0;
    if (s.alignedIndex >= 0) {
        const StepBreakdown& a = steps[static_cast<size_t>(s.alignedIndex)];
        info.alignedStep = a.number;
        info.alignedTs = a.ts;
        info.alignedDur = a.dur;
        info.alignedSliceId = a.sliceId;
    } else {
        info.alignedTs = s.spanStart;
        info.alignedDur = s.spanEnd - s.spanStart;
    }
}

}  // namespace

void DiffNames::reserve(size_t n) {
    m_id.reserve(n);
    m_fuzzyOf.reserve(n);
}

uint32_t DiffNames::intern(const std::string& mapped) {
    auto it = m_id.find(mapped);
    if (it != m_id.end()) return it->second;
    const uint32_t id = static_cast<uint32_t>(m_text.size());
    m_text.push_back(mapped);
    m_id.emplace(m_text.back(), id);
    m_buffer = fuzzyName(mapped);
    auto fit = m_fuzzyId.find(m_buffer);
    if (fit == m_fuzzyId.end()) {
        m_fuzzyComm.push_back(isCommunicationName(m_buffer) ? 1 : 0);
        m_fuzzyText.push_back(m_buffer);
        fit = m_fuzzyId.emplace(m_fuzzyText.back(), static_cast<uint32_t>(m_fuzzyText.size() - 1))
                  .first;
    }
    m_fuzzyOf.push_back(fit->second);
    return id;
}

void nameOps(DiffSide& s, const NameMap& map, DiffNames& names) {
    const ProfileData& d = s.data;
    s.opName.assign(d.slices.size(), 0);
    std::unordered_map<int64_t, uint32_t> memo;
    memo.reserve(d.strings.size());
    names.reserve(names.size() + d.strings.size());
    for (size_t i = 0; i < d.slices.size(); ++i) {
        if (s.lane[i] == OpLane::None) continue;
        const int64_t nameId = d.slices[i].nameId;
        auto it = memo.find(nameId);
        if (it == memo.end()) {
            const std::string& raw = d.str(nameId);
            it = memo.emplace(nameId, names.intern(map.empty() ? raw : map.apply(raw))).first;
        }
        s.opName[i] = it->second;
    }
}

Result<DiffSide> loadDiffSide(const DiffSideSpec& spec, const char* which, bool shapes,
                              JobControl* job) {
    const std::string w(which);
    auto st = store::TraceStore::open(spec.path, store::TraceStore::Mode::ReadOnly);
    if (!st) return Error{w + ": " + st.error()};
    store::TraceStore& store = *st.value();
    auto source = resolveProfileSource(store, spec.sourceId, spec.runId);
    if (!source) return Error{w + ": " + source.error()};
    auto data = loadProfile(store, source.value(), job);
    if (!data) return Error{w + ": " + data.error()};
    DiffSide s;
    s.data = std::move(data.value());
    s.steps = analyzeSteps(s.data);
    if (auto p = pickScope(s, spec, which); !p) return Error{p.error()};
    classifyOps(s);
    computeSelf(s);
    if (auto r = assignSteps(s, store); !r) return Error{w + ": " + r.error()};
    if (shapes)
        if (auto r = readShapes(s, store, job); !r) return Error{w + ": " + r.error()};
    fillInfo(s, store, spec);
    if (s.info.opSlices == 0)
        return Error{w + ": the profile (source " + std::to_string(s.info.sourceId) +
                     ") has no op slices" + (spec.step ? " in that step" : "")};
    return s;
}

}  // namespace ts::analysis
