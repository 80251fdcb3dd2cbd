#include "core/run/artifact_watch.h"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>

#include "core/run/open_writers.h"

namespace ts::run {
namespace {

namespace fs = std::filesystem;

bool endsWith(const std::string& s, std::string_view suffix) {
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::string canonical(const std::string& p) {
    std::error_code ec;
    fs::path c = fs::weakly_canonical(p, ec);
    return ec ? p : c.string();
}

}  // namespace

ArtifactKind classifyArtifact(const std::string& path) {
    const std::string name = fs::path(path).filename().string();
    // TensorBoard event files and MindSpore summary files (SummaryRecord / SummaryCollector:
    // events.summary.<time>.<host>_MS) are tailed as they grow; lineage files are not.
    if (name.rfind("events.out.tfevents.", 0) == 0 ||
        (name.rfind("events.summary.", 0) == 0 && !endsWith(name, "_lineage")))
        return ArtifactKind::TfEvents;
    if (name == "rdr_index.json") return ArtifactKind::Rdr;
    if (endsWith(name, ".json") || endsWith(name, ".json.gz")) return ArtifactKind::Trace;
    if (endsWith(name, ".sqlite")) return ArtifactKind::Nsys;
    if (endsWith(name, ".tscupti")) return ArtifactKind::Cuda;
    if (endsWith(name, ".h5") || endsWith(name, ".hdf5")) return ArtifactKind::Hdf5;
    return ArtifactKind::Other;
}

std::string_view artifactKindName(ArtifactKind k) {
    switch (k) {
        case ArtifactKind::Trace:
            return "trace";
        case ArtifactKind::Nsys:
            return "nsys";
        case ArtifactKind::Cuda:
            return "cuda";
        case ArtifactKind::Hdf5:
            return "hdf5";
        case ArtifactKind::TfEvents:
            return "tfevents";
        case ArtifactKind::Rdr:
            return "rdr";
        case ArtifactKind::Other:
            break;
    }
    return "other";
}

ArtifactWatcher::ArtifactWatcher(int64_t settleNs, int maxDepth, WriterCheck writerCheck)
    : m_settleNs(settleNs),
      m_maxDepth(maxDepth),
      m_writerCheck(writerCheck ? std::move(writerCheck) : WriterCheck(heldOpenForWriting)) {}

void ArtifactWatcher::addFolder(const std::string& dir, int maxDepth, bool tracesOnly) {
    const std::string c = canonical(dir);
    const int depth = maxDepth < 0 ? m_maxDepth : maxDepth;
    for (Folder& f : m_folders)
        if (f.path == c) {  // watched already: the deeper and wider of the two
            f.maxDepth = std::max(f.maxDepth, depth);
            f.tracesOnly = f.tracesOnly && tracesOnly;
            return;
        }
    m_folders.push_back({c, depth, tracesOnly});
    m_dirs.push_back(c);
}

void ArtifactWatcher::listAll(std::vector<std::pair<std::string, Seen>>& out) const {
    for (const Folder& f : m_folders) list(f, f.path, 0, out);
}

void ArtifactWatcher::list(const Folder& f, const std::string& dir, int depth,
                           std::vector<std::pair<std::string, Seen>>& out) const {
    std::error_code ec;
    fs::directory_iterator it(dir, fs::directory_options::skip_permission_denied, ec);
    if (ec) return;
    for (const fs::directory_entry& e : it) {
        const std::string name = e.path().filename().string();
        if (name.empty() || name[0] == '.') continue;
        std::error_code ec2;
        if (e.is_directory(ec2)) {
            if (depth < f.maxDepth) list(f, e.path().string(), depth + 1, out);
            continue;
        }
        if (!e.is_regular_file(ec2)) continue;
        if (f.tracesOnly) {
            const ArtifactKind k = classifyArtifact(name);
            if (k != ArtifactKind::Trace && k != ArtifactKind::Nsys && k != ArtifactKind::TfEvents)
                continue;
        }
        struct stat st {};
        if (::stat(e.path().c_str(), &st) != 0) continue;
        Seen s;
        s.size = static_cast<uint64_t>(st.st_size);
        s.mtime = static_cast<int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
        out.emplace_back(e.path().lexically_normal().string(), s);
    }
}

void ArtifactWatcher::snapshotExisting() {
    std::vector<std::pair<std::string, Seen>> files;
    listAll(files);
    for (const auto& f : files) m_done.insert(f.first);
}

void ArtifactWatcher::markHandled(const std::string& path) {
    const std::string c = canonical(path);
    m_done.insert(c);
    m_pending.erase(c);
    m_reported.erase(c);
}

std::vector<ArtifactWatcher::Found> ArtifactWatcher::scan(int64_t nowNs, bool all) {
    std::vector<std::pair<std::string, Seen>> files;
    listAll(files);
    std::vector<Found> out;
    for (auto& [path, now] : files) {
        if (m_done.count(path)) continue;
        const ArtifactKind kind = classifyArtifact(path);
        if (kind == ArtifactKind::Other) {
            m_done.insert(path);
            continue;
        }
        auto rep = m_reported.find(path);
        const bool again = rep != m_reported.end();
        if (again) {
            if (kind == ArtifactKind::TfEvents) continue;  // tailed by the caller
            if (rep->second.size == now.size && rep->second.mtime == now.mtime) continue;
        }
        auto it = m_pending.find(path);
        if (it == m_pending.end()) {
            now.changedAt = nowNs;
            it = m_pending.emplace(path, now).first;
        } else if (it->second.size != now.size || it->second.mtime != now.mtime) {
            now.changedAt = nowNs;
            it->second = now;
        }
        const bool settled = kind == ArtifactKind::TfEvents ||
                             (nowNs - it->second.changedAt >= m_settleNs && !m_writerCheck(path));
        if (all || settled) {
            out.push_back({path, kind, now.size, again});
            m_reported[path] = now;
            m_pending.erase(it);
        }
    }
    return out;
}

}  // namespace ts::run
