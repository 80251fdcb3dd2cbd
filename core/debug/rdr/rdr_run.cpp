#include "core/debug/rdr/rdr_run.h"

#include <cmath>
#include <fstream>
#include <sstream>

#include "core/debug/rdr/rdr_observer.h"
#include "core/engine/train/trainer.h"
#include "core/log/logger.h"

namespace ts::rdr {
namespace {

/// Copies every log record the logger passes into the recorder's last-lines ring.
class RdrLogSink : public log::LogSink {
public:
    explicit RdrLogSink(RunningDataRecorder& r) : m_rec(r) {}
    void write(const log::LogRecord&, std::string_view line) override {
        m_rec.addLogLine(std::string(line));
    }

private:
    RunningDataRecorder& m_rec;
};

bool mentionsNan(const std::string& s) {
    return s.find("NaN") != std::string::npos || s.find("Inf") != std::string::npos;
}

// The reason key as the run's reason text names it.
std::string describe(const std::string& reason) {
    if (reason == kReasonNanLoss) return "NaN/Inf loss";
    if (reason == kReasonOpException) return "op exception";
    if (reason == kReasonAllocFailed) return "failed allocation";
    if (reason == kReasonNormalEnd) return "normal end";
    if (reason == "run_failed") return "run failed";
    return reason;
}

}  // namespace

Result<RdrConfig> loadRdrRunConfig(const RdrRunOptions& options) {
    std::optional<std::string> text;
    if (!options.configText.empty()) {
        text = options.configText;
    } else if (!options.configPath.empty()) {
        std::ifstream in(options.configPath, std::ios::binary);
        if (!in) return Error{"cannot read RDR config file " + options.configPath};
        std::ostringstream ss;
        ss << in.rdbuf();
        text = ss.str();
    }
    EnvMap env = rdrProcessEnv();
    if (!options.useEnvironment) {
        const auto rank = env.find("RANK_ID");
        EnvMap only;
        if (rank != env.end()) only.insert(*rank);
        env = std::move(only);
    }
    auto c = parseRdrConfig(text, env);
    if (!c && options.configText.empty() && !options.configPath.empty())
        return Error{options.configPath + ": " + c.error()};
    return c;
}

Result<std::unique_ptr<RdrRun>> RdrRun::attach(const RdrRunOptions& options,
                                               engine::Trainer& trainer) {
    auto config = loadRdrRunConfig(options);
    if (!config) return Error{config.error()};
    if (!config->enable) return std::unique_ptr<RdrRun>();
    std::unique_ptr<RdrRun> run(new RdrRun());
    run->m_config = config.value();
    run->m_trainer = &trainer;
    run->m_recorder = std::make_unique<RunningDataRecorder>(options.limits);
    run->m_recorder->configure(run->m_config);
    run->m_observer = std::make_unique<RdrObserver>(*run->m_recorder, trainer, options.checkFinite);
    trainer.dispatcher().addObserver(run->m_observer.get());
    run->m_logSink =
        std::make_unique<log::ScopedLogSink>(std::make_shared<RdrLogSink>(*run->m_recorder));
    if (options.installSignalHandlers) run->m_recorder->installFatalSignalHandlers();
    TS_LOG(DEBUG, INFO) << "RDR enabled (mode " << run->m_config.mode << "), exports go to "
                        << run->exportDir();
    return run;
}

RdrRun::~RdrRun() {
    if (m_trainer && m_observer) m_trainer->dispatcher().removeObserver(m_observer.get());
    m_logSink.reset();
    if (m_recorder) m_recorder->uninstallFatalSignalHandlers();
}

RdrRunEnd RdrRun::classify(const engine::TrainResult& result) const {
    RdrRunEnd e;
    const RdrObserver& o = *m_observer;
    e.detail = result.reason;
    if (o.allocFailed()) {
        e.abnormal = true;
        e.reason = kReasonAllocFailed;
        e.failingOp = o.allocFailure().scope;
        e.detail = o.allocFailure().what;
        if (!o.allocFailure().found()) e.detail += " outside any op";
        if (!result.reason.empty()) e.detail += "; " + result.reason;
    } else if (o.opError().found()) {
        e.abnormal = true;
        e.reason = kReasonOpException;
        e.failingOp = o.opError().scope;
        e.detail = o.opError().opType + " threw: " + o.opError().what;
    } else if (result.status != "completed" &&
               (mentionsNan(result.reason) || (result.steps > 0 && !std::isfinite(o.lastLoss())))) {
        e.abnormal = true;
        e.reason = kReasonNanLoss;
        const RdrOpRef nf = o.nonFiniteOp();
        e.failingOp = nf.scope;
        if (nf.found())
            e.detail += "; first NaN/Inf output: " + nf.scope + " (step " +
                        std::to_string(nf.step) + "); " + nf.what;
    } else if (result.status == "failed") {
        e.abnormal = true;
        e.reason = "run_failed";
    } else {
        e.reason = result.status == "stopped" ? "stopped" : kReasonNormalEnd;
    }
    return e;
}

void RdrRun::finish(engine::TrainResult& result) {
    const RdrRunEnd end = classify(result);
    if (!m_config.exportsOn(end.abnormal)) return;
    if (end.abnormal)
        TS_LOG(DEBUG, ERROR) << "run ended abnormally (" << end.reason << "): " << end.detail;
    auto st = m_recorder->exportNow(end.reason, end.failingOp, end.detail);
    if (!st) {
        TS_LOG(DEBUG, ERROR) << st.error();
        result.warnings.push_back(st.error());
        return;
    }
    m_exported = true;
    TS_LOG(DEBUG, WARNING) << "RDR export (" << end.reason << ") written to " << exportDir();
    if (!result.reason.empty()) result.reason += "; ";
    result.reason += "RDR export (" + describe(end.reason) + "): " + exportDir();
}

}  // namespace ts::rdr
