#include "core/analysis/profile_report.h"

#include "core/store/trace_store.h"

namespace ts::analysis {

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
    r.ops = opSelfTimes(data.value(), r.steps);
    r.advice = computeAdvice(data.value(), r.steps);
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
