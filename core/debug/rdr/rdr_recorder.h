#pragma once
// RunningDataRecorder: the bounded in-memory flight recorder of a training run (RDR).
// The engine thread records the graph IR, every op it executes (current and previous
// step), allocations/frees with pool totals, log lines and the run state; on an abnormal
// end the exporter writes them as plain-text files plus rdr_index.json to
// <path>/rank_<RANK_ID>/rdr/ (see docs/RDR.md for the format).
//
// Memory is fixed at construction: records live in preallocated fixed-size slots
// (oversized text is truncated), so the fatal-signal handler can format and write them
// without locking or allocating. Recording and exportNow() are thread-safe (one mutex);
// the signal handler reads the slots lock-free.
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/common/result.h"
#include "core/debug/rdr/rdr_config.h"

namespace ts::rdr {

/// One input tensor of an op: shape and dtype name ("float32").
struct RdrTensorDesc {
    std::vector<int64_t> shape;
    std::string dtype;
};

/// Bounds of the in-memory records.
struct RdrLimits {
    size_t opsPerStep = 2048;  // last N ops kept for each of the current/previous step
    size_t allocations = 1024;
    size_t logLines = 256;
    size_t irBytes = 4u << 20;  // graph IR text beyond this is truncated
};

/// File names inside an export folder.
inline constexpr const char* kIndexFile = "rdr_index.json";
inline constexpr const char* kGraphIrFile = "graph_0.ir";
inline constexpr const char* kExecOrderFile = "exec_order.txt";
inline constexpr const char* kMemoryFile = "memory_alloc.txt";
inline constexpr const char* kLogFile = "log_tail.txt";
inline constexpr const char* kRunStateFile = "run_state.txt";

/// Standard reasons (exportNow accepts any text).
inline constexpr const char* kReasonOpException = "op_exception";
inline constexpr const char* kReasonNanLoss = "nan_loss";
inline constexpr const char* kReasonAllocFailed = "alloc_failed";
inline constexpr const char* kReasonNormalEnd = "normal_end";

class RunningDataRecorder {
public:
    explicit RunningDataRecorder(RdrLimits limits = {});
    ~RunningDataRecorder();
    RunningDataRecorder(const RunningDataRecorder&) = delete;
    RunningDataRecorder& operator=(const RunningDataRecorder&) = delete;

    /// Sets the configuration (enable/mode/path/rank). Recording always works; exports
    /// happen only when enabled. Also re-renders the export path the signal handler uses.
    void configure(const RdrConfig& config);
    RdrConfig config() const;

    /// Forgets every record (a new run); keeps the configuration.
    void reset();

    /// The model's graph as readable IR text (cells, ops, shapes, dtypes, parameters).
    void setGraphIr(const std::string& irText);
    /// Appends to the graph IR text (what passes RdrLimits::irBytes is cut).
    void appendGraphIr(std::string_view irText);
    /// Starts a step: the current step's op order becomes the previous one.
    void beginStep(int64_t epoch, int64_t step);
    /// An op about to execute. Record it before running it: on a fatal signal the last
    /// recorded op is named as the failing one.
    void recordOp(int64_t seqid, const std::string& opType, const std::string& scopeName,
                  const std::vector<RdrTensorDesc>& inputs,
                  const std::vector<std::vector<int64_t>>& outputShapes);
    /// The same with inputs and outputs already formatted ("[32,784]:Float32 [784,10]:Float32",
    /// "[32,10]"); the engine observer's fast path.
    void recordOp(int64_t seqid, std::string_view opType, std::string_view scopeName,
                  std::string_view inputsText, std::string_view outputsText);
    /// Sets the outputs of the op recorded last in the current step (known once it ran).
    void setLastOpOutputs(std::string_view outputsText);
    /// A tensor allocation in the memory pool at `timeNs` (any monotonic clock in ns).
    void recordAlloc(const std::string& tensorName, uint64_t bytes, uint64_t offset,
                     int64_t timeNs);
    /// Frees the latest live allocation of this tensor/offset (an empty name matches any
    /// tensor at that offset); unknown frees are ignored.
    void recordFree(const std::string& tensorName, uint64_t offset, int64_t timeNs);
    /// Renames the latest allocation at `offset` (e.g. once an op ran and it is known to be
    /// the op's output rather than a workspace); unknown offsets are ignored.
    void renameAlloc(uint64_t offset, std::string_view tensorName);
    /// An allocation that failed (kept in the table with status FAILED).
    void recordAllocFailure(const std::string& tensorName, uint64_t bytes, int64_t timeNs);
    void setPoolTotals(uint64_t inUse, uint64_t peak, uint64_t capacity);
    /// One formatted log line (the logger's RDR sink); newlines are kept as spaces.
    void addLogLine(const std::string& line);
    /// Run state: the run's config as JSON text, position, last loss and loss scale.
    void setRunState(const std::string& configJson, int64_t epoch, int64_t step, double loss,
                     double lossScale);

    /// Writes the export now (any thread). `failingOp` empty = the last recorded op; else a
    /// scope name or op type, looked up in the current step, then the previous one.
    /// `detail`: the error text (exception message, stop reason), kept in the index.
    /// Error when disabled or a file cannot be written. Overwrites a previous export.
    Status exportNow(const std::string& reason, const std::string& failingOp,
                     const std::string& detail = {});
    /// Applies the mode at the end of a run: exports when the config says this end is
    /// exported (abnormal: always; normal: mode 2); success without writing otherwise.
    Status onRunEnd(bool abnormal, const std::string& reason, const std::string& failingOp,
                    const std::string& detail = {});
    /// Number of exports written by this recorder (tests, UI).
    int exportCount() const { return m_exports.load(); }

    /// Installs SIGSEGV/SIGABRT/SIGFPE handlers that export (reason "signal SIGSEGV", the
    /// last recorded op as failing op) with async-signal-safe code, then re-raise with the
    /// default action. One recorder at a time; the alternate signal stack (for stack
    /// overflows) is set for the calling thread. No effect on the export when disabled.
    void installFatalSignalHandlers();
    /// Restores the previous handlers (also done by the destructor).
    void uninstallFatalSignalHandlers();

    struct Slots;  // fixed-size storage, defined in rdr_slots.h

private:
    friend void rdrSignalExport(RunningDataRecorder& r, int sig);
    void renderExportDir();
    // Async-signal-safe: writes all files with plain syscalls; false when a write failed.
    bool writeExport(const char* reason, const char* failingOp, const char* detail, int signal);

    mutable std::mutex m_mutex;
    RdrConfig m_config;
    RdrLimits m_limits;
    std::unique_ptr<Slots> m_slots;
    std::atomic<int> m_exports{0};
    // offset -> sequence number of the latest allocation there (frees and renames find
    // their row without scanning the table; not used by the signal handler).
    std::unordered_map<uint64_t, uint64_t> m_allocAt;
    bool m_handlersInstalled = false;
};

}  // namespace ts::rdr
