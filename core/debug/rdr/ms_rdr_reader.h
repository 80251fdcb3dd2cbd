#pragma once
// MindSpore's own RDR exports (Running Data Recorder: MS_RDR_ENABLE / the "rdr" config),
// read as MindSpore writes them: `<path>/rank_<id>/rdr/`, one file per recorder, named
// `<MODULE>_<tag>[_<graph id>]_<YYYYmmddHHMMSS>.<ext>` (mindspore/ccsrc/debug/rdr:
// base_recorder, graph_recorder, graph_exec_order_recorder, stream_exec_order_recorder,
// mem_address_recorder, task_debug_info_recorder, somas_recorder, string_recorder;
// docs/RDR.md has the table). Every file in the folder is classified and read; one of no known
// kind is listed as such, never dropped. The failing op is marked where MindSpore names it
// (its task-failure lines "Dump node (<op>) task error" / "Task fail infos task_id: T,
// stream_id: S", or "fault kernel" lines) in a file of the export or a log beside it.
// No Qt.
#include <cstdint>
#include <string>
#include <vector>

#include "core/common/result.h"

namespace ts::rdr {

/// What a file of a MindSpore RDR export holds.
enum class MsRdrKind {
    GraphIr,          // *.ir: a graph in MindSpore's IR text (RecordAnfGraph ".ir")
    GraphProto,       // *.pb: the graph as anf_ir.proto's GraphProto (RecordAnfGraph ".pb")
    GraphDat,         // *.dat: the graph in AnfExporter's text (RecordAnfGraph ".dat")
    ExecOrder,        // graph_exec_order*.txt: the kernels of a graph in execution order
    StreamExecOrder,  // *.json: stream execution order (node, logic/stream/event ids)
    MemAddress,       // mem_address_list*.txt: each kernel's input/workspace/output addresses
    TaskInfo,         // task_debug_info*.ir: Ascend tasks (op, task index, stream, addresses)
    Somas,            // somas_*: SOMAS memory planning (allocation and memory info)
    Text,             // other string records (RecordString) and plain text
    Other,            // binary of no known kind
};
const char* msRdrKindName(MsRdrKind k);

struct MsRdrFile {
    std::string path, name;
    MsRdrKind kind = MsRdrKind::Other;
    std::string module, tag, timestamp;  // from the name when it has MindSpore's form
    uint64_t bytes = 0;
    std::string text;  // text files (bounded by kMaxTextBytes); empty for binary ones
    bool truncated = false;
    std::string error;  // why the file could not be read (it is still listed)
};

struct MsExecOp {
    int64_t index = -1;
    std::string fullName;     // Default/.../Conv2D-op12 (from the node's debug string)
    std::string debugString;  // the node as MindSpore printed it
    std::string streamLabel, graphId;
};
struct MsExecOrder {
    std::string file;
    int64_t graphId = -1;
    int64_t declaredSize = -1;  // "execution_order size: N"
    std::vector<MsExecOp> ops;
};

struct MsStreamNode {
    int64_t index = -1, logicId = -1, streamId = -1, eventId = -1;
    std::string nodeName, nodeInfo, labelIds, activeStreamIds;
};

struct MsAddress {
    std::string address;
    uint64_t size = 0;
};
struct MsMemOp {
    std::string op;
    std::vector<MsAddress> inputs, workspaces, outputs;
};

struct MsTask {
    std::string op;
    int64_t taskIndex = -1, taskNum = 0, streamId = -1, type = -1, dumpFlag = 0;
    std::vector<MsAddress> inputs, outputs, workspaces;
};

struct MsFailure {
    std::string op;  // the failing op's name as MindSpore wrote it ("" when only ids)
    int64_t taskId = -1, streamId = -1;
    std::string where;  // "file:line" it was read from
    std::string line;   // the line itself
};

struct MsRdrExport {
    std::string folder;
    int rank = 0;
    std::vector<MsRdrFile> files;  // every file of the folder, by name
    std::vector<MsExecOrder> execOrders;
    std::vector<MsStreamNode> streamOrder;
    std::vector<MsMemOp> memory;
    std::vector<MsTask> tasks;
    std::vector<MsFailure> failures;  // in the order found
    std::vector<std::string> problems;
    /// Index into execOrders[order].ops of the first failure's op, or -1.
    int failingIndex(size_t order) const;
};

constexpr uint64_t kMaxTextBytes = uint64_t{64} << 20;

/// True when `dir` looks like a MindSpore RDR folder: files named <MODULE>_<tag>_<14 digits>.<ext>,
/// or the doc's *.ir graphs, and no rdr_index.json (the studio's own format).
bool isMsRdrFolder(const std::string& dir);
/// MindSpore RDR folders under `path`: the folder itself, <path>/rdr, <path>/rank_*/rdr,
/// <path>/*/rank_*/rdr; sorted by rank. Empty when none.
std::vector<std::string> findMsRdrFolders(const std::string& path);
/// Reads the first MindSpore RDR folder under `path` (and logs beside it for the failure).
Result<MsRdrExport> readMsRdrExport(const std::string& path);

/// Parsers of the individual files, for tests and fuzzing (bounded, never throw).
MsExecOrder parseMsExecOrder(const std::string& text);
std::vector<MsStreamNode> parseMsStreamOrder(const std::string& json, std::string* error);
std::vector<MsMemOp> parseMsMemAddress(const std::string& text);
std::vector<MsTask> parseMsTaskInfo(const std::string& text);
/// Task-failure lines of MindSpore's log in `text` (file name for `where`).
std::vector<MsFailure> findMsFailures(const std::string& text, const std::string& file);

}  // namespace ts::rdr
