#pragma once
// RunSummary: what the session keeps about one training run, read back for the studio's run
// history: its row in `runs`, its settings (runs.config, a TrainConfig as JSON) and the end
// summary TrainingJob wrote (runs.summary: throughput, final loss, evaluation with per-class
// precision/recall/F1 and the confusion matrix, memory peak, checkpoints, warnings). Runs
// that did not come from the engine (no config, or a summary of another shape) are listed
// with what they have.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/common/result.h"
#include "core/engine/train/trainer.h"
#include "core/store/status.h"

namespace ts::store {
class TraceStore;
}

namespace ts::run {

struct RunSummary {
    int64_t id = 0;
    std::string kind = "engine";  // engine | command
    std::string name;
    store::RunStatus status = store::RunStatus::Running;
    std::string reason;
    int64_t startedAtNs = 0;
    int64_t endedAtNs = 0;
    bool hasConfig = false;
    engine::TrainConfig config;
    std::string configJson;
    bool hasSummary = false;
    int epochs = 0;
    int64_t steps = 0;
    double samplesPerS = 0;
    double trainSeconds = 0;
    double finalLoss = 0;
    std::map<std::string, double> eval;           // accuracy, loss, precision, recall, f1 (macro)
    std::vector<double> precision, recall, f1;    // per class
    std::vector<std::vector<int64_t>> confusion;  // [true class][predicted class]
    int64_t overflowSteps = 0;
    int64_t peakBytes = 0;
    std::vector<std::string> checkpoints;
    std::vector<std::string> warnings;

    // Command runs (runs.summary of a CommandResult, core/run/command_run.h).
    bool isCommand() const { return kind == "command"; }
    std::string commandLine;  // the program and its arguments, shortened
    std::optional<int> exitCode, signal;
    double durationS = 0;
    int64_t logLines = 0;
    int processes = 0;
    int64_t overflowFindings = 0;
    std::vector<std::string> traces;  // imported traces' paths
    std::vector<std::string> dumps, crashRecords;
};

/// Parses a TrainingJob::summaryJson() text into `into` (fields it lacks stay as they are).
/// False when the text is not a JSON object.
bool parseRunSummary(const std::string& json, RunSummary& into);
/// Every run of the session, by id. A run that ended without a summary (interrupted: killed
/// or crashed) gets the steps its scalars recorded (recordedSteps).
Result<std::vector<RunSummary>> readRunSummaries(store::TraceStore& store);
/// The last step run `runId` recorded a training scalar for (train/loss, else any scalar); 0
/// when none.
int64_t recordedSteps(store::TraceStore& store, int64_t runId);

}  // namespace ts::run
