#include "core/analysis/cluster_import.h"

#include <atomic>
#include <filesystem>
#include <mutex>
#include <thread>

#include "core/store/trace_store.h"

namespace ts::analysis {

Result<std::vector<std::string>> importRankTraces(const std::vector<std::string>& files,
                                                  const std::string& dir, int threads,
                                                  const TraceImportFn& importOne, JobControl* job) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) return Error{dir + ": " + ec.message()};
    std::vector<std::string> sessions(files.size());
    for (size_t i = 0; i < files.size(); ++i)
        sessions[i] = (fs::path(dir) / (std::to_string(i) + "." +
                                        fs::path(files[i]).filename().string() + ".tscope"))
                          .string();
    if (job) job->setTotal(files.size());
    std::atomic<size_t> next{0};
    std::atomic<bool> stop{false};
    std::mutex lock;
    std::string error;
    auto worker = [&] {
        for (size_t i = next++; i < files.size() && !stop; i = next++) {
            JobControl own;  // per import; the caller's job cancels between files
            std::string failure;
            if (job && job->cancelled()) {
                failure = "cancelled";
            } else {
                auto s = store::TraceStore::open(sessions[i], store::TraceStore::Mode::Create);
                if (!s) {
                    failure = sessions[i] + ": " + s.error();
                } else if (Status st = importOne(files[i], *s.value(), own); !st) {
                    failure = files[i] + ": " + st.error();
                }
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
    const int n = std::max(1, std::min<int>(threads, static_cast<int>(files.size())));
    std::vector<std::thread> pool;
    for (int t = 1; t < n; ++t) pool.emplace_back(worker);
    worker();
    for (auto& t : pool) t.join();
    if (!error.empty()) return Error{error};
    return sessions;
}

}  // namespace ts::analysis
