#include "core/profiler/run_profiler.h"

#include <cstdlib>
#include <vector>

#include "core/engine/trainer.h"
#include "core/profiler/profiler_observer.h"

namespace ts::profiler {

std::unique_ptr<RunProfiler> RunProfiler::attach(engine::Trainer& trainer,
                                                 const ProfilerOptions& options) {
    std::unique_ptr<RunProfiler> p(new RunProfiler());
    p->m_trainer = &trainer;
    p->m_observer = std::make_unique<ProfilerObserver>(options, &trainer.memoryPool(),
                                                       trainer.config().batchSize);
    if (options.profileMemory) {
        auto resident = [&](const engine::Tensor& t, const char* origin, const std::string& name) {
            if (!t.defined() || !t.raw()) return;
            p->m_observer->addResident(
                t.raw(), static_cast<int64_t>(engine::MemoryPool::roundSize(t.nbytes())), origin,
                name, t.shape());
        };
        if (engine::Cell* net = trainer.network())
            for (const auto& np : net->parameters()) resident(np.tensor, "(parameter)", np.name);
        if (engine::Optimizer* opt = trainer.optimizer())
            for (const auto& [tag, t] : opt->state()) resident(t, "(optimizer state)", tag);
        if (engine::DataPipeline* data = trainer.trainData())
            for (const auto& c : data->source().columns())
                resident(c.data, "(dataset)", "train." + c.name);
    }
    trainer.dispatcher().addObserver(p->m_observer.get());
    return p;
}

RunProfiler::~RunProfiler() {
    detach();
}

void RunProfiler::detach() {
    if (m_trainer && m_observer) m_trainer->dispatcher().removeObserver(m_observer.get());
    m_trainer = nullptr;
}

Result<RunProfileOutcome> RunProfiler::finish(const std::string& sessionPath, int64_t runId,
                                              const std::string& label) {
    detach();
    RunProfileOutcome out;
    ProfileRecorder& rec = m_observer->recorder();
    out.steps = rec.recordedSteps();
    out.droppedSteps = rec.droppedSteps();
    out.slices = rec.recordedSlices();
    out.flows = rec.recordedFlows();
    out.allocations = rec.recordedAllocations();
    if (out.steps == 0) return out;
    auto store = store::TraceStore::open(sessionPath, store::TraceStore::Mode::ReadWrite);
    if (!store) return Error{store.error()};
    auto src = rec.writeTo(*store.value(), runId, label);
    if (!src) return Error{"could not write the profile: " + src.error()};
    out.sourceId = src.value();
    return out;
}

RunProfileOutcome RunProfiler::finishRun(const std::string& sessionPath, int64_t runId,
                                         const std::string& model,
                                         std::vector<std::string>& warnings) {
    std::string label = "run " + std::to_string(runId);
    label += " profile (";
    label += model;
    label += ')';
    auto r = finish(sessionPath, runId, label);
    if (!r) {
        warnings.push_back("profile not saved: " + r.error());
        return {};
    }
    const RunProfileOutcome& o = r.value();
    if (o.steps == 0)
        warnings.push_back("profile empty: the run ended before the schedule's first active step");
    if (o.droppedSteps > 0)
        warnings.push_back("profile: " + std::to_string(o.droppedSteps) +
                           " step(s) of the window not recorded (event cap reached); "
                           "choose a shorter schedule");
    return o;
}

ProfilerOptions defaultRunProfilerOptions() {
    ProfilerOptions o;
    o.schedule.wait = 0;
    o.schedule.warmup = 0;
    o.schedule.active = 20;
    o.schedule.repeat = 1;
    return o;
}

std::string outcomeJson(const RunProfileOutcome& o, const ProfilerOptions& options) {
    std::string j = "{\"source_id\":" + std::to_string(o.sourceId);
    j += ",\"steps\":" + std::to_string(o.steps);
    j += ",\"dropped_steps\":" + std::to_string(o.droppedSteps);
    j += ",\"slices\":" + std::to_string(o.slices);
    j += ",\"flows\":" + std::to_string(o.flows);
    j += ",\"allocations\":" + std::to_string(o.allocations);
    j += ",\"schedule\":\"" + scheduleText(options.schedule) + "\"";
    j += options.recordShapes ? ",\"record_shapes\":true" : ",\"record_shapes\":false";
    j += options.profileMemory ? ",\"profile_memory\":true}" : ",\"profile_memory\":false}";
    return j;
}

bool parseScheduleText(const std::string& text, ProfileSchedule* out, std::string* error) {
    auto fail = [&](const std::string& why) {
        if (error) *error = why;
        return false;
    };
    ProfileSchedule s;
    if (text.find('=') != std::string::npos) {
        if (!s.parse(text.c_str()))
            return fail("bad schedule '" + text +
                        "': expected wait=N,warmup=N,active=N,repeat=N[,skip_first=N] with "
                        "active >= 1");
    } else {
        std::vector<int64_t> v;
        size_t pos = 0;
        while (pos <= text.size()) {
            size_t end = text.find(',', pos);
            if (end == std::string::npos) end = text.size();
            const std::string item = text.substr(pos, end - pos);
            char* stop = nullptr;
            const long long n = std::strtoll(item.c_str(), &stop, 10);
            if (item.empty() || *stop != '\0' || n < 0)
                return fail("bad schedule '" + text + "': '" + item +
                            "' is not a whole number >= 0");
            v.push_back(n);
            pos = end + 1;
        }
        if (v.size() != 4 && v.size() != 5)
            return fail("bad schedule '" + text +
                        "': expected wait,warmup,active,repeat[,skip_first] (4 or 5 numbers)");
        s.wait = v[0];
        s.warmup = v[1];
        s.active = v[2];
        s.repeat = v[3];
        s.skipFirst = v.size() == 5 ? v[4] : 0;
        if (s.active < 1) return fail("bad schedule '" + text + "': active must be >= 1");
    }
    *out = s;
    return true;
}

std::string scheduleText(const ProfileSchedule& s) {
    std::string t = "wait=" + std::to_string(s.wait);
    t += ",warmup=" + std::to_string(s.warmup);
    t += ",active=" + std::to_string(s.active);
    t += ",repeat=" + std::to_string(s.repeat);
    if (s.skipFirst) t += ",skip_first=" + std::to_string(s.skipFirst);
    return t;
}

}  // namespace ts::profiler
