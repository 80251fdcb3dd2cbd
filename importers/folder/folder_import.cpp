#include "importers/folder/folder_import.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "core/common/json.h"
#include "core/debug/msdump/ms_dump.h"
#include "core/debug/overflow_store.h"
#include "core/debug/rdr/ms_rdr_reader.h"
#include "core/debug/rdr/rdr_reader.h"
#include "core/debug/rdr/rdr_store.h"
#include "core/store/trace_store.h"
#include "importers/ascend/ascend_files.h"
#include "importers/registry.h"

namespace ts::importers {

namespace fs = std::filesystem;

namespace {

constexpr size_t kMaxFiles = 200'000;
constexpr int kMaxDepth = 16;

// Kinds of the sources a folder registers itself (not through an importer of the registry).
constexpr const char* kRdr = "rdr";
constexpr const char* kMsRdr = "mindspore_rdr";
constexpr const char* kMsDump = "mindspore_dump";
constexpr const char* kHdf5Dump = "hdf5_dump";

bool hasHdf5Signature(const std::string& head) {
    return head.size() >= 8 && head.compare(0, 8, std::string("\x89HDF\r\n\x1a\n", 8)) == 0;
}

std::string rel(const fs::path& p, const fs::path& root) {
    std::error_code ec;
    const fs::path r = fs::relative(p, root, ec);
    return ec || r.empty() ? p.filename().string() : r.string();
}

/// True when `p` lies below folder `dir`.
bool isBelow(const fs::path& p, const fs::path& dir) {
    return p.string().rfind(dir.string() + "/", 0) == 0;
}

/// The run name of a file: its folder below the root ("run_1", "a/b"), or the root's name.
std::string runNameOf(const fs::path& file, const fs::path& root) {
    const std::string folder = rel(file.parent_path(), root);
    return folder.empty() || folder == "." ? root.filename().string() : folder;
}

/// The source row of what no importer of the registry reads (a dump, a crash-record folder);
/// a failed report with the error when `error` is set and nothing was read.
ImportReport registerItem(store::TraceStore& store, const std::string& path, const char* kind,
                          int64_t events, int64_t skipped, const std::string& skipReason,
                          const std::string& problem, const std::string& extraJson) {
    ImportReport r;
    r.path = path;
    r.kind = kind;
    auto src = store.beginSource(path, kind);
    if (!src) {
        r.error = src.error();
        return r;
    }
    r.sourceId = src.value();
    r.events = events;
    if (skipped > 0) {
        r.skipped = skipped;
        r.skippedReasons[skipReason] = skipped;
    }
    r.status = skipped > 0 || !problem.empty() ? store::SourceStatus::Partial
                                               : store::SourceStatus::Complete;
    r.error = problem;
    r.extraJson = extraJson;
    recordSource(store, r);
    return r;
}

ImportReport unreadable(const std::string& path, const char* kind, const std::string& error) {
    ImportReport r;
    r.path = path;
    r.kind = kind;
    r.error = error;
    return r;
}

/// Every file below `root`, depth first, in path order; symbolic links to folders are not
/// followed. `tooMany` when it stopped at kMaxFiles.
std::vector<fs::path> listFiles(const fs::path& root, bool& tooMany) {
    std::vector<fs::path> files;
    std::error_code ec;
    for (fs::recursive_directory_iterator
             it(root, fs::directory_options::skip_permission_denied, ec),
         end;
         !ec && it != end; it.increment(ec)) {
        if (it.depth() > kMaxDepth) {
            it.disable_recursion_pending();
            continue;
        }
        std::error_code e2;
        if (it->is_symlink(e2) && it->is_directory(e2)) {
            it.disable_recursion_pending();
            continue;
        }
        if (!it->is_regular_file(e2)) continue;
        if (files.size() >= kMaxFiles) {
            tooMany = true;
            break;
        }
        files.push_back(it->path());
    }
    std::sort(files.begin(), files.end());
    return files;
}

class FolderWalk {
public:
    FolderWalk(const fs::path& root, store::TraceStore& store, JobControl& control,
               BatchImport& out)
        : m_root(root), m_store(store), m_control(control), m_out(out) {}

    void run() {
        bool tooMany = false;
        m_files = listFiles(m_root, tooMany);
        m_control.setTotal(m_files.size());
        crashRecords();
        if (!m_control.cancelled()) msDumps();
        sessionFiles();
        profilerFolders();
        eachFile();
        if (tooMany)
            m_out.files.push_back(
                {m_root.string(), "", Fate::Skipped,
                 "more than " + std::to_string(kMaxFiles) + " files: the rest was not read", -1});
        for (auto& [_, f] : m_fate) m_out.files.push_back(std::move(f));
        std::sort(m_out.files.begin(), m_out.files.end(),
                  [](const FileFate& a, const FileFate& b) { return a.path < b.path; });
    }

private:
    void claim(const fs::path& p, const std::string& kind, Fate f, const std::string& detail,
               int report) {
        m_fate[p.string()] = FileFate{p.string(), kind, f, detail, report};
    }
    int add(ImportReport r) {
        m_out.reports.push_back(std::move(r));
        return static_cast<int>(m_out.reports.size()) - 1;
    }
    /// Every file directly in `dir` is part of report `idx`.
    void claimFolder(const fs::path& dir, const char* kind, int idx, const std::string& what) {
        const Fate f = fateOf(m_out.reports[static_cast<size_t>(idx)].status);
        for (const auto& file : m_files)
            if (file.parent_path() == dir) claim(file, kind, f, what + " " + rel(dir, m_root), idx);
    }

    // 1. Crash records: the studio's (rdr_index.json) and MindSpore's RDR folders.
    /// The folders that hold files and those above them up to the root, parents first.
    std::set<fs::path> folders() const {
        std::set<fs::path> dirs;
        for (const auto& f : m_files)
            for (fs::path d = f.parent_path(); dirs.insert(d).second && d != m_root;) {
                const fs::path up = d.parent_path();
                if (up == d) break;
                d = up;
            }
        return dirs;
    }

    void crashRecords() {
        std::set<fs::path> dirs;  // the folders that hold files
        for (const auto& f : m_files) dirs.insert(f.parent_path());
        for (const fs::path& d : dirs) {
            if (m_control.cancelled()) return;
            std::error_code ec;
            if (fs::exists(d / "rdr_index.json", ec))
                claimFolder(d, kRdr, add(studioRdr(d)), "part of the RDR export");
            else if (rdr::isMsRdrFolder(d.string()))
                claimFolder(d, kMsRdr, add(msRdr(d)), "part of the MindSpore RDR export");
        }
    }

    ImportReport studioRdr(const fs::path& d) {
        auto e = rdr::readRdrExport(d.string());
        if (!e) return unreadable(d.string(), kRdr, e.error());
        (void)rdr::insertRdrRecord(m_store, 0, e.value());
        return registerItem(m_store, e->folder, kRdr, static_cast<int64_t>(e->files.size()),
                            static_cast<int64_t>(e->problems.size()), "rdr_file_problem",
                            e->problems.empty() ? "" : e->problems.front(),
                            "{\"reason\":" + json::quote(e->reason) +
                                ",\"failing_op\":" + json::quote(e->failingOp) + "}");
    }

    ImportReport msRdr(const fs::path& d) {
        auto e = rdr::readMsRdrExport(d.string());
        if (!e) return unreadable(d.string(), kMsRdr, e.error());
        rdr::RdrRecordRow row;
        row.path = e->folder;
        row.reason = kMsRdr;
        for (const auto& f : e->failures)
            if (!f.op.empty()) {
                row.failingOp = f.op;
                break;
            }
        (void)rdr::insertRdrRow(m_store, row);
        std::map<std::string, int64_t> kinds;
        for (const auto& f : e->files) ++kinds[rdr::msRdrKindName(f.kind)];
        std::string k = "{";
        for (const auto& [name, n] : kinds)
            k += (k.size() > 1 ? "," : "") + json::quote(name) + ":" + std::to_string(n);
        k += "}";
        return registerItem(m_store, e->folder, kMsRdr, static_cast<int64_t>(e->files.size()),
                            static_cast<int64_t>(e->problems.size()), "rdr_file_problem",
                            e->problems.empty() ? "" : e->problems.front(),
                            "{\"rank\":" + std::to_string(e->rank) + ",\"failing_op\":" +
                                json::quote(row.failingOp) + ",\"kinds\":" + k + "}");
    }

    // 2. MindSpore dumps: one source per iteration folder; the rank's side folders with it.
    void msDumps() {
        auto tree = debug::msdump::scanTree(m_root.string());
        if (!tree) return;
        std::map<int, int> firstOfRank;  // rank -> report index
        for (const auto& ref : tree->iterations) {
            if (m_control.cancelled()) return;
            auto it = debug::msdump::readIteration(tree.value(), ref);
            const int idx =
                add(it ? msDump(ref, it.value()) : unreadable(ref.dir, kMsDump, it.error()));
            firstOfRank.emplace(ref.rank, idx);
            std::map<std::string, std::string> skippedWhy;
            if (it)
                for (const auto& s : it->skipped) skippedWhy[s.file] = s.reason;
            const Fate f = fateOf(m_out.reports[static_cast<size_t>(idx)].status);
            for (const auto& file : m_files) {
                if (file.parent_path() != fs::path(ref.dir)) continue;
                auto w = skippedWhy.find(file.string());
                if (w != skippedWhy.end())
                    claim(file, kMsDump, Fate::Skipped, w->second, idx);
                else
                    claim(file, kMsDump, f, "part of the dump " + rel(ref.dir, m_root), idx);
            }
        }
        // execution_order/, graphs/ and .dump_metadata/ of each rank belong to its dumps.
        for (const auto& f : m_files) {
            const std::string parent = f.parent_path().filename().string();
            if (parent != "execution_order" && parent != "graphs" && parent != ".dump_metadata")
                continue;
            const std::string rank = f.parent_path().parent_path().filename().string();
            const int r = rank.rfind("rank_", 0) == 0 ? std::atoi(rank.c_str() + 5) : 0;
            auto first = firstOfRank.find(r);
            if (first == firstOfRank.end() || m_fate.count(f.string())) continue;
            claim(f, kMsDump, Fate::Included, "side file of the rank's dumps (" + parent + ")",
                  first->second);
        }
    }

    ImportReport msDump(const debug::msdump::IterationRef& ref,
                        const debug::msdump::Iteration& it) {
        size_t npy = 0;
        for (const auto& t : it.tensors) npy += !t.file.empty();
        (void)debug::insertDumpFile(m_store, 0, ref.dir, ref.iteration);
        return registerItem(
            m_store, ref.dir, kMsDump, static_cast<int64_t>(it.tensors.size()),
            static_cast<int64_t>(it.skipped.size()), "dump_file_not_readable",
            it.problems.empty() ? "" : it.problems.front(),
            "{\"rank\":" + std::to_string(ref.rank) + ",\"net\":" + json::quote(ref.net) +
                ",\"graph_id\":" + std::to_string(ref.graphId) +
                ",\"iteration\":" + std::to_string(ref.iteration) + ",\"tensors\":" +
                std::to_string(it.tensors.size()) + ",\"npy_files\":" + std::to_string(npy) +
                ",\"statistics_only\":" + (it.statisticsOnly ? "true" : "false") + "}");
    }

    // The session being written (when it lives in the folder) is no input.
    void sessionFiles() {
        std::error_code ec;
        const fs::path self = fs::weakly_canonical(fs::absolute(m_store.path(), ec), ec);
        for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
            const fs::path p(self.string() + suffix);
            if (std::binary_search(m_files.begin(), m_files.end(), p))
                claim(p, "session", Fate::Skipped, "the session this folder is imported into", -1);
        }
    }

    // 3. Ascend's and MindSpore's profiler folders (ascend/ascend_files.h): such a folder
    // stands for the files of it the studio reads, imported traces first (the tables' times
    // sit on their axis), each with the registry's best importer. Every other file below it
    // is the profiler's own (its metadata, the raw PROF_* data the tables came from, whose
    // timelines repeat trace_view.json, its SQLite export): listed as skipped.
    void profilerFolders() {
        std::vector<fs::path> taken;  // profiler folders read, so that none inside is again
        for (const fs::path& d : folders()) {
            if (m_control.cancelled()) return;
            if (std::any_of(taken.begin(), taken.end(),
                            [&](const fs::path& t) { return isBelow(d, t); }))
                continue;
            const std::vector<std::string> files = ascend::ascendProfilerFiles(d.string());
            if (files.empty()) continue;
            taken.push_back(d);
            for (const std::string& f : files)
                if (!m_fate.count(f)) oneFile(f);
            const std::string what = "the profiler's own, below " + rel(d, m_root) + " (the " +
                                     std::to_string(files.size()) + " files read stand for it)";
            for (const fs::path& f : m_files) {
                if (m_fate.count(f.string()) || !isBelow(f, d)) continue;
                const bool db =
                    ascend::ascendFileKind(f.filename().string()) == ascend::AscendFile::ProfilerDb;
                claim(f, "ascend_profiler", Fate::Skipped,
                      db ? "the profiler's SQLite export: it repeats the text files read" : what,
                      -1);
            }
        }
    }

    // 4. Every other file, with the registry's best importer.
    void eachFile() {
        size_t done = 0;
        for (const fs::path& f : m_files) {
            m_control.setDone(++done);
            if (m_control.cancelled()) return;
            if (!m_fate.count(f.string())) oneFile(f);
        }
    }

    void oneFile(const fs::path& f) {
        const std::string path = f.string();
        const std::string name = f.filename().string();
        if (name.empty() || name[0] == '.') {
            claim(f, "", Fate::Skipped, "hidden file", -1);
            return;
        }
        const std::string head = readHead(path);
        ImportReport r;
        if (hasHdf5Signature(head)) {
            (void)debug::insertDumpFile(m_store, 0, path, -1);
            r = registerItem(m_store, path, kHdf5Dump, 0, 0, "", "",
                             "{\"note\":\"registered as a dump file: open it in the HDF5 view\"}");
        } else if (f.extension() == ".npy") {
            claim(f, "npy", Fate::Skipped,
                  "a .npy outside a MindSpore dump layout (rank_*/<net>/<graph>/<iteration>): "
                  "open the folder in the MindSpore dump view",
                  -1);
            return;
        } else if (const ImporterMatch best = bestImporter(path, head); best.importer) {
            ImportOptions o;
            o.runName = runNameOf(f, m_root);
            r = importWith(*best.importer, path, m_store, m_control, o);
            if (r.kind.empty()) r.kind = best.importer->name;
        } else {
            const std::string ext = f.extension().string();
            claim(f, "", Fate::Skipped,
                  "no importer reads this file" + (ext.empty() ? std::string() : " (" + ext + ")"),
                  -1);
            return;
        }
        std::string detail = r.error;
        if (r.skipped > 0) {
            std::string reasons;
            for (const auto& [k, n] : r.skippedReasons)
                reasons += (reasons.empty() ? "" : ", ") + k + " " + std::to_string(n);
            detail += (detail.empty() ? "" : "; ") + std::to_string(r.skipped) + " skipped (" +
                      reasons + ")";
        }
        const std::string kind = r.kind;
        const Fate fate = fateOf(r.status);
        claim(f, kind, fate, detail, add(std::move(r)));
    }

    const fs::path m_root;
    store::TraceStore& m_store;
    JobControl& m_control;
    BatchImport& m_out;
    std::vector<fs::path> m_files;
    std::map<std::string, FileFate> m_fate;  // path -> fate (files claimed so far)
};

}  // namespace

void importFolder(const std::string& dir, store::TraceStore& store, JobControl& control,
                  BatchImport& out) {
    std::error_code ec;
    const fs::path root = fs::weakly_canonical(fs::absolute(dir, ec), ec);
    out.folders.push_back(root.string());
    FolderWalk(root, store, control, out).run();
}

void discardFolderRows(store::TraceStore& store, const ImportReport& report) {
    if (!report.sourceId) return;
    const char* sql = nullptr;
    if (report.kind == kRdr || report.kind == kMsRdr)
        sql = "DELETE FROM rdr_records WHERE run_id IS NULL AND path = ?";
    else if (report.kind == kMsDump || report.kind == kHdf5Dump)
        sql = "DELETE FROM dump_files WHERE run_id = 0 AND path = ?";
    if (!sql) return;
    auto q = store.db().prepare(sql);
    if (q.ok()) (void)q.bind(1, report.path).run();
}

}  // namespace ts::importers
