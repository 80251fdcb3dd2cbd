#include "core/analysis/diff/memory_diff.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "core/analysis/profile/memory_analysis.h"
#include "core/analysis/profile/profile_data.h"
#include "core/memory/op_memory.h"
#include "core/memory/snapshot.h"
#include "core/store/trace_store.h"

namespace ts::memory {

namespace {

struct Side {
    MemoryDiffSide info;
    OpMemory ops;
};

Result<Side> loadSide(const analysis::DiffSideSpec& spec, JobControl* job) {
    auto st = store::TraceStore::open(spec.path, store::TraceStore::Mode::ReadOnly);
    if (!st) return Error{st.error()};
    store::TraceStore& s = *st.value();
    auto id = analysis::resolveProfileSource(s, spec.sourceId, spec.runId);
    if (!id) return Error{id.error()};
    Side side;
    side.info.sourceId = id.value();
    if (auto list = analysis::listProfileSources(s))
        for (const auto& p : list.value())
            if (p.id == id.value()) {
                side.info.label = p.label;
                side.info.steps = p.steps;
            }
    auto m = analysis::analyzeMemory(s, id.value(), 10, job);
    if (!m) return Error{m.error()};
    side.info.origin = m->origin;
    side.info.peakBytes = m->peakBytes;
    side.info.poolPeakBytes = m->poolPeakBytes;
    side.info.liveAtPeak = m->liveAtPeakCount;
    auto ops = analyzeOpMemory(s, id.value(), job);
    if (!ops) return Error{ops.error()};
    side.ops = std::move(ops.value());
    if (side.info.origin.empty()) side.info.origin = side.ops.origin;
    return side;
}

}  // namespace

Result<MemoryDiff> diffMemory(const analysis::DiffSideSpec& a, const analysis::DiffSideSpec& b,
                              bool byShape, JobControl* job) {
    auto sa = loadSide(a, job);
    if (!sa) return Error{"A: " + sa.error()};
    auto sb = loadSide(b, job);
    if (!sb) return Error{"B: " + sb.error()};
    MemoryDiff d;
    d.a = sa->info;
    d.b = sb->info;
    d.perStep = d.a.steps > 0 && d.b.steps > 0;
    std::map<std::pair<std::string, std::string>, OpMemoryDiffRow> rows;
    const Side* sides[2] = {&sa.value(), &sb.value()};
    for (int k = 0; k < 2; ++k) {
        const double per = d.perStep ? static_cast<double>(sides[k]->info.steps) : 1.0;
        for (const OpMemoryRow& r : byShape ? sides[k]->ops.byOpAndShape : sides[k]->ops.byOp) {
            OpMemoryDiffRow& x = rows[{r.op, r.shapes}];
            x.op = r.op;
            x.shapes = r.shapes;
            x.allocated[k] = static_cast<double>(r.allocated) / per;
            x.net[k] = static_cast<double>(r.net()) / per;
            x.allocations[k] = static_cast<double>(r.allocations) / per;
        }
    }
    for (auto& [key, r] : rows) d.ops.push_back(r);
    std::stable_sort(d.ops.begin(), d.ops.end(),
                     [](const OpMemoryDiffRow& x, const OpMemoryDiffRow& y) {
                         return std::abs(x.delta()) > std::abs(y.delta());
                     });
    if (d.a.origin.empty() && d.b.origin.empty()) {
        d.explains =
            "Neither profile has memory data (record with profile_memory=True, or "
            "import a memory snapshot).";
    } else {
        const double change = d.b.peakBytes - d.a.peakBytes;
        d.explains = "Peak memory " + sizeText(static_cast<int64_t>(d.a.peakBytes)) + " -> " +
                     sizeText(static_cast<int64_t>(d.b.peakBytes)) + " (" +
                     (change >= 0 ? "+" : "") + sizeText(static_cast<int64_t>(change)) + ")";
        if (!d.ops.empty() && std::abs(d.ops.front().delta()) > 0)
            d.explains += "; the op whose allocations changed most: " + d.ops.front().op + " (" +
                          (d.ops.front().delta() >= 0 ? "+" : "") +
                          sizeText(static_cast<int64_t>(d.ops.front().delta())) +
                          (d.perStep ? " a step)" : ")");
        d.explains += ".";
    }
    return d;
}

}  // namespace ts::memory
