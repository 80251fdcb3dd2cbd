#include "core/store/store_writer.h"

namespace ts::store {

StoreWriter::StoreWriter(TraceStore& store, int64_t sourceId, int64_t batchRows)
    : m_store(store), m_sourceId(sourceId), m_batchRows(batchRows) {
    SqliteDb& db = store.db();
    // Each batch commits in WAL mode with synchronous=NORMAL (set when the session opens): a
    // killed process loses nothing committed, and a power loss loses at most the batches
    // since the last checkpoint, never the file (docs/SCHEMA.md, bench/trace_import).
    // The next slice id is kept in meta by every writer: max(id) over the slices table
    // would read all of it (it is clustered by track and time). Older sessions: once.
    const int64_t kept =
        db.queryInt("SELECT CAST(value AS INTEGER) FROM meta WHERE key = 'next_slice_id'", 0)
            .value();
    m_nextSliceId =
        kept > 0 ? kept
                 : db.queryInt("SELECT coalesce(max(max_id), 0) + 1 FROM slice_chunks", 1).value();
    m_saveNextId = db.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES('next_slice_id', ?)");
    m_chunks = SliceChunkWriter(db);
    m_nameStat = db.prepare(
        "INSERT INTO slice_name_stats(track_id, name_id, count, total_dur, min_dur, max_dur) "
        "VALUES(?,?,?,?,?,?) ON CONFLICT(track_id, name_id) DO UPDATE SET "
        "count=count+excluded.count, total_dur=total_dur+excluded.total_dur, "
        "min_dur=min(min_dur, excluded.min_dur), max_dur=max(max_dur, excluded.max_dur)");
    m_instants = BatchedInsert(db, "instants(track_id, ts, name_id, cat_id, scope, arg_set_id)", 6);
    m_samples = BatchedInsert(
        db, "instants(track_id, ts, name_id, cat_id, scope, arg_set_id, frame_id)", 7);
    m_counters = BatchedInsert(db, "counters(track_id, ts, value)", 3);
    m_flows = BatchedInsert(db, "flows(source_id, slice_out, slice_in, name_id, cat_id)", 5);
    m_args = ArgChunkWriter(db, sourceId);
    m_nextArgId = db.queryInt("SELECT coalesce(max(min_id + count), 1) FROM arg_chunks", 1).value();
    m_problem = db.prepare(
        "INSERT INTO import_log(source_id, key, byte_offset, phase, message) VALUES(?,?,?,?,?)");
    m_process =
        db.prepare("INSERT INTO processes(source_id, pid, name, sort_index) VALUES(?,?,?,?)");
    m_thread = db.prepare("INSERT INTO threads(process_id, tid, name, sort_index) VALUES(?,?,?,?)");
    m_frame = db.prepare(
        "INSERT INTO stack_frames(source_id, parent_id, name_id, cat_id) VALUES(?,?,?,?)");
    m_clockSync =
        db.prepare("INSERT INTO clock_syncs(source_id, sync_id, ts, issue_ts) VALUES(?,?,?,?)");
    m_track = db.prepare(
        "INSERT INTO tracks(source_id, kind, process_id, thread_id, name_id, sort_index) "
        "VALUES(?,?,?,?,?,?)");
    check(store.begin());
}

StoreWriter::~StoreWriter() {
    if (failed()) return;  // rolled back when it failed
    flush();
    m_store.commit();
}

void StoreWriter::check(Status s) {
    if (s || failed()) return;
    // The first failed write (a full disk) ends the import's writes: the open batch is rolled
    // back at once (SQLite may have done so already) and nothing more is written, so no row
    // commits on its own after it and the importer's clean-up finds room to run.
    m_error = s.error();
    (void)m_store.rollback();
}

void StoreWriter::rowDone() {
    ++m_rows;
    if (++m_pending >= m_batchRows) flush();
}

Status StoreWriter::flush() {
    if (failed()) return Error{m_error};
    m_pending = 0;
    flushSlices();
    flushNameStats();
    m_saveNextId.bind(1, std::to_string(m_nextSliceId));
    check(m_saveNextId.run());
    check(m_args.flush());
    check(m_instants.flush());
    check(m_samples.flush());
    check(m_counters.flush());
    check(m_flows.flush());
    Status s = m_store.commit();
    check(s);
    if (!s) return s;
    s = m_store.begin();
    check(s);
    return s;
}

namespace {
void bindOptional(Statement& st, int idx, int64_t v) {
    if (v != 0)
        st.bind(idx, v);
    else
        st.bindNull(idx);
}
void bindOptional(Statement& st, int idx, std::string_view v) {
    if (!v.empty())
        st.bind(idx, v);
    else
        st.bindNull(idx);
}
}  // namespace

int64_t StoreWriter::addProcess(std::string_view pid, std::string_view name, int64_t sortIndex) {
    if (failed()) return 0;
    m_process.bind(1, m_sourceId).bind(2, pid);
    bindOptional(m_process, 3, name);
    m_process.bind(4, sortIndex);
    check(m_process.run());
    rowDone();
    return m_store.db().lastInsertId();
}

int64_t StoreWriter::addThread(int64_t processId, std::string_view tid, std::string_view name,
                               int64_t sortIndex) {
    if (failed()) return 0;
    m_thread.bind(1, processId).bind(2, tid);
    bindOptional(m_thread, 3, name);
    m_thread.bind(4, sortIndex);
    check(m_thread.run());
    rowDone();
    return m_store.db().lastInsertId();
}

namespace {
Status updateColumn(SqliteDb& db, const char* sql, int64_t id, std::string_view text) {
    Statement st = db.prepare(sql);
    return st.bind(1, text).bind(2, id).run();
}
Status updateColumn(SqliteDb& db, const char* sql, int64_t id, int64_t value) {
    Statement st = db.prepare(sql);
    return st.bind(1, value).bind(2, id).run();
}
}  // namespace

void StoreWriter::setProcessName(int64_t id, std::string_view name) {
    if (failed()) return;
    check(updateColumn(m_store.db(), "UPDATE processes SET name=? WHERE id=?", id, name));
}
void StoreWriter::setProcessSortIndex(int64_t id, int64_t sortIndex) {
    if (failed()) return;
    check(
        updateColumn(m_store.db(), "UPDATE processes SET sort_index=? WHERE id=?", id, sortIndex));
}
void StoreWriter::setProcessLabels(int64_t id, std::string_view labels) {
    if (failed()) return;
    check(updateColumn(m_store.db(), "UPDATE processes SET labels=? WHERE id=?", id, labels));
}
void StoreWriter::setThreadName(int64_t id, std::string_view name) {
    if (failed()) return;
    check(updateColumn(m_store.db(), "UPDATE threads SET name=? WHERE id=?", id, name));
}
void StoreWriter::setThreadSortIndex(int64_t id, int64_t sortIndex) {
    if (failed()) return;
    check(updateColumn(m_store.db(), "UPDATE threads SET sort_index=? WHERE id=?", id, sortIndex));
}

int64_t StoreWriter::addTrack(std::string_view kind, int64_t processId, int64_t threadId,
                              std::string_view name, int64_t sortIndex) {
    if (failed()) return 0;
    m_track.bind(1, m_sourceId).bind(2, kind);
    bindOptional(m_track, 3, processId);
    bindOptional(m_track, 4, threadId);
    bindOptional(m_track, 5, intern(name));
    m_track.bind(6, sortIndex);
    check(m_track.run());
    rowDone();
    return m_store.db().lastInsertId();
}

int64_t StoreWriter::addSlice(const SliceRow& row) {
    const int64_t id = m_nextSliceId++;
    addSliceWithId(id, row);
    return id;
}

void StoreWriter::accumulate(NameStats& ns, int64_t dur) {
    if (ns.count == 0 || dur < ns.min) ns.min = dur;
    if (ns.count == 0 || dur > ns.max) ns.max = dur;
    ++ns.count;
    ns.total += dur;
}

void StoreWriter::countName(int64_t trackId, int64_t nameId, int64_t dur) {
    if (nameId < 0 || nameId >= kFlatNames) {
        accumulate(m_nameStats[{trackId, nameId}], dur);
        return;
    }
    if (trackId != m_statsTrack) {
        foldCurrentTrackStats();
        m_statsTrack = trackId;
    }
    if (nameId >= static_cast<int64_t>(m_trackStats.size()))
        m_trackStats.resize(static_cast<size_t>(nameId) + 1);
    NameStats& ns = m_trackStats[static_cast<size_t>(nameId)];
    if (ns.count == 0) m_trackStatsTouched.push_back(nameId);
    accumulate(ns, dur);
}

void StoreWriter::foldCurrentTrackStats() {
    for (int64_t nameId : m_trackStatsTouched) {
        NameStats& flat = m_trackStats[static_cast<size_t>(nameId)];
        NameStats& ns = m_nameStats[{m_statsTrack, nameId}];
        if (ns.count == 0 || flat.min < ns.min) ns.min = flat.min;
        if (ns.count == 0 || flat.max > ns.max) ns.max = flat.max;
        ns.count += flat.count;
        ns.total += flat.total;
        flat = {};
    }
    m_trackStatsTouched.clear();
}

std::vector<StoredSlice>& StoreWriter::trackSlices(int64_t trackId) {
    if (m_lastTrackSlices < m_trackSlices.size() &&
        m_trackSlices[m_lastTrackSlices].trackId == trackId)
        return m_trackSlices[m_lastTrackSlices].rows;
    auto [it, added] = m_trackSliceIndex.emplace(trackId, m_trackSlices.size());
    if (added) m_trackSlices.push_back({trackId, {}});
    m_lastTrackSlices = it->second;
    return m_trackSlices[it->second].rows;
}

void StoreWriter::addSliceWithId(int64_t id, const SliceRow& r) {
    if (failed()) return;
    countName(r.trackId, r.nameId, r.dur);
    std::vector<StoredSlice>& rows = trackSlices(r.trackId);
    rows.push_back({id, r});
    if (rows.size() == kSliceChunkRows) {
        check(m_chunks.write(r.trackId, rows));
        rows.clear();
    }
    rowDone();
}

void StoreWriter::addTrackChunks(const TrackChunks& t) {
    if (failed()) return;
    for (size_t i = 0; i < t.blobs.size(); ++i)
        check(m_chunks.write(t.trackId, t.summaries[i], t.blobs[i]));
    for (const TrackChunks::NameTotal& n : t.names) {
        NameStats& ns = m_nameStats[{t.trackId, n.nameId}];
        if (ns.count == 0 || n.min < ns.min) ns.min = n.min;
        if (ns.count == 0 || n.max > ns.max) ns.max = n.max;
        ns.count += n.count;
        ns.total += n.total;
    }
    m_rows += t.slices;
    m_pending += t.slices;
    if (m_pending >= m_batchRows) flush();
}

void StoreWriter::flushSlices() {
    for (TrackSlices& t : m_trackSlices) check(m_chunks.write(t.trackId, t.rows));
    m_trackSlices.clear();  // and their memory: the next batch may use other tracks
    m_trackSliceIndex.clear();
    m_lastTrackSlices = 0;
}

void StoreWriter::flushNameStats() {
    foldCurrentTrackStats();
    for (const auto& [key, ns] : m_nameStats) {
        m_nameStat.bind(1, key.first).bind(2, key.second).bind(3, ns.count).bind(4, ns.total);
        m_nameStat.bind(5, ns.min).bind(6, ns.max);
        check(m_nameStat.run());
    }
    m_nameStats.clear();
}

int64_t StoreWriter::addArgs(std::string_view json) {
    if (failed()) return 0;
    const int64_t id = m_nextArgId++;
    check(m_args.add(id, json));
    rowDone();
    return id;
}

void StoreWriter::addInstant(int64_t trackId, int64_t ts, int64_t nameId, int64_t catId, char scope,
                             int64_t argSetId) {
    if (failed()) return;
    m_instants.i64(trackId).i64(ts).i64(nameId).idOrNull(catId);
    m_instants.text(std::string_view(&scope, 1)).idOrNull(argSetId);
    check(m_instants.endRow());
    rowDone();
}

void StoreWriter::addSample(int64_t trackId, int64_t ts, int64_t nameId, int64_t catId,
                            int64_t frameId, int64_t argSetId) {
    if (failed()) return;
    m_samples.i64(trackId).i64(ts).i64(nameId).idOrNull(catId).text("s");
    m_samples.idOrNull(argSetId).idOrNull(frameId);
    check(m_samples.endRow());
    rowDone();
}

int64_t StoreWriter::addStackFrame(int64_t parentId, int64_t nameId, int64_t catId) {
    if (failed()) return 0;
    m_frame.bind(1, m_sourceId);
    bindOptional(m_frame, 2, parentId);
    m_frame.bind(3, nameId);
    bindOptional(m_frame, 4, catId);
    check(m_frame.run());
    rowDone();
    return m_store.db().lastInsertId();
}

void StoreWriter::addClockSync(std::string_view syncId, int64_t ts,
                               std::optional<int64_t> issueTs) {
    if (failed()) return;
    m_clockSync.bind(1, m_sourceId).bind(2, syncId).bind(3, ts);
    if (issueTs)
        m_clockSync.bind(4, *issueTs);
    else
        m_clockSync.bindNull(4);
    check(m_clockSync.run());
    rowDone();
}

std::vector<StoreWriter::ClockSync> StoreWriter::otherClockSyncs() {
    std::vector<ClockSync> out;
    Statement q = m_store.db().prepare(
        "SELECT source_id, sync_id, ts, issue_ts FROM clock_syncs WHERE source_id <> ? "
        "ORDER BY source_id, id");
    q.bind(1, m_sourceId);
    while (q.step()) {
        ClockSync c;
        c.sourceId = q.int64(0);
        c.syncId = q.text(1);
        c.ts = q.int64(2);
        if (!q.isNull(3)) c.issueTs = q.int64(3);
        out.push_back(std::move(c));
    }
    return out;
}

Status StoreWriter::shiftWrittenTimes(int64_t offset) {
    if (failed()) return Error{m_error};
    check(m_instants.flush());
    check(m_samples.flush());
    check(m_counters.flush());
    const std::string off = std::to_string(offset), sid = std::to_string(m_sourceId);
    const std::string tracks = "(SELECT id FROM tracks WHERE source_id = " + sid + ")";
    Status s = m_store.db().exec("UPDATE instants SET ts = ts + " + off + " WHERE track_id IN " +
                                 tracks + "; UPDATE counters SET ts = ts + " + off +
                                 " WHERE track_id IN " + tracks + ";");
    check(s);
    return s;
}

void StoreWriter::addCounter(int64_t trackId, int64_t ts, double value) {
    if (failed()) return;
    m_counters.i64(trackId).i64(ts).real(value);
    check(m_counters.endRow());
    rowDone();
}

void StoreWriter::addFlow(int64_t sliceOut, int64_t sliceIn, int64_t nameId, int64_t catId) {
    if (failed()) return;
    m_flows.i64(m_sourceId).i64(sliceOut).i64(sliceIn).idOrNull(nameId).idOrNull(catId);
    check(m_flows.endRow());
    rowDone();
}

void StoreWriter::logProblem(std::string_view key, int64_t byteOffset, std::string_view phase,
                             std::string_view message) {
    if (failed()) return;
    m_problem.bind(1, m_sourceId).bind(2, key).bind(3, byteOffset);
    bindOptional(m_problem, 4, phase);
    bindOptional(m_problem, 5, message);
    check(m_problem.run());
    rowDone();
}

}  // namespace ts::store
