#include "core/run/training_job.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <thread>

#include "core/common/json.h"
#include "core/common/json_read.h"
#include "core/debug/debug_job.h"
#include "core/debug/rdr/rdr_run.h"
#include "core/dist/process_group.h"
#include "core/engine/device/device.h"
#include "core/engine/train/callbacks.h"
#include "core/engine/train/run_recorder.h"
#include "core/log/logger.h"
#include "core/log_store/run_log_capture.h"

namespace ts::run {

TrainingJob::TrainingJob(JobOptions options)
    : m_options(std::move(options)),
      m_trainer(std::make_unique<engine::Trainer>(m_options.train)) {}

TrainingJob::~TrainingJob() = default;

std::string TrainingJob::rdrExportDir() const {
    return m_rdr && m_rdr->exported() ? m_rdr->exportDir() : std::string();
}

int64_t TrainingJob::runId() const {
    return m_recorder ? m_recorder->runId() : 0;
}

std::string TrainingJob::checkpointDir() const {
    return m_checkpointDir;
}

std::vector<std::string> TrainingJob::checkpoints() const {
    if (!m_checkpoint) return {};
    return {m_checkpoint->saved().begin(), m_checkpoint->saved().end()};
}

namespace {

// <folder>/rank_<rank>.tscope: every rank records its own session (no writer shares a file).
std::string rankSessionPath(const std::string& folder, int rank) {
    std::filesystem::path p(folder);
    if (p.extension() == ".tscope") p.replace_extension("");  // "-o run.tscope": folder run/
    return (p / ("rank_" + std::to_string(rank) + ".tscope")).string();
}

}  // namespace

Status TrainingJob::joinWorld() {
    if (!m_options.joinWorldFromEnvironment) return {};
    auto cfg = dist::distConfigFromEnv(dist::processEnvironment());
    if (!cfg) return Error{cfg.error()};
    if (!cfg->distributed()) return {};
    JobOptions& o = m_options;
    o.sessionPath = rankSessionPath(o.sessionPath, cfg->rank);
    std::error_code ec;
    std::filesystem::create_directories(std::filesystem::path(o.sessionPath).parent_path(), ec);
    if (ec)
        return Error{"cannot create the ranks' folder for " + o.sessionPath + ": " + ec.message()};
    // Dumps: each rank into a folder of its own (<dump_path>/rank_<r>), as MindSpore does.
    const std::string rankDir = "rank_" + std::to_string(cfg->rank);
    if (!o.dumpConfigJson.empty() || !o.dumpConfig.empty()) {
        std::string text = o.dumpConfigJson;
        if (text.empty()) {
            std::ifstream in(o.dumpConfig);
            if (!in) return Error{"--dump: cannot read '" + o.dumpConfig + "'"};
            std::stringstream ss;
            ss << in.rdbuf();
            text = ss.str();
        }
        rapidjson::Document d;
        if (json::parse(d, text) && d.IsObject()) {
            rapidjson::Value& fields = d.HasMember("dump") && d["dump"].IsObject() ? d["dump"] : d;
            std::string path = fields.HasMember("dump_path") && fields["dump_path"].IsString()
                                   ? fields["dump_path"].GetString()
                                   : "./dump";
            if (path.size() > 3 && path.ends_with(".h5")) {
                const std::filesystem::path p(path);
                path = (p.parent_path() / rankDir / p.filename()).string();
            } else {
                path = (std::filesystem::path(path) / rankDir).string();
            }
            fields.RemoveMember("dump_path");
            fields.AddMember("dump_path", rapidjson::Value(path.c_str(), d.GetAllocator()),
                             d.GetAllocator());
            rapidjson::StringBuffer buf;
            rapidjson::Writer<rapidjson::StringBuffer> w(buf);
            d.Accept(w);
            o.dumpConfigJson = buf.GetString();
        }
    }
    if (!o.overflowDumpDir.empty())
        o.overflowDumpDir = (std::filesystem::path(o.overflowDumpDir) / rankDir).string();
    if (cfg->rank != 0) {  // checkpoints once, by rank 0 (every rank holds the same model)
        o.checkpointDir.clear();
        o.saveOnStop = false;
        o.saveBestMetric.clear();
        o.tensorboardDir.clear();
    }
    o.runName = (o.runName.empty() ? o.train.model + " on " + o.train.dataset : o.runName) +
                " (rank " + std::to_string(cfg->rank) + " of " + std::to_string(cfg->worldSize) +
                ")";
    // The crash recorder's folder is rank_<RANK_ID>: the same rank as the job's.
    ::setenv("RANK_ID", std::to_string(cfg->rank).c_str(), 1);
    if (o.train.threads == 0) {
        // The ranks of this host share its cores: each gets its part for intra-op threads.
        int local = cfg->worldSize;
        if (const char* l = std::getenv("LOCAL_WORLD_SIZE")) local = std::max(1, std::atoi(l));
        const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
        o.train.threads = std::max(1, cores / local);
        m_trainer->setThreads(o.train.threads);
    }
    // What every rank of the job must train alike (not paths or threads, which may differ
    // per host): the rendezvous refuses a rank of another job (core/dist/tcp_store.h).
    const engine::TrainConfig& t = o.train;
    char lr[32];
    std::snprintf(lr, sizeof lr, "%.9g", t.lr);
    cfg->signature = t.model + " on " + t.dataset + ", batch " + std::to_string(t.batchSize) +
                     ", " + std::to_string(t.epochs) + " epochs, " + t.optimizer + " lr " + lr +
                     ", seed " + std::to_string(t.seed) + ", steps " +
                     std::to_string(t.limitSteps) + ", amp " + t.amp;
    TS_LOG(ENGINE, INFO) << "joining " << cfg->describe();
    auto group = dist::connectProcessGroup(cfg.value());
    if (!group) return Error{group.error()};
    m_group = std::move(group.value());
    m_trainer->setDataParallel(m_group.get());
    o.train = m_trainer->config();
    return {};
}

Status TrainingJob::prepare() {
    if (m_prepared) return Status::success();
    const JobOptions& o = m_options;
    if (o.sessionPath.empty())
        return Error{"no session file given: the run must be recorded in a session (-o SESSION)"};
    if (!m_group)
        if (auto s = joinWorld(); !s) return s;
    if (!o.saveBestMetric.empty() && (o.checkpointDir.empty() || !o.train.evalEachEpoch))
        return Error{
            "saving the best checkpoint needs a checkpoint folder and evaluation "
            "after every epoch"};
    // Log capture (issue 6): from here on, the run's records reach its session.
    if (o.logsToSession && !m_logCapture) m_logCapture = log::RunLogCapture::start();
    if (auto s = m_trainer->prepare(); !s) return s;
    // Crash recorder (issue 6): a bad RDR config stops here, before the run is recorded.
    rdr::RdrRunOptions rdrOptions;
    rdrOptions.configPath = o.rdrConfigPath;
    rdrOptions.configText = o.rdrConfigJson;
    rdrOptions.useEnvironment = o.rdrUseEnvironment;
    auto rdr = rdr::RdrRun::attach(rdrOptions, *m_trainer);
    if (!rdr) return Error{rdr.error()};
    m_rdr = std::move(rdr.value());
    const std::string name =
        o.runName.empty() ? o.train.model + " on " + o.train.dataset : o.runName;
    auto rec = engine::RunRecorder::open(o.sessionPath, name, o.train.toJson());
    if (!rec) return Error{rec.error()};
    m_recorder = std::move(rec.value());

    engine::Trainer& t = *m_trainer;
    t.addCallback(std::make_shared<engine::LossMonitor>(o.print ? o.printEvery : 0, o.print));
    t.addCallback(std::make_shared<engine::SummaryCollector>(m_recorder.get(), o.tensorboardDir));
    if (!o.checkpointDir.empty() || o.saveOnStop) {
        m_checkpointDir = o.checkpointDir;
        if (m_checkpointDir.empty()) {
            std::string base = o.sessionPath;
            if (const size_t dot = base.rfind('.');
                dot != std::string::npos && base.find('/', dot) == std::string::npos)
                base.resize(dot);
            m_checkpointDir = base + "-checkpoints/run-" + std::to_string(runId());
        }
        const bool scheduled = !o.checkpointDir.empty();
        m_checkpoint = std::make_shared<engine::ModelCheckpoint>(
            m_checkpointDir, "checkpoint_" + o.train.model, scheduled ? o.saveSteps : 0,
            scheduled ? o.saveEpochs : 0, o.keepCheckpoints);
        t.addCallback(m_checkpoint);
    }
    if (!o.saveBestMetric.empty())
        t.addCallback(std::make_shared<engine::SaveBestCheckpoint>(
            o.checkpointDir, o.saveBestMetric, o.saveBestMetric == "loss"));
    if (o.earlyStop)
        t.addCallback(std::make_shared<engine::EarlyStop>(o.earlyStopMonitor, o.earlyStopPatience,
                                                          o.earlyStopMinDelta,
                                                          o.earlyStopLossThreshold));
    if (o.stopAfterSeconds > 0)
        t.addCallback(std::make_shared<engine::StopAtTime>(o.stopAfterSeconds));
    // Dumps and overflow checks (core/debug/debug_job.h).
    debug::DebugJobOptions dbg{o.dumpConfig, o.dumpConfigJson, o.overflowCheck, o.stopOnOverflow,
                               o.overflowDumpDir};
    auto attached = debug::DebugJob::attach(dbg, t, o.sessionPath, runId());
    if (!attached) return Error{attached.error()};
    m_debug = std::move(attached.value());
    if (o.profile) {
        if (o.profiler.schedule.active < 1)
            return Error{"profile schedule: active must be at least 1 step"};
        m_profiler = profiler::RunProfiler::attach(t, o.profiler);
        // Each profiled step goes into the session as it ends: a killed run keeps them.
        m_profiler->writeAsRecorded(o.sessionPath, runId(),
                                    profiler::RunProfiler::runLabel(runId(), o.train.model));
    }
    if (m_logCapture) {
        if (auto s = m_logCapture->attach(o.sessionPath, m_recorder->runId()); !s) return s;
    }
    m_prepared = true;
    return Status::success();
}

engine::TrainResult TrainingJob::run() {
    if (auto s = prepare(); !s) {
        engine::TrainResult r;
        r.status = "failed";
        r.reason = s.error();
        return r;
    }
    engine::TrainResult r = m_trainer->run();
    if (m_debug) m_debug->finish(r);
    if (m_profiler) {  // the profile goes in before the run is marked finished
        m_profileOutcome = m_profiler->finishRun(m_options.sessionPath, runId(),
                                                 m_options.train.model, r.warnings);
        m_profiler.reset();
    }
    if (m_rdr) m_rdr->finish(r);
    if (m_logCapture) m_logCapture->flush();
    if (auto s = m_recorder->finish(r.status, r.reason, summaryJson(r)); !s)
        r.warnings.push_back("could not record the run's end: " + s.error());
    return r;
}

std::string TrainingJob::summaryJson(const engine::TrainResult& r) const {
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    w.StartObject();
    json::kv(w, "status", r.status);
    json::kv(w, "reason", r.reason);
    json::kv(w, "epochs", r.epochs);
    json::kv(w, "steps", r.steps);
    json::kv(w, "samples_per_s", r.samplesPerS);
    json::kv(w, "train_seconds", r.trainSeconds);
    w.Key("final");
    w.StartObject();
    json::kv(w, "loss", r.finalLoss);
    w.EndObject();
    w.Key("eval");
    w.StartObject();
    for (const char* k : {"accuracy", "loss", "precision", "recall", "f1"}) {
        w.Key(k);
        auto it = r.eval.find(k);
        if (it == r.eval.end())
            w.Null();
        else
            json::finiteOrNull(w, it->second);
    }
    w.EndObject();
    json::kv(w, "run_id", runId());
    if (worldSize() > 1) {
        json::kv(w, "world_size", worldSize());
        json::kv(w, "rank", rank());
    }
    json::kv(w, "rdr_export", rdrExportDir());
    json::kv(w, "overflow_steps", r.overflowSteps);
    if (m_debug) {  // "dump" / "overflow" objects (core/debug/debug_job.h)
        rapidjson::Document d;
        if (json::parse(d, m_debug->summaryJson()) && d.IsObject())
            for (auto it = d.MemberBegin(); it != d.MemberEnd(); ++it) {
                w.Key(it->name.GetString());
                it->value.Accept(w);
            }
    }
    w.Key("memory");
    w.StartObject();
    json::kv(w, "peak_bytes", r.peakBytes);
    json::kv(w, "reserved_bytes", r.reservedBytes);
    w.EndObject();
    // Where it ran: "cpu", or "cuda" and the device (docs/GPU.md).
    const engine::Device dev = m_trainer ? m_trainer->device() : engine::Device::CPU;
    json::kv(w, "device", engine::deviceName(dev));
    if (dev != engine::Device::CPU) {
        if (auto b = engine::cudaBackend(); b) json::kv(w, "device_name", b.value()->deviceName());
        // How the step ran there (engine::DeviceRunStats; docs/GPU.md).
        const engine::DeviceRunStats& st = r.device;
        w.Key("device_run");
        w.StartObject();
        w.Key("data_on_device");
        w.Bool(st.deviceData);
        if (!st.deviceData) json::kv(w, "data_reason", st.hostDataReason);
        w.Key("cuda_graph");
        w.Bool(st.graph);
        if (!st.graph) json::kv(w, "cuda_graph_reason", st.graphReason);
        json::kv(w, "graph_steps", st.graphSteps);
        w.Key("late_step_ends");
        w.Bool(st.lateStepEnds);
        json::kv(w, "counted_steps", st.steps);
        json::kv(w, "enqueued_per_step", st.enqueuedPerStep);
        json::kv(w, "allocations", st.allocations);
        json::kv(w, "host_waits", st.hostWaits);
        json::kv(w, "readbacks", st.readbacks);
        json::kv(w, "samples_per_s_after_warmup", st.samplesPerSAfterWarmup);
        w.EndObject();
    }
    int classes = 0;
    while (r.eval.count("precision/" + std::to_string(classes))) ++classes;
    w.Key("per_class");
    w.StartObject();
    for (const char* k : {"precision", "recall", "f1"}) {
        w.Key(k);
        w.StartArray();
        for (int c = 0; c < classes; ++c)
            json::finiteOrNull(w, r.eval.at(std::string(k) + "/" + std::to_string(c)));
        w.EndArray();
    }
    w.EndObject();
    w.Key("confusion_matrix");
    w.StartArray();
    for (int t = 0; t < classes; ++t) {
        w.StartArray();
        for (int p = 0; p < classes; ++p) {
            auto it =
                r.eval.find("confusion_matrix/" + std::to_string(t) + "/" + std::to_string(p));
            w.Int64(it == r.eval.end() ? 0 : static_cast<int64_t>(it->second));
        }
        w.EndArray();
    }
    w.EndArray();
    w.Key("checkpoints");
    w.StartArray();
    for (const std::string& c : checkpoints()) w.String(c.c_str());
    w.EndArray();
    w.Key("warnings");
    w.StartArray();
    for (const std::string& s : r.warnings) w.String(s.c_str());
    w.EndArray();
    w.Key("profile");
    if (!m_options.profile) {
        w.Null();
    } else {
        const std::string p = profiler::outcomeJson(m_profileOutcome, m_options.profiler);
        w.RawValue(p.c_str(), p.size(), rapidjson::kObjectType);
    }
    w.EndObject();
    return buf.GetString();
}

}  // namespace ts::run
