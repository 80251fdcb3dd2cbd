#pragma once
// DumpObserver: the per-op tensor dump of dump.json, attached to a Dispatcher.
//   - Within the configured steps (default: every training step; ops outside a step, such
//     as evaluation, are not dumped), every op that passes dump_list / op_filter /
//     dump_op_switch has its inputs (dump_mode input|all, written before the kernel runs)
//     and outputs (output|all) written as /<op type>/<seqid>/input/<i> and /output/<i>,
//     forward and backward ops alike (backward ops are the *Grad types).
//   - <seqid> counts executions of that op type in the file (0, 1, ...), like the seeds'
//     "/numpy_T/1/"; it counts every op of the type, dumped or not, so a filtered dump keeps
//     the seqids of a full one and both compare by (op, seqid, slot).
//   - One file per step (<dump_path>/step_<n>.h5) or one per run (see DumpConfig).
//   - Load mode (load_file_path): before an op runs, inputs recorded in that dump under the
//     same (op, seqid, slot) replace the live ones (same shape; dtype converted).
// A write error (disk full...) stops dumping, keeps the run going and is reported.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/debug/dump_config.h"
#include "core/debug/dump_loader.h"
#include "core/debug/dump_writer.h"
#include "core/engine/tensor/op_observer.h"

namespace ts::debug {

/// The dump dtype of an engine dtype.
DumpDType dumpDTypeOf(engine::DType t);

/// Writes the inputs (io "input") or outputs of one op into `w` at <opType>/<seqid>.
/// Shared by the dump and the overflow-check observers.
Status writeOpTensors(DumpWriter& w, const engine::OpEvent& op, int64_t seqid, bool inputs,
                      int64_t globalSeq);

struct DumpSummary {
    std::vector<std::pair<std::string, int64_t>> files;  // (path, step; -1 per run)
    uint64_t tensors = 0;
    uint64_t bytes = 0;
    double writeSeconds = 0;    // time spent inside the writer
    uint64_t loadedInputs = 0;  // load mode: inputs replaced by recorded ones
    uint64_t loadMismatches = 0;
    std::vector<std::string> errors;  // first few problems (write failures, load mismatches)
};

class DumpObserver final : public engine::OpObserver {
public:
    explicit DumpObserver(DumpConfig config);
    ~DumpObserver() override;
    /// Opens the load file when load_file_path is set.
    Status open();

    void onStepBegin(const engine::StepInfo& step) override;
    void onStepEnd(const engine::StepInfo& step) override;
    void onOpBegin(engine::OpEvent& op) override;
    void onOpEnd(const engine::OpEvent& op) override;
    void onOpError(const engine::OpEvent& op, const std::string& what) override;
    void onRunEnd(const std::string& status, const std::string& reason) override;

    /// Closes any open file (idempotent) and returns what was written.
    const DumpSummary& finish();
    const DumpSummary& summary() const { return m_summary; }
    const DumpConfig& config() const { return m_config; }

private:
    bool stepWanted(int64_t step) const;
    bool ensureFile(int64_t step);
    void closeFile();
    void fail(std::string message);

    DumpConfig m_config;
    std::unique_ptr<DumpLoader> m_loader;
    DumpWriter m_writer;
    int64_t m_fileStep = -1;
    bool m_inStep = false;
    bool m_stepWanted = false;
    bool m_failed = false;
    int64_t m_step = 0;
    int64_t m_globalSeq = 0;
    std::map<std::string, int64_t, std::less<>> m_typeCount;  // seqids of the current file
    struct OpFrame {
        int64_t seqid = -1;  // -1: outside the dumped steps
        bool wanted = false;
        int64_t globalSeq = 0;
    };
    std::vector<OpFrame> m_ops;  // ops between onOpBegin and onOpEnd (a stack, for safety)
    DumpSummary m_summary;
};

}  // namespace ts::debug
