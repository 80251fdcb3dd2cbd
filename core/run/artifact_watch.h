#pragma once
// ArtifactWatcher: the folders a command run watches (--watch, the profiler's folder, the
// crash-record folder). Each scan lists what appeared in them (recursively, a few levels
// deep) and says when a file is complete: its size and modification time have not changed
// for `settleNs` AND no process holds it open for writing (a writer that buffers, as the
// CUPTI collector does from CUDA's start to its first completed buffer, leaves an unchanged
// file for as long as it likes). A file that changes after it was reported is reported
// again with `again` set (its first import was of a part: the caller replaces it). Files
// whose name starts with '.' are someone's temporary files and are skipped. Used from one
// thread.
#include <cstdint>
#include <functional>
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
    /// Whether a file is still held open by a writer (heldOpenForWriting by default).
    using WriterCheck = std::function<bool(const std::string& path)>;

    explicit ArtifactWatcher(int64_t settleNs = 1'000'000'000, int maxDepth = 4,
                             WriterCheck writerCheck = {});

    /// Watches `dir` (it may not exist yet). Files already there when the run starts are
    /// not the run's: call snapshotExisting() before the command starts. `maxDepth` < 0:
    /// the watcher's own; 0 lists the folder's files only. `tracesOnly`: only traces and
    /// TensorBoard event files count there (a default folder such as the script's working
    /// folder, where an *.h5 is more likely a model's weights than a dump).
    void addFolder(const std::string& dir, int maxDepth = -1, bool tracesOnly = false);
    /// Remembers every file present now as not new.
    void snapshotExisting();

    struct Found {
        std::string path;
        ArtifactKind kind = ArtifactKind::Other;
        uint64_t size = 0;
        bool again = false;  // reported before and changed since
    };
    /// Files that appeared (or changed after they were reported) and are complete at `nowNs`.
    /// With `all` (the run has ended), every new or changed file is complete. TensorBoard
    /// files are reported once, as soon as they appear (they are tailed, not read once).
    std::vector<Found> scan(int64_t nowNs, bool all = false);
    /// Marks a file as handled by someone else (the Python package announced it): never
    /// reported, even when it changes.
    void markHandled(const std::string& path);
    const std::vector<std::string>& folders() const { return m_dirs; }

private:
    struct Seen {
        uint64_t size = 0;
        int64_t mtime = 0;
        int64_t changedAt = 0;
    };
    struct Folder {
        std::string path;
        int maxDepth = 0;
        bool tracesOnly = false;
    };
    void list(const Folder& f, const std::string& dir, int depth,
              std::vector<std::pair<std::string, Seen>>& out) const;
    void listAll(std::vector<std::pair<std::string, Seen>>& out) const;

    int64_t m_settleNs;
    int m_maxDepth;
    WriterCheck m_writerCheck;
    std::vector<std::string> m_dirs;  // paths of m_folders, in order
    std::vector<Folder> m_folders;
    std::map<std::string, Seen> m_pending;
    std::set<std::string> m_done;            // never reported (existing, handled, other)
    std::map<std::string, Seen> m_reported;  // reported as it was then
};

}  // namespace ts::run
