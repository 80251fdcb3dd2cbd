#include "core/run/training_job.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>

#include "core/debug/debug_job.h"
#include "core/debug/rdr/rdr_run.h"
#include "core/engine/callbacks.h"
#include "core/engine/run_recorder.h"
#include "core/log/run_log_capture.h"

namespace ts::run {

namespace {

void writeNumber(rapidjson::Writer<rapidjson::StringBuffer>& w, double v) {
    if (std::isfinite(v))
        w.Double(v);
    else
        w.Null();
}

}  // namespace

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

Status TrainingJob::prepare() {
    if (m_prepared) return Status::success();
    const JobOptions& o = m_options;
    if (o.sessionPath.empty())
        return Error{"no session file given: the run must be recorded in a session (-o SESSION)"};
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
    w.Key("status");
    w.String(r.status.c_str());
    w.Key("reason");
    w.String(r.reason.c_str());
    w.Key("epochs");
    w.Int(r.epochs);
    w.Key("steps");
    w.Int64(r.steps);
    w.Key("samples_per_s");
    writeNumber(w, r.samplesPerS);
    w.Key("train_seconds");
    writeNumber(w, r.trainSeconds);
    w.Key("final");
    w.StartObject();
    w.Key("loss");
    writeNumber(w, r.finalLoss);
    w.EndObject();
    w.Key("eval");
    w.StartObject();
    for (const char* k : {"accuracy", "loss", "precision", "recall", "f1"}) {
        w.Key(k);
        auto it = r.eval.find(k);
        if (it == r.eval.end())
            w.Null();
        else
            writeNumber(w, it->second);
    }
    w.EndObject();
    w.Key("run_id");
    w.Int64(runId());
    w.Key("rdr_export");
    w.String(rdrExportDir().c_str());
    w.Key("overflow_steps");
    w.Int64(r.overflowSteps);
    if (m_debug) {  // "dump" / "overflow" objects (core/debug/debug_job.h)
        rapidjson::Document d;
        d.Parse(m_debug->summaryJson().c_str());
        for (auto it = d.MemberBegin(); it != d.MemberEnd(); ++it) {
            w.Key(it->name.GetString());
            it->value.Accept(w);
        }
    }
    w.Key("memory");
    w.StartObject();
    w.Key("peak_bytes");
    w.Int64(r.peakBytes);
    w.Key("reserved_bytes");
    w.Int64(r.reservedBytes);
    w.EndObject();
    int classes = 0;
    while (r.eval.count("precision/" + std::to_string(classes))) ++classes;
    w.Key("per_class");
    w.StartObject();
    for (const char* k : {"precision", "recall", "f1"}) {
        w.Key(k);
        w.StartArray();
        for (int c = 0; c < classes; ++c)
            writeNumber(w, r.eval.at(std::string(k) + "/" + std::to_string(c)));
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
