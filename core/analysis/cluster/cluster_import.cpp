#include "core/analysis/cluster/cluster_import.h"

#include <atomic>
#include <filesystem>
#include <mutex>
#include <thread>

#include "core/analysis/cluster/rank_summary.h"
#include "core/store/trace_store.h"

namespace ts::analysis {

Result<std::vector<std::string>> importRankTraces(
    const std::vector<std::vector<std::string>>& groups, const std::string& dir, int threads,
    const TraceImportFn& importOne, JobControl* job) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return Error{dir + ": " + ec.message()};
    std::vector<std::string> sessions(groups.size());
    for (size_t i = 0; i < groups.size(); ++i) {
        if (groups[i].empty()) return Error{"an empty group of traces"};
        sessions[i] =
            (fs::path(dir) / (std::to_string(i) + "." +
                              fs::path(groups[i].front()).filename().string() + ".tscope"))
                .string();
    }
    if (job) job->setTotal(groups.size());
    std::atomic<size_t> next{0};
    std::atomic<bool> stop{false};
    std::mutex lock;
    std::string error;
    auto worker = [&] {
        for (size_t i = next++; i < groups.size() && !stop; i = next++) {
            JobControl own;  // per import; the caller's job cancels between files
            std::string failure;
            if (job && job->cancelled()) {
                failure = "cancelled";
            } else {
                auto s = store::TraceStore::open(sessions[i], store::TraceStore::Mode::Create);
                if (!s) failure = sessions[i] + ": " + s.error();
                for (size_t f = 0; s && failure.empty() && f < groups[i].size(); ++f)
                    if (Status st = importOne(groups[i][f], *s.value(), own); !st)
                        failure = groups[i][f] + ": " + st.error();
                // The rank's summary, while its session is open: a rank the analysis cannot
                // measure gets none and says why when the cluster is analysed.
                if (s && failure.empty())
                    (void)summarizeSessionRanks(*s.value(), sessions[i], &own);
            }
            if (!failure.empty()) {
                std::lock_guard g(lock);
                if (error.empty()) error = failure;
                stop = true;
                break;
            }
            if (job) job->addDone(1);
        }
    };
    const int n = std::max(1, std::min<int>(threads, static_cast<int>(groups.size())));
    std::vector<std::thread> pool;
    for (int t = 1; t < n; ++t) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
    if (!error.empty()) return Error{error};
    return sessions;
}

}  // namespace ts::analysis
