#pragma once
// A rank's summary stored in its session (table rank_summaries, schema v9): the RankProfile
// analyzeRank measures from the slices, before matchCollectives, so a cluster of N sessions
// reads N small rows instead of every slice. A summary is current while the rank's sources
// are as they were when it was computed (rankFingerprint); otherwise it is stale and measured
// again. docs/DISTRIBUTED.md, "A 1,024-rank job". No Qt.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/analysis/cluster/cluster_rank.h"
#include "core/common/job_control.h"
#include "core/common/result.h"

namespace ts::store {
class TraceStore;
}

namespace ts::analysis {

/// Bumped whenever what analyzeRank measures or how it is encoded changes: summaries of an
/// older version are stale.
inline constexpr int kRankSummaryVersion = 1;

/// Whether `input` can have a stored summary: a rank of known sources whose figures come
/// from slices (msprof-analyze's table ranks are read from that small table directly).
bool rankSummarizable(const RankInput& input);

/// The rank's profile fields, varint-coded (everything but `input`, which the reader
/// supplies). Doubles are kept bit for bit.
std::string encodeRankProfile(const RankProfile& profile);
/// The profile `data` holds, with `input`; an error when `data` is damaged.
Result<RankProfile> decodeRankProfile(std::string_view data, const RankInput& input);

/// What the rank's sources are now: their rows in `sources`, the count and last id of their
/// tracks, slice chunks and argument chunks, and kRankSummaryVersion. Reads no slice.
Result<std::string> rankFingerprint(store::TraceStore& store, const RankInput& input);

/// The stored summary of `input` when there is one and it is current; nullopt when the
/// session has none (older schema, never computed) or it is stale.
Result<std::optional<RankProfile>> loadRankSummary(store::TraceStore& store,
                                                   const RankInput& input);

/// A computed rank: its input and its encoded profile (encodeRankProfile).
struct EncodedRank {
    RankInput input;
    std::string data;
};
/// Writes the summaries of `ranks` (all of one session, opened writable) in one transaction,
/// each with the fingerprint its sources have now.
Status saveRankSummaries(store::TraceStore& store, const std::vector<EncodedRank>& ranks);

/// Measures every rank of the session `store` (ranksOfSession) and stores its summary: what
/// importRankTraces does after importing a rank. Returns the number of ranks summarised.
Result<size_t> summarizeSessionRanks(store::TraceStore& store, const std::string& sessionPath,
                                     JobControl* job = nullptr);

}  // namespace ts::analysis
