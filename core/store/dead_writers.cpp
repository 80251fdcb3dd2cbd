#include "core/store/dead_writers.h"

#include <signal.h>

#include <algorithm>
#include <cerrno>
#include <string>
#include <string_view>

#include "core/store/arg_chunk.h"

namespace ts::store {
namespace {

bool processAlive(int64_t pid) {
    if (pid <= 0) return false;
    return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

// One column's recovered value, as an SQL expression over the row (named by its table).
struct Recovered {
    std::string_view column;
    std::string value;
};

const std::string kSourceTracks = "(SELECT id FROM tracks WHERE source_id = sources.id)";
const std::string kCommittedSlices =
    "(SELECT coalesce(sum(count), 0) FROM slice_chunks WHERE track_id IN " + kSourceTracks + ")";

// The recovered state of a source, written by markDeadWriters and shown by showDeadWriters.
const std::vector<Recovered>& sourceRecovery() {
    static const std::vector<Recovered> r = {
        {"status", "'incomplete'"},
        {"error",
         "coalesce(error, 'the import was interrupted (its process was killed or crashed): the "
         "rows it committed are kept and counted; import the file again for all of it')"},
        {"slices", kCommittedSlices},
        {"events", kCommittedSlices + " + (SELECT count(*) FROM instants WHERE track_id IN " +
                       kSourceTracks + ") + (SELECT count(*) FROM counters WHERE track_id IN " +
                       kSourceTracks + ")"},
        {"skipped", "(SELECT count(*) FROM import_log WHERE source_id = sources.id)"},
        {"writer_pid", "NULL"},
    };
    return r;
}

// A run's last activity: the latest time anything of it was recorded (its start at least).
std::string lastActivity() {
    std::string e = "max(coalesce(started_at, 0)";
    for (const char* q :
         {"SELECT max(wall_time) FROM scalars", "SELECT max(ts) FROM logs",
          "SELECT max(ts) FROM overflow_findings", "SELECT max(created_at) FROM dump_files",
          "SELECT max(created_at) FROM rdr_records", "SELECT max(imported_at) FROM sources"})
        e += std::string(", coalesce((") + q + " WHERE run_id = runs.id), 0)";
    return e + ")";
}

const std::vector<Recovered>& runRecovery() {
    static const std::vector<Recovered> r = {
        {"status", "'interrupted'"},
        {"reason",
         "coalesce(nullif(reason, ''), 'interrupted: the process recording the run ended "
         "without closing it (killed or crashed); what it recorded before is kept')"},
        {"ended_at", "coalesce(ended_at, " + lastActivity() + ")"},
        {"writer_pid", "NULL"},
    };
    return r;
}

std::string idList(const std::vector<int64_t>& ids) {
    std::string s = "(";
    for (size_t i = 0; i < ids.size(); ++i) s += (i ? "," : "") + std::to_string(ids[i]);
    return s + ")";
}

Status update(SqliteDb& db, const char* table, const std::vector<Recovered>& rec,
              const std::vector<int64_t>& ids) {
    if (ids.empty()) return {};
    std::string sql = std::string("UPDATE ") + table + " SET ";
    for (size_t i = 0; i < rec.size(); ++i)
        sql += (i ? ", " : "") + std::string(rec[i].column) + " = " + rec[i].value;
    return db.exec(sql + " WHERE id IN " + idList(ids));
}

// CREATE TEMP VIEW <table> with the stored columns in their order, the recovered ones
// replaced for the rows in `ids`.
Status overlay(SqliteDb& db, const char* table, const std::vector<Recovered>& rec,
               const std::vector<int64_t>& ids) {
    if (ids.empty()) return {};
    Statement cols = db.prepare(std::string("PRAGMA main.table_info(") + table + ")");
    std::string select;
    while (cols.step()) {
        const std::string name = cols.text(1);
        auto it = std::find_if(rec.begin(), rec.end(),
                               [&](const Recovered& r) { return r.column == name; });
        select += select.empty() ? "" : ", ";
        if (it == rec.end())
            select += name;
        else
            select += "CASE WHEN id IN " + idList(ids) + " THEN " + it->value + " ELSE " + name +
                      " END AS " + name;
    }
    if (!cols.error().empty()) return Error{cols.error()};
    return db.exec(std::string("CREATE TEMP VIEW ") + table + " AS SELECT " + select +
                   " FROM main." + table + " AS " + table);
}

}  // namespace

Result<DeadWriters> findDeadWriters(SqliteDb& db) {
    DeadWriters dead;
    Statement q = db.prepare("SELECT id, writer_pid FROM sources WHERE status = 'importing'");
    while (q.step())
        if (!processAlive(q.int64(1))) dead.sources.push_back(q.int64(0));
    if (!q.error().empty()) return Error{q.error()};
    // Runs left 'running' by a process that is gone (or by a build that kept no pid).
    Statement r = db.prepare("SELECT id, writer_pid FROM runs WHERE status = 'running'");
    while (r.step())
        if (r.isNull(1) || !processAlive(r.int64(1))) dead.runs.push_back(r.int64(0));
    if (!r.error().empty()) return Error{r.error()};
    return dead;
}

Status markDeadWriters(SqliteDb& db, const DeadWriters& dead) {
    Status s = update(db, "sources", sourceRecovery(), dead.sources);
    if (s) s = update(db, "runs", runRecovery(), dead.runs);
    for (size_t i = 0; s && i < dead.sources.size(); ++i)
        s = removeUnreferencedArgs(db, dead.sources[i]);
    return s;
}

Status showDeadWriters(SqliteDb& db, const DeadWriters& dead) {
    if (auto s = overlay(db, "sources", sourceRecovery(), dead.sources); !s) return s;
    return overlay(db, "runs", runRecovery(), dead.runs);
}

Status removeUnreferencedArgs(SqliteDb& db, int64_t sourceId) {
    const std::string sid = std::to_string(sourceId);
    const std::string tracks = "(SELECT id FROM tracks WHERE source_id = " + sid + ")";
    std::vector<int64_t> used;
    Statement refs = db.prepare(
        "SELECT arg_set_id FROM slices WHERE track_id IN " + tracks +
        " AND arg_set_id IS NOT NULL UNION SELECT arg_set_id FROM instants WHERE track_id IN " +
        tracks + " AND arg_set_id IS NOT NULL");
    while (refs.step()) used.push_back(refs.int64(0));
    if (!refs.error().empty()) return Error{refs.error()};
    std::sort(used.begin(), used.end());
    // A chunk whose ids are all used stays; the used ids of any other are written again as
    // chunks of their own (ids need not follow each other across chunks) and it is deleted.
    struct Chunk {
        int64_t rowid, minId, count;
        std::string data;
    };
    std::vector<int64_t> drop;
    ArgChunkWriter rewrite(db, sourceId);
    Statement chunks =
        db.prepare("SELECT id, min_id, count, data FROM arg_chunks WHERE source_id = " + sid);
    std::vector<Chunk> partial;
    while (chunks.step()) {
        const int64_t lo = chunks.int64(1), n = chunks.int64(2);
        const auto from = std::lower_bound(used.begin(), used.end(), lo);
        const auto to = std::lower_bound(from, used.end(), lo + n);
        if (to - from == n) continue;
        drop.push_back(chunks.int64(0));
        if (to != from) partial.push_back({chunks.int64(0), lo, n, std::string(chunks.blob(3))});
    }
    if (!chunks.error().empty()) return Error{chunks.error()};
    for (const Chunk& c : partial) {
        ArgTexts texts;
        std::string why;
        if (!decodeArgChunk(c.data, texts, &why)) return Error{why};
        const auto from = std::lower_bound(used.begin(), used.end(), c.minId);
        for (auto it = from; it != used.end() && *it < c.minId + c.count; ++it) {
            const auto i = static_cast<size_t>(*it - c.minId);
            if (i < texts.count())
                if (auto s = rewrite.add(*it, texts.text(i)); !s) return s;
        }
        if (auto s = rewrite.flush(); !s) return s;
    }
    if (drop.empty()) return {};
    return db.exec("DELETE FROM arg_chunks WHERE id IN " + idList(drop));
}

}  // namespace ts::store
