#pragma once
// MindSpore dump folders as MindSpore writes them (docs/MINDSPORE.md, "Dump folders"):
//
//   {path}/rank_{rank}/{net}/{graph_id}/{iteration}/          one iteration of one graph
//       {op_type}.{op_name}.{task_id}.{stream_id}.{timestamp}.{input|output}.{slot}.{format}[.{dtype}].npy
//       statistic.csv     (saved_data "statistic" or "full": a row per tensor)
//       mapping.csv       (file names too long for the OS, renamed to numbers)
//       {op_type}.{op_name}.{task_id}.{stream_id}.{timestamp}   (async "bin" files: device
//                         format protobuf, read only by Ascend's msaccucmp: listed, skipped)
//   {path}/rank_{rank}/{net}/{graph_id}/constants/Parameter.data-*.npy
//   {path}/rank_{rank}/execution_order/ms_execution_order_graph_{id}.csv (op full names)
//   {path}/rank_{rank}/graphs/ms_output_trace_code_graph_{id}.{ir,pb}
//
// The sync (GPU/CPU, Ascend O0/O1) and async (Ascend O2 with file_format "npy") layouts
// are the same tree; op names in file names have '/', '.', '\' and ' ' replaced by '_', and
// the execution order gives back the full scope names. Every file found is either a tensor,
// a statistics row source, a known side file or a skipped file with its reason. No Qt.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/job_control.h"
#include "core/common/result.h"
#include "core/debug/tensor_stats.h"

namespace ts::debug::msdump {

/// The parts of a dump file name.
struct FileName {
    std::string opType, opName;  // opName as written (scope with '_' for '/')
    int64_t taskId = 0, streamId = 0;
    uint64_t timestamp = 0;
    std::string io;  // "input" | "output" ("" for async bin files)
    int slot = -1;
    std::string format, dtype;  // "DefaultFormat", "NCHW", ...; dtype "" in MindSpore 1.x names
    bool npy = false;
};
/// Parses a dump file name (with or without the dtype part, .npy or async bin); nullopt
/// for names of another form.
std::optional<FileName> parseFileName(std::string_view name);

/// One row of statistic.csv (only the columns the file has are set).
struct StatRow {
    std::string opType, opName, io;
    int64_t taskId = 0, streamId = 0;
    uint64_t timestamp = 0;
    int slot = -1;
    std::string dtype, shape;  // shape as written, e.g. "(32,6,28,28)"
    std::optional<uint64_t> dataSize, count, nan, negInf, posInf, zero, negZero, posZero;
    std::optional<double> max, min, avg, l2norm;
    std::map<std::string, std::string> other;  // columns this reader does not know (MD5, ...)
};

/// Parses statistic.csv (header line naming the columns); rows that cannot be read are
/// listed in `problems` as "line N: why".
Result<std::vector<StatRow>> parseStatisticCsv(std::string_view text,
                                               std::vector<std::string>* problems = nullptr);

/// One tensor of an iteration (a .npy file, a statistic.csv row, or both).
struct Tensor {
    std::string file;  // absolute .npy path; "" when only statistics exist
    FileName name;
    std::string fullName;  // the op's scope name ('/' separated) when known, else name.opName
    int64_t seqid = -1;    // executions of this op type before this one, in execution order
    std::optional<StatRow> stats;
    int64_t orderIndex = -1;  // position of the op in the execution order file (-1: absent)
    /// "<opType>/<seqid>/<io>/<slot>": the studio's dump path, for pairing with HDF5 dumps.
    std::string path() const;
};

struct SkippedFile {
    std::string file, reason;
};

struct Iteration {
    std::string dir;
    int rank = 0;
    std::string net;
    int64_t graphId = -1;
    int64_t iteration = -1;              // -1 for the constants folder
    std::vector<Tensor> tensors;         // in execution order (timestamp, then order file)
    bool statisticsOnly = false;         // statistic.csv and no tensor file
    std::vector<std::string> sideFiles;  // statistic.csv, mapping.csv, *.json kernel args
    std::vector<SkippedFile> skipped;    // async bin files, unknown files
    std::vector<std::string> problems;   // unreadable csv lines, names without a file, ...
};

/// Reads one iteration folder: lists the files, reads statistic.csv and mapping.csv, orders
/// the tensors. `executionOrder` (full op names in order, from the rank's
/// execution_order/ms_execution_order_graph_{id}.csv) gives full names and ties; may be empty.
Result<Iteration> readIteration(const std::string& dir,
                                const std::vector<std::string>& executionOrder = {});

/// A whole dump tree (any of its levels as the root): every iteration folder found below.
struct IterationRef {
    std::string dir;
    int rank = 0;
    std::string net;
    int64_t graphId = -1, iteration = -1;
};
struct Tree {
    std::string root;
    std::vector<IterationRef> iterations;  // by rank, net, graph, iteration
    std::map<std::pair<int, int64_t>, std::string> executionOrderFiles;  // (rank, graph) -> csv
    std::map<std::pair<int, int64_t>, std::string> graphFiles;           // (rank, graph) -> ir
    std::vector<std::string> metadataFiles;  // .dump_metadata/*, data_dump.json
    std::vector<SkippedFile> skipped;
};
/// Finds the iterations under `path` (a dump root holding rank_*, a rank, net, graph or
/// iteration folder). Error when none is found.
Result<Tree> scanTree(const std::string& path);

/// Reads iteration `ref` of `tree` in its graph's execution order (readIteration), when the
/// tree holds one for its rank and graph.
Result<Iteration> readIteration(const Tree& tree, const IterationRef& ref);

/// True when `path` is (or holds) a MindSpore dump: an iteration folder with tensor files
/// or statistic.csv, or a tree whose rank_*/net/graph/iteration levels lead to one.
bool looksLikeDump(const std::string& path);

/// Reads an execution order csv (a header line, then one op full name per line; older
/// files without the header are read too).
Result<std::vector<std::string>> readExecutionOrder(const std::string& csvPath);

/// The name a dump file gives an op: '/', '.', '\' and ' ' as '_'.
std::string fileSafeName(std::string_view fullName);

/// NaN/Inf of one tensor: from its .npy (streamed) or, without one, its statistics row.
struct NonFinite {
    uint64_t nan = 0, posInf = 0, negInf = 0;
    bool fromStatistics = false;
    bool known = false;  // false: neither a file nor the statistics columns to tell
};
Result<NonFinite> nonFiniteOf(const Tensor& t);

/// Statistics of a tensor's .npy (one streaming pass).
Result<TensorStats> statsOf(const std::string& npyPath, JobControl* job = nullptr);

}  // namespace ts::debug::msdump
