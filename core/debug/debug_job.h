#pragma once
// DebugJob: attaches the dump and overflow-check observers to a training run and finishes
// them. TrainingJob (core/run) creates one in prepare() from its JobOptions and calls
// finish() after the run, so the CLI (`train --dump CONFIG --overflow-check`) and the GUI
// get the same behaviour.
//   - dump: dump.json (a file, or its text from the GUI); its check_overflow and
//     stop_on_overflow fields switch the overflow check on as well.
//   - overflow check: findings go to the session's overflow_findings table (committed at
//     the end of every step, so a live view sees them) and to the log; offending ops are
//     dumped under overflowDumpDir (default: the dump_path of dump.json, else
//     "<session>.dumps/" beside the session file); stopOnOverflow ends the run (status
//     "stopped") at the end of the step with the first finding.
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/common/result.h"
#include "core/debug/dump_observer.h"
#include "core/debug/overflow_observer.h"

namespace ts::engine {
class Trainer;
struct TrainResult;
}  // namespace ts::engine

namespace ts::debug {

struct DebugJobOptions {
    std::string dumpConfigPath;  // dump.json ("" = none)
    std::string dumpConfigJson;  // dump.json text; wins over dumpConfigPath
    bool overflowCheck = false;
    bool stopOnOverflow = false;
    std::string overflowDumpDir;  // "" = see above
    bool active() const {
        return !dumpConfigPath.empty() || !dumpConfigJson.empty() || overflowCheck;
    }
};

class DebugJob {
public:
    /// Parses the config, opens the load file and the session, attaches the observers to
    /// `trainer`'s dispatcher. Errors are ones the user can act on (bad dump.json, missing
    /// load file, unwritable session). Returns nullptr when nothing is asked for.
    static Result<std::unique_ptr<DebugJob>> attach(const DebugJobOptions& options,
                                                    engine::Trainer& trainer,
                                                    const std::string& sessionPath, int64_t runId);
    ~DebugJob();
    DebugJob(const DebugJob&) = delete;
    DebugJob& operator=(const DebugJob&) = delete;

    /// Detaches, closes files, records dump files in the session and adds a line per
    /// problem to result.warnings. Call once, after Trainer::run().
    void finish(engine::TrainResult& result);

    const DumpObserver* dumper() const { return m_dump.get(); }
    const OverflowObserver* overflow() const { return m_overflow.get(); }
    /// {"dump": {"files", "tensors", "bytes", "loaded_inputs"}, "overflow": {"findings",
    /// "first": {...} | null, "loss_scale_steps", "dump_files"}} (keys present when used).
    std::string summaryJson() const;

private:
    DebugJob() = default;
    class StoreSink;
    engine::Trainer* m_trainer = nullptr;
    std::unique_ptr<StoreSink> m_sink;
    std::unique_ptr<DumpObserver> m_dump;
    std::unique_ptr<OverflowObserver> m_overflow;
    bool m_finished = false;
};

}  // namespace ts::debug
