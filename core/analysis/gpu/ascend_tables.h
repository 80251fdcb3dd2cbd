#pragma once
// The tables of Ascend's profiler folders and msprof-analyze's cluster outputs, as the
// "ascend_profiler" importer keeps them in their sources' stats (importers/ascend): tables
// (op_statistic, step_trace_time, cluster_step_trace_time, MindSpore 1.x's *_raw_* files),
// communication operators (communication.json, cluster_communication.json) and links
// (communication_matrix.json, cluster_communication_matrix.json) — and what the views make
// of them: the step trace per step (msprof's Computing, Communication(Not Overlapped),
// Overlapped, Communication, Free, Stage, Bubble), communication per operator type with
// its wait / transit / synchronisation / idle time and bandwidth per link type (HCCS, PCIE,
// RDMA, SDMA, SIO), and the rank x rank link matrix. Definitions as msprof-analyze's
// (cluster_analyse/analysis/communication_analysis.py): wait ratio = wait / (wait +
// transit), synchronisation ratio = sync / (sync + transit), bandwidth = MB / ms (GB/s).
// No Qt.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/common/json.h"
#include "core/common/result.h"

namespace ts::store {
class TraceStore;
}

namespace ts::analysis::gpu {

struct AscendTable {
    int64_t sourceId = 0;
    std::string kind;  // "op_statistic", "step_trace_time", ...
    std::string path;
    std::vector<std::string> header;
    /// Cells as text; numbers[r][c] the number when the cell is one.
    std::vector<std::vector<std::string>> text;
    std::vector<std::vector<std::optional<double>>> numbers;
    int column(std::string_view name) const;       // exact, else by prefix; -1 none
    int exactColumn(std::string_view name) const;  // exact only; -1 none
};

struct AscendLinkFigures {
    std::string type;  // HCCS, PCIE, RDMA, SDMA, SIO, ...
    double sizeMb = 0, timeMs = 0, bandwidthGBs = 0, largePacketRatio = 0;
    std::vector<std::array<double, 3>> sizes;  // message size (MB), count, time (ms)
};

struct AscendCommOp {
    int64_t sourceId = 0;
    bool cluster = false;
    std::string step, kind, op, group;  // kind: p2p | collective
    int64_t rank = -1;
    double startUs = 0, elapseMs = 0, transitMs = 0, waitMs = 0, syncMs = 0, idleMs = 0;
    std::vector<AscendLinkFigures> links;
    /// The operator's type: "hcom_allReduce__123_0_1" -> "hcom_allReduce".
    std::string opType() const;
};

struct AscendLink {
    int64_t sourceId = 0;
    bool cluster = false;
    std::string step, kind, op, group, src, dst, transport;
    int64_t rank = -1;
    double sizeMb = 0, timeMs = 0, bandwidthGBs = 0;
};

struct AscendTables {
    std::vector<AscendTable> tables;
    std::vector<AscendCommOp> ops;
    std::vector<AscendLink> links;
    bool empty() const { return tables.empty() && ops.empty() && links.empty(); }
    const AscendTable* table(std::string_view kind) const;
};

/// Every Ascend table of the session (sources of kind "ascend_profiler").
Result<AscendTables> loadAscendTables(store::TraceStore& store);

// ---- what the views show

struct AscendStep {  // step_trace_time.csv, per step (us)
    std::string step;
    std::string rankOrStage;  // cluster_step_trace_time: "rank 3" / "stage (0,1,2,3)"
    int64_t rank = -1;        // rank rows of the cluster table
    double computing = 0, commNotOverlapped = 0, overlapped = 0, communication = 0, free = 0,
           stage = 0, bubble = 0, commExcludeReceive = 0, preparing = 0;
    double total() const { return computing + commNotOverlapped + free; }
};
/// Rows of step_trace_time (cluster = false) or cluster_step_trace_time (true).
std::vector<AscendStep> ascendSteps(const AscendTables& t, bool cluster);

struct AscendCommSummary {
    std::string opType, group;
    int64_t calls = 0;
    double elapseMs = 0, transitMs = 0, waitMs = 0, syncMs = 0, idleMs = 0;
    double waitRatio = 0, syncRatio = 0;             // msprof-analyze's
    std::map<std::string, AscendLinkFigures> links;  // by link type: summed, bandwidth = MB/ms
};
/// Communication per operator type and group (ops of one file kind: cluster or not).
std::vector<AscendCommSummary> summarizeAscendComm(const AscendTables& t, bool cluster);

struct AscendMatrixCell {
    std::string src, dst, transport;
    double sizeMb = 0, timeMs = 0, bandwidthGBs = 0;
    int64_t ops = 0;
};
/// Links summed by (src, dst): bandwidth = MB / ms.
std::vector<AscendMatrixCell> ascendMatrix(const AscendTables& t, bool cluster);

/// Writes the tables' figures (steps, communication, matrix) as one JSON object.
void writeAscendJson(json::Writer& w, const AscendTables& t);

}  // namespace ts::analysis::gpu
