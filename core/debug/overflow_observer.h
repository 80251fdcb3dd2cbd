#pragma once
// OverflowObserver: the check_overflow mode. After every op of a training step it counts
// NaN, +Inf and -Inf in the op's outputs; backward ops output the gradients, so gradients
// are checked too. Each output with a non-finite value is a finding (step, op type, seqid,
// scope, tensor, counts) handed to the sink (the session store and the log). The first
// `maxDumpedOps` offending ops of the run have their inputs and outputs dumped to
// <dumpDir>/overflow_step<N>.h5 in the /<op>/<seqid>/ layout, and the run can be asked to
// stop at the first finding. A step the loss scale skipped because its gradients
// overflowed is a finding too (origin "loss_scale"), so both show in one list.
// Ops outside training steps (evaluation) are not checked.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "core/debug/dump_writer.h"
#include "core/debug/nonfinite.h"
#include "core/debug/overflow_store.h"
#include "core/engine/tensor/op_observer.h"

namespace ts::debug {

/// Counts non-finite values of a float32/float16 tensor (other dtypes: none).
NonFiniteCounts countNonFinite(const engine::Tensor& t);

struct OverflowOptions {
    bool stopOnFirst = false;
    std::string dumpDir;          // "" = do not dump offending ops
    int maxDumpedOps = 16;        // offending ops dumped per run
    int maxRecordedPerStep = 64;  // findings recorded per step; the rest are only counted
};

/// Where findings go (implemented over the session store by DebugJob; tests collect them).
class OverflowSink {
public:
    virtual ~OverflowSink() = default;
    virtual void add(const OverflowRecord& finding) = 0;
    /// End of a step: commit what was added.
    virtual void flush() {}
    /// A dump file was written (path, step).
    virtual void dumpFile(const std::string& /*path*/, int64_t /*step*/) {}
};

struct OverflowSummary {
    uint64_t checkedTensors = 0;
    uint64_t findings = 0;        // all, recorded or not
    uint64_t recorded = 0;        // handed to the sink
    uint64_t lossScaleSteps = 0;  // steps skipped by the loss scale
    bool hasFirst = false;
    OverflowRecord first;  // the first op finding of the run
    std::vector<std::string> dumpFiles;
    std::vector<std::string> errors;
};

class OverflowObserver final : public engine::OpObserver {
public:
    /// `stop` is called once, with a reason, at the first finding when stopOnFirst is set.
    OverflowObserver(OverflowOptions options, OverflowSink* sink,
                     std::function<void(const std::string&)> stop = {});
    ~OverflowObserver() override;

    void onStepBegin(const engine::StepInfo& step) override;
    void onStepEnd(const engine::StepInfo& step) override;
    void onOpBegin(engine::OpEvent& op) override;
    void onOpEnd(const engine::OpEvent& op) override;
    void onOpError(const engine::OpEvent& op, const std::string& what) override;
    void onOverflow(const engine::StepInfo& step, double newScale) override;
    void onRunEnd(const std::string& status, const std::string& reason) override;

    const OverflowSummary& summary() const { return m_summary; }

private:
    void report(const engine::OpEvent& op, int64_t seqid, const std::string& tensor,
                const NonFiniteCounts& c);
    void dumpOp(const engine::OpEvent& op, int64_t seqid);
    void closeDump();

    OverflowOptions m_options;
    OverflowSink* m_sink;
    std::function<void(const std::string&)> m_stop;
    bool m_stopped = false;
    bool m_inStep = false;
    int64_t m_step = 0;
    std::map<std::string, int64_t, std::less<>> m_typeCount;
    std::vector<int64_t> m_seqids;  // stack of seqids of running ops
    uint64_t m_stepFindings = 0;
    NonFiniteCounts m_stepGradCounts;  // non-finite values in backward outputs this step
    int m_dumpedOps = 0;
    int64_t m_globalSeq = 0;
    DumpWriter m_writer;
    OverflowSummary m_summary;
};

}  // namespace ts::debug
