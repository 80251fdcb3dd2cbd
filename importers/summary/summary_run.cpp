#include "importers/summary/summary_run.h"

#include <filesystem>

#include "core/common/json.h"
#include "core/store/delete_run.h"
#include "core/store/trace_store.h"

namespace ts::importers::summary_import {

namespace fs = std::filesystem;

Result<SummaryRunTarget> beginSummaryRun(store::TraceStore& store, const std::string& path,
                                         const std::string& kind, const std::string& runName) {
    SummaryRunTarget t;
    std::error_code ec;
    fs::path folder = fs::weakly_canonical(fs::absolute(path, ec).parent_path(), ec);
    const std::string folderText = folder.string();
    auto src = store.beginSource(path, kind);
    if (!src) return Error{src.error()};
    t.sourceId = src.value();
    auto q = store.db().prepare(
        "SELECT id, coalesce(name, '') FROM runs WHERE json_valid(config) AND "
        "json_extract(config, '$.summary_folder') = ?1 ORDER BY id DESC LIMIT 1");
    if (q.ok()) {
        q.bind(1, folderText);
        if (q.step()) {
            t.runId = q.int64(0);
            t.runName = q.text(1);
        }
    }
    if (!t.runId) {
        auto run =
            store.beginRun(runName, "{\"imported_from\":" + json::quote(kind) +
                                        ",\"summary_folder\":" + json::quote(folderText) +
                                        ",\"source_id\":" + std::to_string(t.sourceId) + "}");
        if (!run) {
            (void)store.deleteSource(t.sourceId);
            return Error{run.error()};
        }
        t.runId = run.value();
        t.runName = runName;
        t.createdRun = true;
    }
    t.scalarRowidBefore =
        store.db().queryInt("SELECT coalesce(max(rowid), 0) FROM scalars", 0).value();
    return t;
}

void discardSummaryRun(store::TraceStore& store, const SummaryRunTarget& t) {
    if (store.inTransaction()) (void)store.rollback();
    if (t.createdRun)
        (void)store::deleteRun(store, t.runId);
    else
        (void)store.db().exec("DELETE FROM scalars WHERE run_id=" + std::to_string(t.runId) +
                              " AND rowid > " + std::to_string(t.scalarRowidBefore) + ";");
    (void)store.deleteSource(t.sourceId);
}

void finishSummaryRun(store::TraceStore& store, const SummaryRunTarget& t,
                      const ImportReport& report) {
    if (!t.createdRun) return;
    (void)store.finishRun(t.runId,
                          report.status == store::SourceStatus::Failed
                              ? store::RunStatus::Failed
                              : store::RunStatus::Completed,
                          "imported from " + fs::path(report.path).filename().string());
}

void logImportProblems(store::TraceStore& store, int64_t sourceId,
                       const std::vector<std::pair<std::string, std::string>>& problems) {
    if (!sourceId || problems.empty()) return;
    auto q = store.db().prepare(
        "INSERT INTO import_log(source_id, key, byte_offset, phase, message) VALUES(?,?,?,?,?)");
    if (!q.ok()) return;
    for (const auto& [key, msg] : problems) {
        q.bind(1, sourceId).bind(2, key);
        long long offset = -1;
        if (msg.rfind("byte ", 0) == 0) offset = std::atoll(msg.c_str() + 5);
        if (offset >= 0)
            q.bind(3, static_cast<int64_t>(offset));
        else
            q.bindNull(3);
        q.bind(4, "import").bind(5, msg);
        (void)q.run();
    }
}

}  // namespace ts::importers::summary_import
