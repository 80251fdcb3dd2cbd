#pragma once
// Which ranks a set of paths holds, and which rank each is: a folder of rank_<r>.tscope
// files (the engine's data-parallel runs) is one rank per file; a session is one rank, or
// several when its sources carry different ranks (a `launch --nproc N` run, traces of
// several ranks imported together). A rank comes from, in this order: the trace's
// `distributedInfo`, the run's config ("rank"), the file name (rank-3, rank_3, rank3,
// msprof_<device>_..., *_timeline_display_<device>, device_<n>/, worker<n>), else the order
// the inputs were given in. No Qt.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/cluster/cluster_rank.h"
#include "core/common/result.h"

namespace ts::store {
class TraceStore;
}

namespace ts::analysis {

/// The rank a file's name gives (see above); nullopt when it gives none.
std::optional<int64_t> rankFromFileName(std::string_view path);

/// `distributedInfo` of a Kineto / PyTorch trace file (plain or gzip): rank, world size,
/// backend. Reads until the key's object is complete; nullopt when the file has none or
/// cannot be read.
struct DistributedInfo {
    int64_t rank = 0;
    std::optional<int64_t> worldSize;
    std::string backend;
};
/// `maxScan`: give up when the key is not within that many bytes (Kineto writes it at the
/// head; the Python package's rewritten traces at the end).
std::optional<DistributedInfo> readDistributedInfo(const std::string& path,
                                                   size_t maxScan = static_cast<size_t>(-1));

/// Trace files grouped by the rank they hold (distributedInfo in the first MiB, else the file
/// name), in the order first seen: a rank's several files (an msprof device's timelines,
/// profiler cycles) go into one session. Files without a rank are a group each.
std::vector<std::vector<std::string>> groupTracesByRank(const std::vector<std::string>& files);

/// The ranks of the session `store` (opened from `sessionPath`). Sources with slices are
/// grouped by rank; two or more ranks -> one RankInput each (sources of one rank together,
/// sources whose rank is unknown get one by order); otherwise the session is one rank (its
/// rank from the sources, the run config or the session's file name, else -1).
Result<std::vector<RankInput>> ranksOfSession(store::TraceStore& store,
                                              const std::string& sessionPath,
                                              std::vector<std::string>* warnings = nullptr);

/// The rank_<r>.tscope files of `dir`, by rank; empty when it has none.
std::vector<std::string> rankSessionFiles(const std::string& dir);

/// Sessions and folders of rank sessions -> ranks, in the order given. Trace files must be
/// imported into sessions first (the CLI does; the studio imports them into its session).
/// Errors name the path that cannot be opened or holds no profile.
Result<std::vector<RankInput>> ranksOfPaths(const std::vector<std::string>& paths,
                                            std::vector<std::string>* warnings = nullptr);

/// Gives every input with rank -1 the smallest rank no input has, in order (origin "order").
void assignMissingRanks(std::vector<RankInput>& ranks);

}  // namespace ts::analysis
