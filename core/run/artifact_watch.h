#pragma once
// ArtifactWatcher: the folders a command run watches (--watch, the profiler's folder, the
// crash-record folder). Each scan lists what appeared in them (recursively, a few levels
// deep) and says when a file is complete: its size and modification time have not changed
// for `settleNs` (a writer that pauses longer than that is read too early; the Python
// package avoids it by renaming finished traces into place). Files whose name starts with
// '.' are someone's temporary files and are skipped. Used from one thread.
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace ts::run {

enum class ArtifactKind {
    Trace,     // *.json, *.json.gz (Chrome / Kineto / msprof / MindSpore timelines)
    Nsys,      // *.sqlite (Nsight Systems export)
    Cuda,      // *.tscupti (the CUPTI collector's activity file, docs/GPU.md)
    Hdf5,      // *.h5, *.hdf5 (tensor dumps)
    TfEvents,  // events.out.tfevents.* (TensorBoard) and events.summary.*_MS (MindSpore):
               // tailed as they grow, not imported once
    Rdr,       // rdr_index.json (a crash-record folder is complete when its index is)
    Other,
};
ArtifactKind classifyArtifact(const std::string& path);
std::string_view artifactKindName(ArtifactKind k);

class ArtifactWatcher {
public:
    explicit ArtifactWatcher(int64_t settleNs = 1'000'000'000, int maxDepth = 4)
        : m_settleNs(settleNs), m_maxDepth(maxDepth) {}

    /// Watches `dir` (it may not exist yet). Files already there when the run starts are
    /// not the run's: call snapshotExisting() before the command starts.
    void addFolder(const std::string& dir);
    /// Remembers every file present now as not new.
    void snapshotExisting();

    struct Found {
        std::string path;
        ArtifactKind kind = ArtifactKind::Other;
        uint64_t size = 0;
    };
    /// Files that appeared and are complete at `nowNs` (each reported once). With `all`
    /// (the run has ended), every new file is complete. TensorBoard files are reported as
    /// soon as they appear (they are tailed, not read once).
    std::vector<Found> scan(int64_t nowNs, bool all = false);
    /// Marks a file as handled by someone else (the Python package announced it).
    void markHandled(const std::string& path);
    const std::vector<std::string>& folders() const { return m_dirs; }

private:
    struct Seen {
        uint64_t size = 0;
        int64_t mtime = 0;
        int64_t changedAt = 0;
    };
    void list(const std::string& dir, int depth,
              std::vector<std::pair<std::string, Seen>>& out) const;

    int64_t m_settleNs;
    int m_maxDepth;
    std::vector<std::string> m_dirs;
    std::map<std::string, Seen> m_pending;
    std::set<std::string> m_done;
};

}  // namespace ts::run
