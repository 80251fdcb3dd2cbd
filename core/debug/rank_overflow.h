#pragma once
// Several ranks' overflow findings side by side: the first NaN/Inf of each rank, ordered by
// time, which rank saw it first, and whether it reached the others through a collective
// (their first finding is the output of an AllReduce, AllGather, Broadcast, ... — the
// value arrived from another rank) or they produced their own. No Qt.
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace ts::debug {

/// The first finding of one rank (or of one input that holds no finding: found = false).
struct RankFirstFinding {
    int64_t rank = 0;
    std::string source;  // the dump file, or "session:run N"
    bool found = false;
    std::string path;  // <op>/<seqid>/<tensor>, or the op and tensor of a session finding
    std::string op;
    int64_t step = -1;
    double timeS = NAN;  // wall clock, seconds since the epoch (NaN: unknown)
    uint64_t nan = 0, posinf = 0, neginf = 0;
    bool collective = false;  // the op is a collective (its output came from other ranks)
};

struct RankOverflowOrder {
    std::vector<RankFirstFinding> ranks;  // with a finding, by time (unknown last), then rank
    std::vector<RankFirstFinding> clean;  // inputs without any finding
    std::optional<size_t> origin;         // index into ranks: where it started
    std::vector<std::string> verdicts;    // per entry of ranks
    bool timed = true;                    // every finding has a time
    std::string summary;
};

/// Orders the first findings and says where the NaN/Inf started: the earliest finding that
/// is not at a collective (a rank that produced it), else the earliest finding.
RankOverflowOrder orderRankFindings(std::vector<RankFirstFinding> firsts);

/// The rank a path names ("rank_3", "rank-3", "rank3", "rank.3", the last one), -1 if none.
int64_t rankFromPath(const std::string& path);

}  // namespace ts::debug
