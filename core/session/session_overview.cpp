#include "core/session/session_overview.h"

#include "core/store/import_problems.h"

namespace ts::session {

int64_t SessionOverview::count(const std::string& table) const {
    for (const auto& c : counts)
        if (c.table == table) return c.rows;
    return 0;
}

int64_t SessionOverview::problemCount() const {
    int64_t n = 0;
    for (const auto& p : problems)
        if (!p.expected) n += p.count;
    return n;
}

int64_t SessionOverview::expectedSkipCount() const {
    int64_t n = 0;
    for (const auto& p : problems)
        if (p.expected) n += p.count;
    return n;
}

Result<std::vector<ImportProblemRecord>> readImportProblemRecords(const std::string& path,
                                                                  int64_t sourceId,
                                                                  const std::string& key,
                                                                  int64_t limit) {
    auto store = store::TraceStore::open(path, store::TraceStore::Mode::ReadOnly);
    if (!store) return Error{store.error()};
    store::Statement q = store.value()->db().prepare(
        "SELECT coalesce(byte_offset, -1), coalesce(phase, ''), coalesce(message, '') "
        "FROM import_log WHERE source_id = ? AND key = ? ORDER BY byte_offset, id LIMIT ?");
    q.bind(1, sourceId).bind(2, key).bind(3, limit);
    std::vector<ImportProblemRecord> out;
    while (q.step()) out.push_back({q.int64(0), q.text(1), q.text(2)});
    if (!q.error().empty()) return Error{q.error()};
    return out;
}

Result<SessionOverview> readOverview(const std::string& path) {
    auto store = store::TraceStore::open(path, store::TraceStore::Mode::ReadOnly);
    if (!store) return Error{store.error()};
    return readOverview(*store.value());
}

Result<SessionOverview> readOverview(store::TraceStore& store) {
    SessionOverview ov;
    ov.path = store.path();
    ov.schemaVersion = store.schemaVersion();
    auto sources = store.sources();
    if (!sources) return Error{sources.error()};
    ov.sources = std::move(sources.value());
    auto runs = store.runs();
    if (!runs) return Error{runs.error()};
    ov.runs = std::move(runs.value());
    auto counts = store.tableCounts();
    if (!counts) return Error{counts.error()};
    ov.counts = std::move(counts.value());
    ov.logs = ov.count("logs");
    ov.overflowFindings = ov.count("overflow_findings");

    store::SqliteDb& db = store.db();
    store::Statement p = db.prepare(
        "SELECT source_id, key, min(coalesce(byte_offset, -1)), min(coalesce(message, '')), "
        "count(*) FROM import_log GROUP BY source_id, key ORDER BY source_id, key");
    while (p.step()) {
        const std::string key = p.text(1);
        ov.problems.push_back({p.int64(0), key, p.int64(2), p.text(3), p.int64(4),
                               store::isExpectedSkip(key), store::explainImportKey(key)});
    }
    if (!p.error().empty()) return Error{p.error()};

    store::Statement d = db.prepare(
        "SELECT f.id, f.path, (SELECT count(*) FROM dump_tensors t WHERE t.dump_file_id=f.id) "
        "FROM dump_files f ORDER BY f.id");
    while (d.step()) ov.dumps.push_back({d.int64(0), d.text(1), d.int64(2)});
    if (!d.error().empty()) return Error{d.error()};

    store::Statement r = db.prepare(
        "SELECT id, path, coalesce(reason,''), coalesce(failing_op,'') FROM rdr_records "
        "ORDER BY id");
    while (r.step()) ov.rdr.push_back({r.int64(0), r.text(1), r.text(2), r.text(3)});
    if (!r.error().empty()) return Error{r.error()};
    return ov;
}

}  // namespace ts::session
