#include "core/analysis/cluster/cluster_analysis.h"

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "core/analysis/cluster/cluster_input.h"
#include "core/analysis/cluster/rank_summary.h"
#include "core/store/trace_store.h"

namespace ts::analysis {

namespace {

/// Stores the summaries of the ranks measured from slices, one transaction per session.
/// Best effort: a session that cannot be opened for writing keeps no summary.
void storeSummaries(const std::vector<RankInput>& ranks, std::vector<std::string>& encoded) {
    std::map<std::string, std::vector<EncodedRank>> bySession;
    for (size_t i = 0; i < ranks.size(); ++i)
        if (!encoded[i].empty())
            bySession[ranks[i].sessionPath].push_back({ranks[i], std::move(encoded[i])});
    for (auto& [path, list] : bySession) {
        auto s = store::TraceStore::open(path, store::TraceStore::Mode::ReadWrite);
        if (s) (void)saveRankSummaries(*s.value(), list);
    }
}

}  // namespace

Result<ClusterSummary> analyzeCluster(std::vector<RankInput> ranks, int threads, JobControl* job,
                                      RankSummaries summaries) {
    if (ranks.empty()) return Error{"no rank to analyse"};
    assignMissingRanks(ranks);
    if (job) job->setTotal(ranks.size());
    std::vector<RankProfile> profiles(ranks.size());
    std::vector<std::string> encoded(ranks.size());  // summaries to store
    std::atomic<size_t> fromSummaries{0};
    std::atomic<size_t> next{0};
    std::atomic<bool> stop{false};
    std::mutex errorLock;
    std::string error;
    auto worker = [&] {
        // One session open per thread at a time (a session's ranks come one after another):
        // 1,024 sessions held open at once kept each connection's page cache alive.
        std::string openPath;
        std::unique_ptr<store::TraceStore> store;
        for (size_t i = next++; i < ranks.size() && !stop; i = next++) {
            if (job && job->cancelled()) {
                stop = true;
                break;
            }
            const RankInput& in = ranks[i];
            if (in.sessionPath != openPath) {
                store.reset();
                openPath = in.sessionPath;
            }
            std::string failure;
            if (!store) {
                auto s = store::TraceStore::open(in.sessionPath, store::TraceStore::Mode::ReadOnly);
                if (s)
                    store = std::move(s.value());
                else
                    failure = in.sessionPath + ": " + s.error();
            }
            bool done = false;
            if (failure.empty() && summaries != RankSummaries::Ignore) {
                auto stored = loadRankSummary(*store, in);  // an error: measure it instead
                if (stored && stored.value()) {
                    profiles[i] = std::move(*stored.value());
                    ++fromSummaries;
                    done = true;
                }
            }
            if (failure.empty() && !done) {
                auto p = analyzeRank(*store, in, job);
                if (p) {
                    if (summaries == RankSummaries::Use && rankSummarizable(in))
                        encoded[i] = encodeRankProfile(p.value());
                    profiles[i] = std::move(p.value());
                } else
                    failure =
                        "rank " + std::to_string(in.rank) + " (" + in.label + "): " + p.error();
            }
            if (!failure.empty()) {
                std::lock_guard lock(errorLock);
                if (error.empty()) error = failure;
                stop = true;
                break;
            }
            if (job) job->addDone(1);
        }
    };
    const int n = std::max(1, std::min<int>(threads, static_cast<int>(ranks.size())));
    std::vector<std::thread> pool;
    for (int t = 1; t < n; ++t) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
    if (job && job->cancelled()) return Error{"cancelled"};
    if (!error.empty()) return Error{error};
    if (summaries == RankSummaries::Use) storeSummaries(ranks, encoded);
    matchCollectives(profiles);
    ClusterSummary out = summarizeCluster(std::move(profiles));
    out.ranksFromSummaries = fromSummaries;
    return out;
}

Result<ClusterSummary> analyzeClusterPaths(const std::vector<std::string>& paths, int threads,
                                           JobControl* job, RankSummaries summaries) {
    std::vector<std::string> warnings;
    auto ranks = ranksOfPaths(paths, &warnings);
    if (!ranks) return Error{ranks.error()};
    auto summary = analyzeCluster(std::move(ranks.value()), threads, job, summaries);
    if (!summary) return summary;
    auto& w = summary.value().warnings;
    w.insert(w.begin(), warnings.begin(), warnings.end());
    return summary;
}

}  // namespace ts::analysis
