#include "core/analysis/profile/profile_report.h"

#include "core/store/trace_store.h"
#include "core/timeline/op_stats.h"
#include "core/timeline/time_axis.h"

namespace ts::analysis {

namespace {

/// "input shapes #k" figures: the costliest input shapes of `op` (op statistics grouped by
/// input shape, like group_by_input_shape), up to three.
Result<std::vector<std::pair<std::string, std::string>>> shapeFigures(store::TraceStore& store,
                                                                      int64_t sourceId,
                                                                      const std::string& op,
                                                                      JobControl* job) {
    timeline::OpStatsOptions o;
    o.sourceId = sourceId;
    o.groupByInputShape = true;
    auto stats = timeline::computeOpStats(store, o, job);
    if (!stats) return Error{stats.error()};
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& row : stats.value().rows) {
        if (row.name != op || row.inputShapes.empty()) continue;
        std::string v = row.inputShapes;
        v += ": ";
        v += timeline::formatDuration(static_cast<double>(row.selfNs));
        v += " self in ";
        v += std::to_string(row.calls);
        v += " calls";
        out.emplace_back("input shapes #" + std::to_string(out.size() + 1), std::move(v));
        if (out.size() == 3) break;
    }
    return out;
}

/// The op bottleneck says "with the shapes below", and the overview names the costliest op:
/// both get that op's costliest input shapes.
Status addShapeFigures(store::TraceStore& store, ProfileReport& r, JobControl* job) {
    auto add = [&](AdviceFinding& f, const std::string& op) -> Status {
        auto figs = shapeFigures(store, r.sourceId, op, job);
        if (!figs) return Error{figs.error()};
        f.figures.insert(f.figures.begin() + 1, figs.value().begin(), figs.value().end());
        return Status::success();
    };
    for (AdviceFinding& f : r.advice)
        if (f.kind == AdviceKind::OpBottleneck && !f.figures.empty())
            if (auto s = add(f, f.figures.front().second); !s) return s;
    // The host overview names an op; the GPU one names a kernel (its shapes are its op's).
    if (r.overview && !r.ops.empty() && !r.gpu)
        if (auto s = add(*r.overview, r.ops.front().name); !s) return s;
    return Status::success();
}

}  // namespace

Result<ProfileReport> analyzeProfile(store::TraceStore& store, std::optional<int64_t> sourceId,
                                     std::optional<int64_t> runId, JobControl* job) {
    ProfileReport r;
    auto sources = listProfileSources(store);
    if (!sources) return Error{sources.error()};
    r.sources = std::move(sources).value();
    auto id = resolveProfileSource(store, sourceId, runId);
    if (!id) return Error{id.error()};
    r.sourceId = id.value();
    for (const auto& s : r.sources)
        if (s.id == r.sourceId) r.sourceLabel = s.label;
    auto data = loadProfile(store, r.sourceId, job);
    if (!data) return Error{data.error()};
    if (job && job->cancelled()) return Error{"cancelled"};
    r.steps = analyzeSteps(data.value());
    auto gpuTrace = gpu::loadGpuTrace(store, r.sourceId, job);
    if (!gpuTrace) return Error{gpuTrace.error()};
    if (gpuTrace.value().hasGpuWork()) {
        r.gpu = gpu::analyzeGpu(gpuTrace.value());
        attachDeviceSide(r.steps, r.gpu->overview);
    }
    r.device = adviceDevice(gpuTrace.value());
    auto ascend = gpu::loadAscendTables(store);
    if (!ascend) return Error{ascend.error()};
    if (!ascend.value().empty()) {
        r.ascend = std::move(ascend).value();
        if (r.device == "cpu") r.device = "ascend";
    }
    r.ops = opSelfTimes(data.value(), r.steps);
    r.advice = computeAdvice(data.value(), r.steps, r.gpu ? &*r.gpu : nullptr, r.device);
    r.overview = costOverview(data.value(), r.steps, r.gpu ? &*r.gpu : nullptr);
    if (auto s = addShapeFigures(store, r, job); !s) return Error{s.error()};
    auto memory = analyzeMemory(store, r.sourceId, 10, job);
    if (!memory) return Error{memory.error()};
    r.memory = std::move(memory).value();
    return r;
}

Result<ProfileReport> analyzeProfile(const std::string& path, std::optional<int64_t> sourceId,
                                     std::optional<int64_t> runId, JobControl* job) {
    auto store = store::TraceStore::open(path, store::TraceStore::Mode::ReadOnly);
    if (!store) return Error{store.error()};
    return analyzeProfile(*store.value(), sourceId, runId, job);
}

}  // namespace ts::analysis
