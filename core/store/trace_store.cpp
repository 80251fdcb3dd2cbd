#include "core/store/trace_store.h"

#include <sqlite3.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/common/clock.h"
#include "core/log/logger.h"
#include "core/store/dead_writers.h"
#include "core/store/schema.h"

namespace ts::store {

namespace {

constexpr std::string_view kApplication = "trainscope";

// Returns "" when the file is absent or empty, else its first 16 bytes.
std::string fileHeader(const std::string& path, bool* exists) {
    std::ifstream in(path, std::ios::binary);
    *exists = static_cast<bool>(in);
    char buf[16] = {};
    in.read(buf, sizeof buf);
    return std::string(buf, static_cast<size_t>(in.gcount()));
}

}  // namespace

const std::vector<std::string>& TraceStore::dataTables() {
    static const std::vector<std::string> tables = {
        "sources",     "processes",    "threads",      "tracks",
        "slices",      "instants",     "counters",     "flows",
        "args",        "import_log",   "runs",         "scalars",
        "logs",        "dump_files",   "dump_tensors", "overflow_findings",
        "rdr_records", "stack_frames", "clock_syncs",  "summary_values",
        "run_params"};
    return tables;
}

namespace {

// Why a session could not be opened or recovered, in words that fit the cause: a full disk or
// read-only media is not damage (the file passes its integrity check).
std::string openFailure(const std::string& path, SqliteDb& db, const std::string& error) {
    const int code = db.lastErrorCode() & 0xff;
    if (code == SQLITE_FULL || isDiskFull(error))
        return "cannot write session '" + path + "': the disk is full (" + error +
               "); free space and try again, the session itself is intact";
    if (code == SQLITE_READONLY || code == SQLITE_CANTOPEN || code == SQLITE_PERM)
        return "cannot open session '" + path + "': " + error +
               " (read-only media or permissions; reading it needs no write)";
    if (code == SQLITE_IOERR) return "cannot open session '" + path + "': I/O error: " + error;
    return "damaged session '" + path + "': " + error;
}

// A read-only open that SQLite refuses because nothing beside the file can be created (a WAL
// session on read-only media: no -shm): read it immutable, unless a journal with committed
// pages is there, which an immutable read would not see.
bool readOnlyMediaRefusal(int code) {
    const int primary = code & 0xff;
    return primary == SQLITE_READONLY || primary == SQLITE_CANTOPEN;
}

}  // namespace

Result<std::unique_ptr<TraceStore>> TraceStore::open(const std::string& path, Mode mode) {
    bool exists = false;
    const std::string header = fileHeader(path, &exists);
    if (!exists && mode != Mode::Create) return Error{"no such session file: " + path};
    const bool fresh = header.empty();
    if (!fresh && header != kSqliteHeader)
        return Error{"not a TrainScope session: '" + path + "' is not an SQLite database"};
    if (fresh && mode == Mode::ReadOnly) return Error{"session file is empty: " + path};

    std::unique_ptr<TraceStore> store(new TraceStore);
    store->m_path = path;
    const auto dbMode = mode == Mode::ReadOnly ? SqliteDb::Mode::ReadOnly
                        : fresh                ? SqliteDb::Mode::Create
                                               : SqliteDb::Mode::ReadWrite;
    auto db = SqliteDb::open(path, dbMode);
    if (!db) return Error{db.error()};
    store->m_db = std::move(db.value());
    SqliteDb& d = store->m_db;

    auto version = d.queryInt("PRAGMA user_version");
    if (!version && mode == Mode::ReadOnly && readOnlyMediaRefusal(d.lastErrorCode())) {
        std::error_code ec;
        if (std::filesystem::file_size(path + "-wal", ec) > 0 && !ec)
            return Error{"cannot read session '" + path + "' on read-only media: its journal (" +
                         path +
                         "-wal) holds changes that need a writable folder to be read; open it "
                         "once where it can be written"};
        auto immutable = SqliteDb::open(path, SqliteDb::Mode::Immutable);
        if (!immutable) return Error{immutable.error()};
        store->m_db = std::move(immutable.value());
        version = d.queryInt("PRAGMA user_version");
    }
    if (!version) return Error{openFailure(path, d, version.error())};
    store->m_version = static_cast<int>(version.value());
    if (store->m_version > currentSchemaVersion()) {
        return Error{"session '" + path + "' was written by a newer TrainScope (schema v" +
                     std::to_string(store->m_version) + "; this build reads up to v" +
                     std::to_string(currentSchemaVersion()) + "); it was left untouched"};
    }
    if (store->m_version == 0) {
        auto tables = d.queryInt("SELECT count(*) FROM sqlite_master");
        if (!tables) return Error{openFailure(path, d, tables.error())};
        if (tables.value() != 0)
            return Error{"not a TrainScope session: '" + path +
                         "' is an SQLite database of another application"};
        if (mode == Mode::ReadOnly) return Error{"session file is empty: " + path};
    } else {
        auto app = d.prepare("SELECT value FROM meta WHERE key='application'");
        if (!app.ok() || !app.step() || app.textView(0) != kApplication) {
            const std::string why = app.error().empty() ? "no TrainScope marker" : app.error();
            return Error{"not a TrainScope session: '" + path + "' (" + why + ")"};
        }
    }

    if (fresh) d.exec("PRAGMA page_size=16384");  // before the first table: fewer, larger pages
    if (!store->readOnly()) {
        // WAL, synced at checkpoints: a commit survives a killed process at once and a power
        // loss once checkpointed, and a power loss never leaves a damaged file (docs/SCHEMA.md).
        if (auto s = d.exec("PRAGMA journal_mode=WAL; PRAGMA synchronous=NORMAL;"); !s)
            return Error{openFailure(path, d, s.error())};
    }
    // Read-only connections keep temporary tables and sorts on disk (user SQL may build big
    // ones) and never change it again (that would drop the views of showDeadWriters).
    d.exec(store->readOnly()
               ? "PRAGMA cache_size=-262144; PRAGMA temp_store=FILE; PRAGMA threads=2;"
               : "PRAGMA cache_size=-262144; PRAGMA temp_store=MEMORY; PRAGMA "
                 "threads=2;");

    if (store->m_version < currentSchemaVersion()) {
        if (store->readOnly()) {
            // Upgrade through a short-lived writable connection, then read on.
            auto rw = open(path, Mode::ReadWrite);
            if (!rw) return Error{rw.error()};
            rw.value().reset();
            return open(path, Mode::ReadOnly);
        }
        const int64_t from = store->m_version;
        if (auto s = store->migrate(); !s)
            return Error{"cannot upgrade session '" + path + "': " + s.error()};
        if (!fresh)
            TS_LOG(STORE, INFO) << "upgraded session " << path << " from schema v" << from
                                << " to v" << currentSchemaVersion();
    }
    if (auto s = store->recoverDeadWriters(); !s) return Error{openFailure(path, d, s.error())};
    if (!store->readOnly())
        if (auto s = store->buildIndexes(); !s && !isDiskFull(s.error()))
            return Error{openFailure(path, d, s.error())};
    // Touch the main table so a damaged file fails here, not in the first view.
    if (auto n = d.queryInt("SELECT count(*) FROM sources"); !n)
        return Error{openFailure(path, d, n.error())};
    TS_LOG(STORE, DEBUG) << "opened session " << path
                         << (store->readOnly() ? " read-only" : " read-write");
    return store;
}

Status TraceStore::migrate() {
    if (auto s = m_db.exec("BEGIN IMMEDIATE"); !s) return s;
    for (const Migration& m : migrations()) {
        if (m.toVersion <= m_version) continue;
        if (auto s = applyMigration(m_db, m); !s) {
            m_db.exec("ROLLBACK");
            return Error{"migration to v" + std::to_string(m.toVersion) + ": " + s.error()};
        }
    }
    const std::string fin =
        "INSERT OR REPLACE INTO meta(key, value) VALUES('application', 'trainscope');"
        "INSERT OR REPLACE INTO meta(key, value) VALUES('written_by', '" TRAINSCOPE_VERSION
        "');"
        "PRAGMA user_version=" +
        std::to_string(currentSchemaVersion()) + ";";
    if (auto s = m_db.exec(fin); !s) {
        m_db.exec("ROLLBACK");
        return s;
    }
    if (auto s = m_db.exec("COMMIT"); !s) return s;
    m_version = currentSchemaVersion();
    return {};
}

Status TraceStore::recoverDeadWriters() {
    auto dead = findDeadWriters(m_db);
    if (!dead) return Error{dead.error()};
    if (dead.value().empty()) return {};
    if (!readOnly()) {
        Status s = begin();
        if (s) s = markDeadWriters(m_db, dead.value());
        if (s)
            s = commit();
        else
            (void)rollback();
        // A full disk leaves the recovery to a later open (this one's writes fail anyway).
        if (s || !isDiskFull(s.error())) return s;
        TS_LOG(STORE, WARNING) << m_path << ": cannot store the state of interrupted imports "
                               << "and runs yet (" << s.error() << ")";
        return {};
    }
    return showDeadWriters(m_db, dead.value());
}

int64_t TraceStore::intern(std::string_view s) {
    if (!m_stringsLoaded) {
        m_stringsLoaded = true;
        Statement q = m_db.prepare("SELECT id, str FROM strings");
        while (q.step()) m_strings.emplace(q.text(1), q.int64(0));
        m_insertString = m_db.prepare("INSERT INTO strings(str) VALUES(?)");
    }
    if (auto it = m_strings.find(s); it != m_strings.end()) return it->second;
    m_insertString.bind(1, s);
    if (!m_insertString.run()) return 0;
    const int64_t id = m_db.lastInsertId();
    m_strings.emplace(std::string(s), id);
    return id;
}

std::string TraceStore::string(int64_t id) {
    Statement q = m_db.prepare("SELECT str FROM strings WHERE id=?");
    q.bind(1, id);
    return q.step() ? q.text(0) : std::string();
}

int64_t TraceStore::maxStringId() {
    auto r = m_db.queryInt("SELECT coalesce(max(id), 0) FROM strings");
    return r ? r.value() : 0;
}

Status TraceStore::discardUnusedStringsAbove(int64_t id) {
    m_strings.clear();
    m_stringsLoaded = false;
    Statement st = m_db.prepare(
        "DELETE FROM strings WHERE id > ?1 AND id NOT IN ("
        "SELECT name_id FROM slices WHERE name_id > ?1 UNION SELECT cat_id FROM slices WHERE "
        "cat_id > ?1 UNION SELECT name_id FROM instants WHERE name_id > ?1 UNION SELECT cat_id "
        "FROM instants WHERE cat_id > ?1 UNION SELECT name_id FROM tracks WHERE name_id > ?1 "
        "UNION SELECT name_id FROM flows WHERE name_id > ?1 UNION SELECT cat_id FROM flows WHERE "
        "cat_id > ?1 UNION SELECT tag_id FROM scalars WHERE tag_id > ?1 UNION SELECT name_id FROM "
        "stack_frames WHERE name_id > ?1 UNION SELECT cat_id FROM stack_frames WHERE cat_id > ?1)");
    st.bind(1, id);
    return st.run();
}

Status TraceStore::begin() {
    if (m_inTx) return {};
    if (auto s = m_db.exec("BEGIN IMMEDIATE"); !s) return s;
    m_inTx = true;
    return {};
}

Status TraceStore::commit() {
    if (!m_inTx) return {};
    m_inTx = false;
    Status s = m_db.exec("COMMIT");
    if (!s && !sqlite3_get_autocommit(m_db.handle())) {
        // A COMMIT that failed (a full disk) leaves the transaction open: end it, or every
        // later BEGIN of this connection fails and the import cannot even clean up.
        m_strings.clear();
        m_stringsLoaded = false;
        (void)m_db.exec("ROLLBACK");
    }
    return s;
}

Status TraceStore::rollback() {
    if (!m_inTx) return {};
    m_inTx = false;
    // Strings inserted in the rolled-back transaction are gone: reload the cache lazily.
    m_strings.clear();
    m_stringsLoaded = false;
    return m_db.exec("ROLLBACK");
}

Result<int64_t> TraceStore::beginSource(std::string_view path, std::string_view kind) {
    Statement st = m_db.prepare(
        "INSERT INTO sources(path, kind, status, imported_at, writer_pid) "
        "VALUES(?, ?, 'importing', ?, ?)");
    st.bind(1, path).bind(2, kind).bind(3, nowNs()).bind(4, static_cast<int64_t>(::getpid()));
    if (auto s = st.run(); !s) return Error{s.error()};
    return m_db.lastInsertId();
}

Status TraceStore::finishSource(int64_t id, const SourceSummary& sum) {
    Statement st = m_db.prepare(
        "UPDATE sources SET status=?, error=?, events=?, slices=?, skipped=?, ts_min=?, "
        "ts_max=?, stats=?, writer_pid=NULL WHERE id=?");
    st.bind(1, statusName(sum.status));
    if (sum.error.empty())
        st.bindNull(2);
    else
        st.bind(2, sum.error);
    st.bind(3, sum.events).bind(4, sum.slices).bind(5, sum.skipped);
    if (sum.tsMin)
        st.bind(6, *sum.tsMin);
    else
        st.bindNull(6);
    if (sum.tsMax)
        st.bind(7, *sum.tsMax);
    else
        st.bindNull(7);
    st.bind(8, sum.statsJson).bind(9, id);
    return st.run();
}

Status TraceStore::deleteSource(int64_t id) {
    return deleteSourceRows(id, false);
}

Status TraceStore::discardSourceRows(int64_t id) {
    return deleteSourceRows(id, true);
}

Status TraceStore::deleteSourceRows(int64_t id, bool keepSourceRow) {
    const std::string sid = std::to_string(id);
    const std::string tracks = "(SELECT id FROM tracks WHERE source_id=" + sid + ")";
    std::string sql =
        "DELETE FROM slice_chunks WHERE track_id IN " + tracks + ";" +
        "DELETE FROM instants WHERE track_id IN " + tracks + ";" +
        "DELETE FROM slice_name_stats WHERE track_id IN " + tracks + ";" +
        "DELETE FROM counters WHERE track_id IN " + tracks + ";" +
        "DELETE FROM flows WHERE source_id=" + sid + ";" +
        "DELETE FROM arg_chunks WHERE source_id=" + sid + ";" +
        "DELETE FROM stack_frames WHERE source_id=" + sid + ";" +
        "DELETE FROM clock_syncs WHERE source_id=" + sid + ";" +
        "DELETE FROM import_log WHERE source_id=" + sid + ";" +
        "DELETE FROM logs WHERE source_id=" + sid + ";" +
        "DELETE FROM summary_values WHERE source_id=" + sid + ";" +
        "DELETE FROM run_params WHERE source_id=" + sid + ";" +
        "DELETE FROM threads WHERE process_id IN (SELECT id FROM processes WHERE source_id=" + sid +
        ");" + "DELETE FROM processes WHERE source_id=" + sid + ";" +
        "DELETE FROM tracks WHERE source_id=" + sid + ";";
    sql += keepSourceRow ? "UPDATE sources SET events=0, slices=0, skipped=0, ts_min=NULL, "
                           "ts_max=NULL WHERE id=" +
                               sid + ";"
                         : "DELETE FROM sources WHERE id=" + sid + ";";
    const bool ownTx = !m_inTx;
    if (ownTx)
        if (auto s = begin(); !s) return s;
    if (auto s = m_db.exec(sql); !s) {
        if (ownTx) rollback();
        return s;
    }
    return ownTx ? commit() : Status{};
}

Result<std::vector<SourceInfo>> TraceStore::sources() {
    Statement q = m_db.prepare(
        "SELECT id, path, kind, status, coalesce(error,''), coalesce(label,''), events, slices, "
        "skipped, ts_min, ts_max, coalesce(stats,'{}') FROM sources ORDER BY id");
    std::vector<SourceInfo> out;
    while (q.step()) {
        SourceInfo s;
        s.id = q.int64(0);
        s.path = q.text(1);
        s.kind = q.text(2);
        s.status = parseSourceStatus(q.textView(3));
        s.error = q.text(4);
        s.label = q.text(5);
        s.events = q.int64(6);
        s.slices = q.int64(7);
        s.skipped = q.int64(8);
        if (!q.isNull(9)) s.tsMin = q.int64(9);
        if (!q.isNull(10)) s.tsMax = q.int64(10);
        s.stats = q.text(11);
        out.push_back(std::move(s));
    }
    if (!q.error().empty()) return Error{q.error()};
    return out;
}

Result<int64_t> TraceStore::beginRun(std::string_view name, std::string_view configJson,
                                     std::string_view kind) {
    Statement st = m_db.prepare(
        "INSERT INTO runs(name, config, status, started_at, writer_pid, kind) "
        "VALUES(?, ?, 'running', ?, ?, ?)");
    st.bind(1, name).bind(2, configJson).bind(3, nowNs()).bind(4, static_cast<int64_t>(::getpid()));
    st.bind(5, kind);
    if (auto s = st.run(); !s) return Error{s.error()};
    return m_db.lastInsertId();
}

Status TraceStore::finishRun(int64_t id, RunStatus status, std::string_view reason,
                             std::string_view summaryJson) {
    Statement st = m_db.prepare(
        "UPDATE runs SET status=?, reason=?, ended_at=?, summary=?, writer_pid=NULL "
        "WHERE id=?");
    st.bind(1, statusName(status))
        .bind(2, reason)
        .bind(3, nowNs())
        .bind(4, summaryJson)
        .bind(5, id);
    return st.run();
}

Status TraceStore::setSourceRun(int64_t sourceId, int64_t runId) {
    Statement st = m_db.prepare("UPDATE sources SET run_id=? WHERE id=?");
    return st.bind(1, runId).bind(2, sourceId).run();
}

Status TraceStore::setRunProfileSource(int64_t runId, int64_t sourceId) {
    Statement st = m_db.prepare("UPDATE runs SET profile_source_id=? WHERE id=?");
    return st.bind(1, sourceId).bind(2, runId).run();
}

Result<std::vector<RunInfo>> TraceStore::runs() {
    Statement q = m_db.prepare(
        "SELECT id, coalesce(name,''), coalesce(config,'{}'), status, coalesce(reason,''), "
        "coalesce(started_at,0), coalesce(ended_at,0), profile_source_id, coalesce(summary,''), "
        "kind FROM runs ORDER BY id");
    std::vector<RunInfo> out;
    while (q.step()) {
        RunInfo r;
        r.id = q.int64(0);
        r.name = q.text(1);
        r.config = q.text(2);
        r.status = parseRunStatus(q.textView(3));
        r.reason = q.text(4);
        r.startedAt = q.int64(5);
        r.endedAt = q.int64(6);
        if (!q.isNull(7)) r.profileSourceId = q.int64(7);
        r.summary = q.text(8);
        r.kind = q.text(9);
        out.push_back(std::move(r));
    }
    if (!q.error().empty()) return Error{q.error()};
    return out;
}

Result<std::vector<TableCount>> TraceStore::tableCounts() {
    std::vector<TableCount> out;
    for (const std::string& t : dataTables()) {
        // Slices and args: the chunks say how many they hold, no need to walk every row.
        auto n = m_db.queryInt(t == "slices" ? "SELECT coalesce(sum(count), 0) FROM slice_chunks"
                               : t == "args" ? "SELECT coalesce(sum(count), 0) FROM arg_chunks"
                                             : "SELECT count(*) FROM " + t);
        if (!n) return Error{t + ": " + n.error()};
        out.push_back({t, n.value()});
    }
    return out;
}

Result<std::optional<std::pair<int64_t, int64_t>>> TraceStore::timeRange() {
    Statement q = m_db.prepare(
        "SELECT min(lo), max(hi) FROM ("
        " SELECT min(min_ts) AS lo, max(max_end) AS hi FROM slice_chunks"
        " UNION ALL SELECT min(ts), max(ts) FROM instants"
        " UNION ALL SELECT min(ts), max(ts) FROM counters)");
    if (!q.step()) {
        if (!q.error().empty()) return Error{q.error()};
        return std::optional<std::pair<int64_t, int64_t>>{};
    }
    if (q.isNull(0)) return std::optional<std::pair<int64_t, int64_t>>{};
    return std::optional<std::pair<int64_t, int64_t>>{std::make_pair(q.int64(0), q.int64(1))};
}

Status TraceStore::buildIndexes() {
    // Only when one is missing: CREATE INDEX IF NOT EXISTS takes the write lock even when the
    // index is there, and a session opened while another process records into it (the studio
    // following a CLI run, a test) would make that writer wait in SQLite's busy handler.
    const std::string_view sql = indexSql();
    int64_t wanted = 0;
    for (size_t at = 0; (at = sql.find("CREATE INDEX", at)) != std::string_view::npos; ++at)
        ++wanted;
    auto present = m_db.queryInt(
        "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND sql LIKE 'CREATE INDEX %'");
    if (present && present.value() >= wanted) {
        // Every index of the list exists when each of its names does.
        bool all = true;
        for (size_t at = 0;
             all && (at = sql.find("IF NOT EXISTS ", at)) != std::string_view::npos;) {
            at += 14;
            const size_t end = sql.find(' ', at);
            const std::string name(sql.substr(at, end - at));
            auto n = m_db.queryInt(
                "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = '" + name +
                "'");
            all = n && n.value() == 1;
        }
        if (all) return {};
    }
    return m_db.exec(indexSql());
}
Status TraceStore::dropIndexes() {
    return m_db.exec(dropIndexSql());
}

}  // namespace ts::store
