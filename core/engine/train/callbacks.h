#pragma once
// Built-in callbacks: LossMonitor, ModelCheckpoint, EarlyStop, StopAtTime, SaveBestCheckpoint,
// SummaryCollector and ProgressCallback (forwards progress to a function, for the GUI).
#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/engine/train/callback.h"
#include "core/engine/train/run_recorder.h"
#include "core/engine/train/tb_events.h"

namespace ts::engine {

/// Prints the loss every `perPrintTimes` steps (when `print` is set) and stops the run as
/// failed when the loss is NaN or Inf: "loss is NaN at epoch E step S; training stopped".
class LossMonitor : public Callback {
public:
    explicit LossMonitor(int64_t perPrintTimes = 0,
                         std::function<void(const std::string&)> print = {})
        : m_every(perPrintTimes), m_print(std::move(print)) {}
    void stepEnd(RunContext& ctx) override;
    bool lateStepEnd() const override { return true; }

private:
    int64_t m_every;
    std::function<void(const std::string&)> m_print;
};

/// Saves "<dir>/<prefix>-<epoch>_<step>.ckpt" every `saveSteps` steps and/or every
/// `saveEpochs` epochs (0 = off) and at a stop, keeping the last `keep` files.
class ModelCheckpoint : public Callback {
public:
    ModelCheckpoint(std::string dir, std::string prefix = "checkpoint", int64_t saveSteps = 0,
                    int saveEpochs = 1, int keep = 5)
        : m_dir(std::move(dir)),
          m_prefix(std::move(prefix)),
          m_steps(saveSteps),
          m_epochs(saveEpochs),
          m_keep(keep) {}
    void stepEnd(RunContext& ctx) override;
    void epochEnd(RunContext& ctx) override;
    void end(RunContext& ctx) override;
    const std::deque<std::string>& saved() const { return m_saved; }
    const std::string& lastError() const { return m_error; }

private:
    void save(RunContext& ctx);
    std::string m_dir, m_prefix;
    int64_t m_steps;
    int m_epochs;
    int m_keep;
    std::deque<std::string> m_saved;
    int64_t m_lastSavedStep = -1;
    std::string m_error;
};

/// Stops when the monitored value ("loss": the epoch-mean training loss; "eval_loss", or an
/// evaluation metric such as "accuracy", from per-epoch evaluation) has not improved by
/// `minDelta` for `patience` epochs, or when a step's loss falls below `lossThreshold` (> 0).
class EarlyStop : public Callback {
public:
    EarlyStop(std::string monitor = "loss", int patience = 3, double minDelta = 0.0,
              double lossThreshold = 0.0)
        : m_monitor(std::move(monitor)),
          m_patience(patience),
          m_minDelta(minDelta),
          m_threshold(lossThreshold) {}
    void epochBegin(RunContext&) override { m_sum = 0, m_n = 0; }
    void stepEnd(RunContext& ctx) override;
    void epochEnd(RunContext& ctx) override;

private:
    std::string m_monitor;
    int m_patience;
    double m_minDelta, m_threshold;
    double m_best = 0;
    bool m_haveBest = false;
    int m_bad = 0;
    double m_sum = 0;
    int64_t m_n = 0;
};

/// Stops once the run has trained for `seconds`.
class StopAtTime : public Callback {
public:
    explicit StopAtTime(double seconds) : m_seconds(seconds) {}
    void begin(RunContext&) override { m_start = std::chrono::steady_clock::now(); }
    void stepEnd(RunContext& ctx) override;

private:
    double m_seconds;
    std::chrono::steady_clock::time_point m_start;
};

/// After each epoch's evaluation, saves "<dir>/best.ckpt" when `metric` improved
/// (higher is better, unless `lowerIsBetter`).
class SaveBestCheckpoint : public Callback {
public:
    SaveBestCheckpoint(std::string dir, std::string metric = "accuracy", bool lowerIsBetter = false)
        : m_dir(std::move(dir)), m_metric(std::move(metric)), m_lower(lowerIsBetter) {}
    void epochEnd(RunContext& ctx) override;
    double best() const { return m_best; }
    const std::string& path() const { return m_path; }

private:
    std::string m_dir, m_metric, m_path;
    bool m_lower;
    bool m_have = false;
    double m_best = 0;
};

/// Records scalars into a session run (train/loss, lr and loss_scale every `collectFreq` steps
/// and at every overflowing step, samples_per_s per epoch, eval/<metric> per evaluated epoch
/// and after the final evaluation) and the loss-scale overflows (RunRecorder::addOverflow),
/// and, when `tbDir` is set, the scalars into a TensorBoard event file. The owner of the recorder
/// finishes the run (RunRecorder::finish) with the TrainResult after Trainer::run() returns.
class SummaryCollector : public Callback {
public:
    SummaryCollector(RunRecorder* recorder, std::string tbDir = {}, int64_t collectFreq = 1);
    void begin(RunContext& ctx) override;
    void stepEnd(RunContext& ctx) override;
    bool lateStepEnd() const override { return true; }
    void epochEnd(RunContext& ctx) override;
    void end(RunContext& ctx) override;
    const std::string& eventFile() const { return m_eventPath; }
    const std::string& lastError() const { return m_error; }

private:
    void scalar(const std::string& tag, int64_t step, double v);
    RunRecorder* m_rec;
    std::string m_tbDir, m_eventPath, m_error;
    int64_t m_freq;
    int64_t m_lastEvalStep = -1;
    std::unique_ptr<tb::EventWriter> m_tb;
};

/// Calls `fn` with the run context at most every `minIntervalMs` (and at every epoch end and
/// at the end) — the GUI's progress feed.
class ProgressCallback : public Callback {
public:
    ProgressCallback(std::function<void(const RunArgs&)> fn, int minIntervalMs = 50)
        : m_fn(std::move(fn)), m_interval(minIntervalMs) {}
    void stepEnd(RunContext& ctx) override;
    bool lateStepEnd() const override { return true; }
    void epochEnd(RunContext& ctx) override { m_fn(ctx.originalArgs()); }
    void end(RunContext& ctx) override { m_fn(ctx.originalArgs()); }

private:
    std::function<void(const RunArgs&)> m_fn;
    int m_interval;
    std::chrono::steady_clock::time_point m_last{};
};

}  // namespace ts::engine
