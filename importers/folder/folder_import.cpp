#include "importers/folder/folder_import.h"

#include <rapidjson/document.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "core/common/text.h"
#include "core/debug/msdump/ms_dump.h"
#include "core/debug/overflow_store.h"
#include "core/debug/rdr/ms_rdr_reader.h"
#include "core/debug/rdr/rdr_reader.h"
#include "core/debug/rdr/rdr_store.h"
#include "core/store/trace_store.h"
#include "core/summary/lineage_file.h"
#include "core/summary/summary_event.h"
#include "importers/common/source_labels.h"
#include "importers/registry.h"
#include "importers/summary/summary_importer.h"

namespace ts::importers {

namespace fs = std::filesystem;

namespace {

bool hasHdf5Signature(const std::string& head) {
    return head.size() >= 8 && head.compare(0, 8, std::string("\x89HDF\r\n\x1a\n", 8)) == 0;
}

std::string rel(const fs::path& p, const fs::path& root) {
    std::error_code ec;
    const fs::path r = fs::relative(p, root, ec);
    return ec || r.empty() ? p.filename().string() : r.string();
}

/// The run name of a file: its folder below the root ("run_1", "a/b"), or the root's name.
std::string runNameOf(const fs::path& file, const fs::path& root) {
    const std::string folder = rel(file.parent_path(), root);
    return folder.empty() || folder == "." ? root.filename().string() : folder;
}

/// A source row for what is not imported by an Importer (a dump folder, an RDR export).
ImportReport registerItem(store::TraceStore& store, const std::string& path,
                          const std::string& kind, int64_t events, int64_t skipped,
                          const std::string& skipReason, const std::string& error,
                          const std::string& extraJson) {
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
    r.status = skipped > 0 || !error.empty() ? "partial" : "complete";
    r.error = error;
    r.extraJson = extraJson;
    recordSource(store, r);
    return r;
}

std::string fateOf(const ImportReport& r) {
    if (r.status == "complete") return "imported";
    if (r.status == "partial") return "partial";
    if (r.status == "cancelled") return "skipped";
    return "failed";
}

}  // namespace

std::vector<std::pair<std::string, int64_t>> FolderImport::fateCounts() const {
    std::map<std::string, int64_t> m;
    for (const auto& f : files) ++m[f.fate];
    return {m.begin(), m.end()};
}

FolderImport importFolder(const std::string& dir, store::TraceStore& store, JobControl& control,
                          const FolderImportOptions& o) {
    FolderImport out;
    std::error_code ec;
    const fs::path root = fs::weakly_canonical(fs::absolute(dir, ec), ec);
    out.root = root.string();
    if (!fs::is_directory(root, ec)) {
        ImportReport r;
        r.path = dir;
        r.error = "not a folder: " + dir;
        out.reports.push_back(r);
        return out;
    }
    const int64_t stringsBefore = store.maxStringId();
    std::vector<std::string> dumpRows, rdrRows;  // rows it added besides sources (for a cancel)

    // Every file, depth first, in name order; symbolic links to folders are not followed.
    std::vector<fs::path> files;
    bool tooMany = false;
    for (fs::recursive_directory_iterator
             it(root, fs::directory_options::skip_permission_denied, ec),
         end;
         !ec && it != end; it.increment(ec)) {
        if (it.depth() > o.maxDepth) {
            it.disable_recursion_pending();
            continue;
        }
        std::error_code e2;
        if (it->is_symlink(e2) && it->is_directory(e2)) {
            it.disable_recursion_pending();
            continue;
        }
        if (!it->is_regular_file(e2)) continue;
        if (files.size() >= o.maxFiles) {
            tooMany = true;
            break;
        }
        files.push_back(it->path());
    }
    std::sort(files.begin(), files.end());
    std::map<std::string, FileFate> fate;  // path -> fate (files claimed so far)
    auto claim = [&](const fs::path& p, const std::string& kind, const std::string& f,
                     const std::string& detail, int report) {
        fate[p.string()] = FileFate{p.string(), kind, f, detail, report};
    };
    control.setTotal(files.size());

    // 1. Crash records: the studio's (rdr_index.json) and MindSpore's RDR folders.
    std::set<fs::path> dirs;
    for (const auto& f : files) dirs.insert(f.parent_path());
    for (const fs::path& d : dirs) {
        if (control.cancelled()) break;
        std::error_code e2;
        if (fs::exists(d / "rdr_index.json", e2)) {
            auto e = rdr::readRdrExport(d.string());
            ImportReport r;
            if (!e) {
                r.path = d.string();
                r.kind = "rdr";
                r.error = e.error();
            } else {
                (void)rdr::insertRdrRecord(store, 0, e.value());
                rdrRows.push_back(e->folder);
                r = registerItem(store, d.string(), "rdr", static_cast<int64_t>(e->files.size()),
                                 static_cast<int64_t>(e->problems.size()), "rdr_file_problem",
                                 e->problems.empty() ? "" : e->problems.front(),
                                 "{\"reason\":" + jsonQuoted(e->reason) +
                                     ",\"failing_op\":" + jsonQuoted(e->failingOp) + "}");
            }
            out.reports.push_back(r);
            const int idx = static_cast<int>(out.reports.size()) - 1;
            for (const auto& f : files)
                if (f.parent_path() == d)
                    claim(f, "rdr", fateOf(r), "part of the RDR export " + rel(d, root), idx);
        } else if (rdr::isMsRdrFolder(d.string())) {
            auto e = rdr::readMsRdrExport(d.string());
            ImportReport r;
            if (!e) {
                r.path = d.string();
                r.kind = "mindspore_rdr";
                r.error = e.error();
            } else {
                std::string failing;
                for (const auto& f : e->failures)
                    if (!f.op.empty()) {
                        failing = f.op;
                        break;
                    }
                auto q = store.db().prepare(
                    "INSERT INTO rdr_records(run_id, path, reason, failing_op, created_at) "
                    "VALUES(NULL, ?, 'mindspore_rdr', ?, ?)");
                if (q.ok()) {
                    q.bind(1, e->folder).bind(3, store::nowNs());
                    if (failing.empty())
                        q.bindNull(2);
                    else
                        q.bind(2, failing);
                    (void)q.run();
                    rdrRows.push_back(e->folder);
                }
                std::map<std::string, int64_t> kinds;
                for (const auto& f : e->files) ++kinds[rdr::msRdrKindName(f.kind)];
                std::string k = "{";
                for (const auto& [name, n] : kinds)
                    k += (k.size() > 1 ? "," : "") + jsonQuoted(name) + ":" + std::to_string(n);
                k += "}";
                r = registerItem(
                    store, e->folder, "mindspore_rdr", static_cast<int64_t>(e->files.size()),
                    static_cast<int64_t>(e->problems.size()), "rdr_file_problem",
                    e->problems.empty() ? "" : e->problems.front(),
                    "{\"rank\":" + std::to_string(e->rank) +
                        ",\"failing_op\":" + jsonQuoted(failing) + ",\"kinds\":" + k + "}");
            }
            out.reports.push_back(r);
            const int idx = static_cast<int>(out.reports.size()) - 1;
            for (const auto& f : files)
                if (f.parent_path() == d)
                    claim(f, "mindspore_rdr", fateOf(r),
                          "part of the MindSpore RDR export " + rel(d, root), idx);
        }
    }

    // 2. MindSpore dumps: one source per iteration folder; the rank's side folders with it.
    if (auto tree = debug::msdump::scanTree(root.string()); tree && !control.cancelled()) {
        std::map<int, int> firstOfRank;  // rank -> report index
        for (const auto& ref : tree->iterations) {
            if (control.cancelled()) break;
            std::vector<std::string> order;
            if (auto f = tree->executionOrderFiles.find({ref.rank, ref.graphId});
                f != tree->executionOrderFiles.end())
                if (auto ord = debug::msdump::readExecutionOrder(f->second))
                    order = std::move(ord.value());
            auto it = debug::msdump::readIteration(ref.dir, order);
            ImportReport r;
            if (!it) {
                r.path = ref.dir;
                r.kind = "mindspore_dump";
                r.error = it.error();
            } else {
                size_t npy = 0;
                for (const auto& t : it->tensors) npy += !t.file.empty();
                (void)debug::insertDumpFile(store, 0, ref.dir, ref.iteration);
                dumpRows.push_back(ref.dir);
                r = registerItem(
                    store, ref.dir, "mindspore_dump", static_cast<int64_t>(it->tensors.size()),
                    static_cast<int64_t>(it->skipped.size()), "dump_file_not_readable",
                    it->problems.empty() ? "" : it->problems.front(),
                    "{\"rank\":" + std::to_string(ref.rank) + ",\"net\":" + jsonQuoted(ref.net) +
                        ",\"graph_id\":" + std::to_string(ref.graphId) +
                        ",\"iteration\":" + std::to_string(ref.iteration) +
                        ",\"tensors\":" + std::to_string(it->tensors.size()) +
                        ",\"npy_files\":" + std::to_string(npy) +
                        ",\"statistics_only\":" + (it->statisticsOnly ? "true" : "false") + "}");
            }
            out.reports.push_back(r);
            const int idx = static_cast<int>(out.reports.size()) - 1;
            firstOfRank.emplace(ref.rank, idx);
            const std::string label = rel(ref.dir, root);
            std::map<std::string, std::string> skippedWhy;
            if (it)
                for (const auto& s : it->skipped) skippedWhy[s.file] = s.reason;
            for (const auto& f : files)
                if (f.parent_path() == fs::path(ref.dir)) {
                    auto w = skippedWhy.find(f.string());
                    if (w != skippedWhy.end())
                        claim(f, "mindspore_dump", "skipped", w->second, idx);
                    else
                        claim(f, "mindspore_dump", fateOf(r), "part of the dump " + label, idx);
                }
        }
        // execution_order/, graphs/ and .dump_metadata/ of each rank belong to its dumps.
        for (const auto& f : files) {
            const std::string parent = f.parent_path().filename().string();
            if (parent != "execution_order" && parent != "graphs" && parent != ".dump_metadata")
                continue;
            const std::string rank = f.parent_path().parent_path().filename().string();
            const int r = rank.rfind("rank_", 0) == 0 ? std::atoi(rank.c_str() + 5) : 0;
            auto first = firstOfRank.find(r);
            if (first == firstOfRank.end() || fate.count(f.string())) continue;
            claim(f, "mindspore_dump", "included", "side file of the rank's dumps (" + parent + ")",
                  first->second);
        }
    }

    // The session being written (when it lives in the folder) is no input.
    const fs::path self = fs::weakly_canonical(fs::absolute(store.path(), ec), ec);
    for (const char* suffix : {"", "-wal", "-shm", "-journal"}) {
        const fs::path p(self.string() + suffix);
        if (std::find(files.begin(), files.end(), p) != files.end())
            claim(p, "session", "skipped", "the session this folder is imported into", -1);
    }

    // 3. Every other file, one by one.
    size_t done = 0;
    for (const fs::path& f : files) {
        control.setDone(++done);
        if (control.cancelled()) break;
        const std::string path = f.string();
        if (fate.count(path)) continue;
        const std::string name = f.filename().string();
        if (name.empty() || name[0] == '.') {
            claim(f, "", "skipped", "hidden file", -1);
            continue;
        }
        const std::string head = readHead(path);
        std::optional<summary::Dialect> dialect = summary::dialectOfName(name);
        ImportReport r;
        std::string kind;
        if (summary::isLineageFileName(name)) {
            kind = "mindspore_lineage";
            r = summary_import::importLineageFile(path, store, control, runNameOf(f, root));
        } else if (dialect) {
            summary_import::Options so;
            so.kind = *dialect == summary::Dialect::MindSpore ? "mindspore_summary" : "tfevents";
            so.dialect = dialect;
            so.runName = runNameOf(f, root);
            kind = so.kind;
            r = summary_import::importSummaryFile(path, store, control, so);
        } else if (hasHdf5Signature(head)) {
            kind = "hdf5_dump";
            (void)debug::insertDumpFile(store, 0, path, -1);
            dumpRows.push_back(path);
            r = registerItem(store, path, kind, 0, 0, "", "",
                             "{\"note\":\"registered as a dump file: open it in the HDF5 view\"}");
        } else if (f.extension() == ".npy") {
            claim(f, "npy", "skipped",
                  "a .npy outside a MindSpore dump layout (rank_*/<net>/<graph>/<iteration>): open "
                  "the folder in the MindSpore dump view",
                  -1);
            continue;
        } else {
            const Importer* best = nullptr;
            int bestScore = 0;
            for (const Importer& imp : importers()) {
                const int s = imp.sniff(path, head);
                if (s > bestScore) {
                    bestScore = s;
                    best = &imp;
                }
            }
            if (!best) {
                const std::string ext = f.extension().string();
                claim(f, "", "skipped",
                      "no importer reads this file" +
                          (ext.empty() ? std::string() : " (" + ext + ")"),
                      -1);
                continue;
            }
            kind = best->name;
            // Summary files sniffed by content still get their folder's run.
            if (kind == "mindspore_summary" || kind == "tfevents") {
                summary_import::Options so;
                so.kind = kind;
                so.runName = runNameOf(f, root);
                r = summary_import::importSummaryFile(path, store, control, so);
            } else {
                r = best->run(path, store, control);
            }
        }
        if (r.kind.empty()) r.kind = kind;
        out.reports.push_back(r);
        std::string detail = r.error;
        if (r.skipped > 0) {
            std::string reasons;
            for (const auto& [k, n] : r.skippedReasons)
                reasons += (reasons.empty() ? "" : ", ") + k + " " + std::to_string(n);
            detail += (detail.empty() ? "" : "; ") + std::to_string(r.skipped) + " skipped (" +
                      reasons + ")";
        }
        claim(f, kind, fateOf(r), detail, static_cast<int>(out.reports.size()) - 1);
    }
    if (tooMany)
        out.files.push_back(
            {root.string(), "", "skipped",
             "more than " + std::to_string(o.maxFiles) + " files: the rest was not read", -1});
    for (auto& [_, f] : fate) out.files.push_back(std::move(f));
    std::sort(out.files.begin(), out.files.end(),
              [](const FileFate& a, const FileFate& b) { return a.path < b.path; });

    if (control.cancelled()) {
        // As if it had not been asked: every source (and run) it added goes.
        out.cancelled = true;
        for (const auto& r : out.reports) {
            if (!r.sourceId) continue;
            rapidjson::Document d;
            d.Parse(r.extraJson.c_str());
            if (!d.HasParseError() && d.IsObject() && d.HasMember("created_run") &&
                d["created_run"].IsBool() && d["created_run"].GetBool() && d.HasMember("run_id") &&
                d["run_id"].IsInt64()) {
                const std::string run = std::to_string(d["run_id"].GetInt64());
                (void)store.db().exec("DELETE FROM scalars WHERE run_id=" + run +
                                      ";DELETE FROM summary_values WHERE run_id=" + run +
                                      ";DELETE FROM run_params WHERE run_id=" + run +
                                      ";DELETE FROM runs WHERE id=" + run + ";");
            }
            (void)store.deleteSource(r.sourceId);
        }
        for (const std::string& p : dumpRows) {
            auto q = store.db().prepare("DELETE FROM dump_files WHERE run_id = 0 AND path = ?");
            if (q.ok()) (void)q.bind(1, p).run();
        }
        for (const std::string& p : rdrRows) {
            auto q =
                store.db().prepare("DELETE FROM rdr_records WHERE run_id IS NULL AND path = ?");
            if (q.ok()) (void)q.bind(1, p).run();
        }
        (void)store.discardUnusedStringsAbove(stringsBefore);
        return out;
    }
    (void)labelProcessesBySource(store);
    return out;
}

}  // namespace ts::importers
