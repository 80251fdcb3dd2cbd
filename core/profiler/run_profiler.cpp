#include "core/profiler/run_profiler.h"

#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <filesystem>
#include <vector>

#include "core/common/json.h"
#include "core/engine/device/device.h"
#include "core/engine/train/trainer.h"
#include "core/profiler/gpu/activity_import.h"
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
    if (trainer.device() != engine::Device::CPU) p->startGpuActivity(trainer.device());
    return p;
}

void RunProfiler::startGpuActivity(engine::Device device) {
    m_backend = &engine::backendOf(device);
    static std::atomic<int> files{0};
    m_activityPath = (std::filesystem::temp_directory_path() /
                      ("trainscope-profile-" + std::to_string(::getpid()) + "-" +
                       std::to_string(files++) + ".tscupti"))
                         .string();
    std::string why;
    if (!m_backend->startActivity(m_activityPath, &why)) {
        m_gpuNote = why;
        m_activityPath.clear();
    }
}

RunProfiler::~RunProfiler() {
    detach();
}

void RunProfiler::detach() {
    if (m_trainer && m_observer) m_trainer->dispatcher().removeObserver(m_observer.get());
    m_trainer = nullptr;
}

void RunProfiler::stopGpuActivity() {
    if (m_activityPath.empty()) return;
    std::string why;
    if (!m_backend->stopActivity(&why)) m_gpuNote = "the CUPTI collector did not stop: " + why;
    auto trace = gpu::readActivityFile(m_activityPath);
    if (trace)
        m_activity = std::make_unique<gpu::ActivityTrace>(std::move(trace.value()));
    else if (m_gpuNote.empty())
        m_gpuNote = trace.error();
    std::error_code ec;
    std::filesystem::remove(m_activityPath, ec);
    m_activityPath.clear();
}

gpu::TraceCounts RunProfiler::writeGpuRows(store::StoreWriter& w, int64_t processRow,
                                           int64_t threadRow) {
    gpu::GpuTraceBuilder builder(w);
    gpu::GpuRows rows(builder);
    ProfileRecorder& rec = m_observer->recorder();
    const int64_t pid = rec.pid(), tid = rec.tid();
    gpu::ActivityImportOptions o;
    o.clock = gpu::HostClock::Monotonic;  // steady_clock, the dispatcher's
    o.toSession = [&rec](int64_t steadyNs) { return rec.fromSteady(steadyNs); };
    o.opAt = [&rec, tid](int64_t t, int64_t ts) { return t == tid ? rec.opAt(ts) : std::string(); };
    o.prepare = [&](gpu::GpuTraceBuilder& b) {
        b.adoptProcess(gpu::processKey(gpu::globalTid(pid, 0)), processRow);
        b.adoptThread(gpu::globalTid(pid, tid), threadRow);
        b.setThreadName(gpu::globalTid(pid, tid), "training thread");  // its CUDA API track
    };
    const int64_t from = m_windowStart, to = m_windowEnd;
    o.keep = [from, to](int64_t start, int64_t end) { return end >= from && start <= to; };
    gpu::writeActivityRows(*m_activity, rows, o,
                           [&](const std::string& key, const std::string& msg, int64_t) {
                               w.logProblem(key, -1, {}, msg);
                           });
    builder.finish();
    return builder.counts();
}

void RunProfiler::writeAsRecorded(const std::string& sessionPath, int64_t runId,
                                  const std::string& label) {
    m_sessionPath = sessionPath;
    m_runId = runId;
    m_label = label;
    m_observer->setOnRecordedStep([this] {
        if (m_stepWriteError.empty())
            if (auto s = writeRecordedStep(); !s) m_stepWriteError = s.error();
    });
}

Status RunProfiler::writeRecordedStep() {
    if (!m_store) {
        auto opened = store::TraceStore::open(m_sessionPath, store::TraceStore::Mode::ReadWrite);
        if (!opened) return Error{opened.error()};
        m_store = std::move(opened.value());
    }
    auto written = m_observer->recorder().flushTo(*m_store, m_runId, m_label);
    if (!written) return Error{written.error()};
    return {};
}

Result<RunProfileOutcome> RunProfiler::finish(const std::string& sessionPath, int64_t runId,
                                              const std::string& label) {
    detach();
    stopGpuActivity();
    RunProfileOutcome out;
    ProfileRecorder& rec = m_observer->recorder();
    out.steps = rec.recordedSteps();
    out.droppedSteps = rec.droppedSteps();
    out.slices = rec.recordedSlices();
    out.flows = rec.recordedFlows();
    out.allocations = rec.recordedAllocations();
    if (out.steps == 0) return out;
    if (!m_store || m_sessionPath != sessionPath) {
        auto opened = store::TraceStore::open(sessionPath, store::TraceStore::Mode::ReadWrite);
        if (!opened) return Error{opened.error()};
        m_store = std::move(opened.value());
    }
    ProfileRecorder::ExtraRows gpuRows;
    if (m_activity) {
        m_windowStart = rec.firstTs();
        m_windowEnd = rec.lastTs();
        gpuRows = [this, &out](store::StoreWriter& w, int64_t proc, int64_t thread) {
            gpu::TraceCounts c = writeGpuRows(w, proc, thread);
            out.gpuSlices = c.slices + c.asyncSlices;
            return c;
        };
    }
    auto src = rec.writeTo(*m_store, runId, label, gpuRows);
    m_store.reset();
    if (!src) return Error{"could not write the profile: " + src.error()};
    out.sourceId = src.value();
    out.gpuNote = m_gpuNote;
    return out;
}

RunProfileOutcome RunProfiler::finishRun(const std::string& sessionPath, int64_t runId,
                                         const std::string& model,
                                         std::vector<std::string>& warnings) {
    auto r = finish(sessionPath, runId, runLabel(runId, model));
    if (!m_stepWriteError.empty())
        warnings.push_back("profile: steps not written as they ended: " + m_stepWriteError);
    if (!r) {
        warnings.push_back("profile not saved: " + r.error());
        return {};
    }
    const RunProfileOutcome& o = r.value();
    if (o.steps == 0)
        warnings.push_back("profile empty: the run ended before the schedule's first active step");
    if (!o.gpuNote.empty())
        warnings.push_back("profile: no GPU activity (kernels) in it: " + o.gpuNote);
    if (o.droppedSteps > 0)
        warnings.push_back("profile: " + std::to_string(o.droppedSteps) +
                           " step(s) of the window not recorded (event cap reached); "
                           "choose a shorter schedule");
    return o;
}

std::string RunProfiler::runLabel(int64_t runId, const std::string& model) {
    return "run " + std::to_string(runId) + " profile (" + model + ")";
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
    j += ",\"gpu_slices\":" + std::to_string(o.gpuSlices);
    j += ",\"schedule\":" + json::quote(scheduleText(options.schedule));
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
