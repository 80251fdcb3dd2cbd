#pragma once
// RdrRun: the Running Data Recorder of one training run, as TrainingJob attaches it.
//
//   auto rdr = RdrRun::attach({configPath, useEnvironment}, trainer);   // in prepare()
//   TrainResult r = trainer.run();
//   if (*rdr) (*rdr)->finish(r);                                        // after run()
//
// attach() reads the configuration (the JSON file wins over MS_RDR_*; RANK_ID), and when
// RDR is enabled creates the recorder, attaches an RdrObserver to the trainer's dispatcher,
// copies log records into the recorder's last-lines ring, and installs the fatal-signal
// handlers (SIGSEGV, SIGABRT, SIGFPE) on the calling thread (the training thread).
// finish() classifies the end of the run and exports per the mode:
//   op_exception   an op's kernel threw            (failing op: that op)
//   alloc_failed   the memory pool refused a block (failing op: the op allocating)
//   nan_loss       the loss turned NaN/Inf         (failing op: first op with a NaN/Inf output)
//   run_failed     any other failure
//   normal_end / stopped   a completed run / a run stopped on request (exported in mode 2)
// and appends "RDR export (<what>): <dir>" to the result's reason (or a warning when writing
// failed). Destruction detaches everything and restores the previous signal handlers.
#include <memory>
#include <string>

#include "core/common/result.h"
#include "core/debug/rdr/rdr_config.h"
#include "core/debug/rdr/rdr_recorder.h"

namespace ts::engine {
class Trainer;
struct TrainResult;
}  // namespace ts::engine

namespace ts::log {
class ScopedLogSink;
}

namespace ts::rdr {

class RdrObserver;

struct RdrRunOptions {
    std::string configPath;      // JSON file {"rdr": {...}} ("" = none)
    std::string configText;      // the same JSON as text (the studio's form); wins over the file
    bool useEnvironment = true;  // read MS_RDR_ENABLE / MS_RDR_MODE / MS_RDR_PATH, RANK_ID
    bool installSignalHandlers = true;
    bool checkFinite = true;  // look for the first op with a NaN/Inf output
    RdrLimits limits;
};

/// How a run ended, for the export: the reason key, the failing op and the error text.
struct RdrRunEnd {
    bool abnormal = false;
    std::string reason;     // op_exception, alloc_failed, nan_loss, run_failed, normal_end, stopped
    std::string failingOp;  // scope name ("" = the last op recorded)
    std::string detail;     // the run's reason / the exception text
};

class RdrRun {
public:
    /// nullptr (and no error) when RDR is disabled; an error naming the field or variable
    /// when the configuration is bad.
    static Result<std::unique_ptr<RdrRun>> attach(const RdrRunOptions& options,
                                                  engine::Trainer& trainer);
    ~RdrRun();
    RdrRun(const RdrRun&) = delete;
    RdrRun& operator=(const RdrRun&) = delete;

    /// Classifies the end of the run (see the file comment).
    RdrRunEnd classify(const engine::TrainResult& result) const;
    /// Exports per the mode and notes the export in `result` (reason, or a warning).
    void finish(engine::TrainResult& result);

    /// The folder an export goes to: <path>/rank_<id>/rdr.
    std::string exportDir() const { return m_config.exportDir(); }
    /// True once finish() wrote an export.
    bool exported() const { return m_exported; }
    const RdrConfig& config() const { return m_config; }
    RunningDataRecorder& recorder() { return *m_recorder; }

private:
    RdrRun() = default;
    RdrConfig m_config;
    engine::Trainer* m_trainer = nullptr;
    std::unique_ptr<RunningDataRecorder> m_recorder;
    std::unique_ptr<RdrObserver> m_observer;
    std::unique_ptr<log::ScopedLogSink> m_logSink;
    bool m_exported = false;
};

/// Loads the RDR configuration as RdrRun::attach does (file wins over the environment).
Result<RdrConfig> loadRdrRunConfig(const RdrRunOptions& options);

}  // namespace ts::rdr
