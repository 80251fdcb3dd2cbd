// The TrainScope session schema (*.tscope, SQLite). One documented place for every table.
// Times are int64 nanoseconds; names and categories are ids into `strings`.
// Never edit a released migration: append a new one.
#include "core/store/schema.h"

#include <array>

#include "core/store/arg_chunk.h"
#include "core/store/slice_chunk_writer.h"
#include "core/store/sqlite_db.h"

namespace ts::store {
namespace {

// v1: trace data (what importers write).
constexpr std::string_view kV1 = R"SQL(
-- key/value facts about the file: 'application' = 'trainscope', 'created_by' = version.
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT);
-- Interned strings: slice names, categories, track names, log modules.
CREATE TABLE strings(id INTEGER PRIMARY KEY, str TEXT NOT NULL UNIQUE);
-- One row per imported file or recorded run profile.
--   kind: importer name ('chrome_json', 'nsys_sqlite', 'profiler', ...)
--   status: 'importing' while a writer works on it, then 'complete' | 'partial' | 'failed';
--           a source left 'importing' by a dead writer is marked 'incomplete' on open.
--   writer_pid: process that is importing it (to tell a crash from a live import).
--   stats: JSON object of counts (events, slices, skipped, skipped_reasons, ...).
CREATE TABLE sources(
  id INTEGER PRIMARY KEY, path TEXT NOT NULL, kind TEXT NOT NULL, status TEXT NOT NULL,
  error TEXT, imported_at INTEGER, writer_pid INTEGER, label TEXT,
  events INTEGER NOT NULL DEFAULT 0, slices INTEGER NOT NULL DEFAULT 0,
  skipped INTEGER NOT NULL DEFAULT 0, ts_min INTEGER, ts_max INTEGER, stats TEXT);
-- Processes of a source. pid is kept as text: traces use numbers and strings.
CREATE TABLE processes(
  id INTEGER PRIMARY KEY, source_id INTEGER NOT NULL, pid TEXT NOT NULL, name TEXT,
  sort_index INTEGER, labels TEXT);
-- Threads of a process; tid kept as text for the same reason.
CREATE TABLE threads(
  id INTEGER PRIMARY KEY, process_id INTEGER NOT NULL, tid TEXT NOT NULL, name TEXT,
  sort_index INTEGER);
-- A row of the timeline. kind: 'thread' (slices, instants), 'async', 'counter', 'gpu_stream',
-- 'samples' (v7: a thread's stack samples, as instants).
-- thread_id is NULL for process-level tracks (async, counters, process instants);
-- process_id is NULL for global tracks.
CREATE TABLE tracks(
  id INTEGER PRIMARY KEY, source_id INTEGER NOT NULL, kind TEXT NOT NULL,
  process_id INTEGER, thread_id INTEGER, name_id INTEGER, sort_index INTEGER);
-- JSON object of event arguments, shared by the rows that reference it.
CREATE TABLE args(id INTEGER PRIMARY KEY, source_id INTEGER NOT NULL, json TEXT NOT NULL);
-- Duration events, clustered by (track_id, ts): a time-range query on one track is a
-- range scan of the table itself, and rows written in that order (importers sort each
-- track) append without a secondary index to maintain. id: unique, assigned by the writer,
-- referenced by flows. depth: nesting level on its track (0 = top).
-- flags: bit 0 = unfinished (no end seen; dur runs to the end of the track's data).
CREATE TABLE slices(
  id INTEGER NOT NULL, track_id INTEGER NOT NULL, ts INTEGER NOT NULL,
  dur INTEGER NOT NULL, depth INTEGER NOT NULL, name_id INTEGER NOT NULL,
  cat_id INTEGER, arg_set_id INTEGER, flags INTEGER NOT NULL DEFAULT 0,
  PRIMARY KEY(track_id, ts, id)) WITHOUT ROWID;
-- By-name totals per track, kept by the writer as it ingests, so whole-session by-name
-- aggregation reads a few rows instead of every slice. dur sums include unfinished slices.
CREATE TABLE slice_name_stats(
  track_id INTEGER NOT NULL, name_id INTEGER NOT NULL, count INTEGER NOT NULL,
  total_dur INTEGER NOT NULL, min_dur INTEGER NOT NULL, max_dur INTEGER NOT NULL,
  PRIMARY KEY(track_id, name_id)) WITHOUT ROWID;
-- Zero-duration events. scope: 't' thread, 'p' process, 'g' global, 'o' object event;
-- (v7) 'm' mark (Chrome 'R'), 's' stack sample (frame_id).
CREATE TABLE instants(
  id INTEGER PRIMARY KEY, track_id INTEGER NOT NULL, ts INTEGER NOT NULL,
  name_id INTEGER NOT NULL, cat_id INTEGER, scope TEXT, arg_set_id INTEGER);
-- Counter samples; one track per (process, counter name, series).
CREATE TABLE counters(
  id INTEGER PRIMARY KEY, track_id INTEGER NOT NULL, ts INTEGER NOT NULL, value REAL NOT NULL);
-- Arrows between slices (slice ids in `slices`).
CREATE TABLE flows(
  id INTEGER PRIMARY KEY, source_id INTEGER NOT NULL, slice_out INTEGER NOT NULL,
  slice_in INTEGER NOT NULL, name_id INTEGER, cat_id INTEGER);
-- Timeline read cache: one row per level of the timeline model (core/timeline), the
-- columns of its slices as native-endian arrays (ts, dur: int64; name_id: uint32;
-- slice_id: int64), so a session opens without reading every slice row. Valid only while
-- meta 'timeline_cache_key' equals the key computed from the slices (see timeline_cache.cpp);
-- rebuilt by the timeline when stale. Safe to delete.
CREATE TABLE timeline_cache(
  track_id INTEGER NOT NULL, level INTEGER NOT NULL, depth INTEGER NOT NULL,
  count INTEGER NOT NULL, ts BLOB NOT NULL, dur BLOB NOT NULL, name_id BLOB NOT NULL,
  slice_id BLOB NOT NULL);
-- Problems met while importing: stable key (e.g. 'json_missing_ts'), where, and what.
CREATE TABLE import_log(
  id INTEGER PRIMARY KEY, source_id INTEGER NOT NULL, key TEXT NOT NULL,
  byte_offset INTEGER, phase TEXT, message TEXT);
)SQL";

// v2: training runs, their scalars and logs.
constexpr std::string_view kV2 = R"SQL(
-- One training run. config: JSON of every setting; status: 'running' | 'completed' |
-- 'stopped' | 'failed'; reason: why it ended; profile_source_id: its profile, if any.
CREATE TABLE runs(
  id INTEGER PRIMARY KEY, name TEXT, config TEXT, status TEXT NOT NULL, reason TEXT,
  started_at INTEGER, ended_at INTEGER, profile_source_id INTEGER, summary TEXT);
-- Scalar series of a run: tag_id into strings ('train/loss', 'eval/accuracy', 'lr', ...).
CREATE TABLE scalars(
  run_id INTEGER NOT NULL, tag_id INTEGER NOT NULL, step INTEGER NOT NULL,
  wall_time INTEGER NOT NULL, value REAL NOT NULL);
-- Log records, from our engine (run_id set) or imported files (source_id set).
-- level: 0 DEBUG, 1 INFO, 2 WARNING, 3 ERROR, 4 CRITICAL.
CREATE TABLE logs(
  id INTEGER PRIMARY KEY, source_id INTEGER, run_id INTEGER, ts INTEGER, level INTEGER NOT NULL,
  module TEXT, file TEXT, line INTEGER, pid INTEGER, tid INTEGER, message TEXT NOT NULL);
)SQL";

// v3: precision debugging and crash records.
constexpr std::string_view kV3 = R"SQL(
-- An HDF5 dump file written by a run or opened by the user.
CREATE TABLE dump_files(
  id INTEGER PRIMARY KEY, run_id INTEGER, path TEXT NOT NULL, step INTEGER, created_at INTEGER);
-- One dumped tensor: dataset path ('Op/seq/output/0'), op, seqid, io ('input'|'output'), slot.
CREATE TABLE dump_tensors(
  id INTEGER PRIMARY KEY, dump_file_id INTEGER NOT NULL, path TEXT NOT NULL, op TEXT,
  seqid INTEGER, io TEXT, slot INTEGER, dtype TEXT, shape TEXT);
-- NaN/Inf found in an op's tensor (origin 'op') or a skipped loss-scale step ('loss_scale').
CREATE TABLE overflow_findings(
  id INTEGER PRIMARY KEY, run_id INTEGER, step INTEGER, op TEXT, scope TEXT, seqid INTEGER,
  tensor TEXT, nan INTEGER NOT NULL DEFAULT 0, posinf INTEGER NOT NULL DEFAULT 0,
  neginf INTEGER NOT NULL DEFAULT 0, origin TEXT NOT NULL DEFAULT 'op', ts INTEGER);
-- A Running Data Recorder export: folder, why it was written and where the run was.
CREATE TABLE rdr_records(
  id INTEGER PRIMARY KEY, run_id INTEGER, path TEXT NOT NULL, reason TEXT, failing_op TEXT,
  epoch INTEGER, step INTEGER, created_at INTEGER);
)SQL";

// v4: the process that is recording a run, so opening the session while the run goes does
// not take it for a run whose process died (the same rule as sources.writer_pid).
constexpr std::string_view kV4 = R"SQL(
-- runs.writer_pid: process recording the run while status = 'running'; NULL once it ended.
ALTER TABLE runs ADD COLUMN writer_pid INTEGER;
)SQL";

// v5: slices kept in chunks of up to 4,096 per track (core/store/slice_chunk.h) instead of
// a row each: an import writes one row per chunk, which is what lets it keep up with the
// parser. `slices` becomes a virtual table over the chunks (core/store/slice_table.h) with
// the columns and row order it had, so SQL over slices reads as before.
constexpr std::string_view kV5 = R"SQL(
ALTER TABLE slices RENAME TO slices_v4;
-- Up to 4,096 slices of one track sorted by (ts, id): summary columns for finding chunks,
-- the slice columns varint-coded in `data` (format in core/store/slice_chunk.h).
--   count: slices held; min_ts, max_ts: ts of the first and last; max_end: max(ts + dur);
--   min_id, max_id: bounds of their ids; first_id, last_id: ids of the first and last.
CREATE TABLE slice_chunks(
  id INTEGER PRIMARY KEY, track_id INTEGER NOT NULL, count INTEGER NOT NULL,
  min_ts INTEGER NOT NULL, max_ts INTEGER NOT NULL, max_end INTEGER NOT NULL,
  min_id INTEGER NOT NULL, max_id INTEGER NOT NULL, first_id INTEGER NOT NULL,
  last_id INTEGER NOT NULL, data BLOB NOT NULL);
CREATE INDEX slice_chunks_track ON slice_chunks(track_id, min_ts);
ALTER TABLE args RENAME TO args_v4;
-- Event argument texts, up to 4,096 of one source with the ids min_id .. min_id + count - 1,
-- in `data` (format in core/store/arg_chunk.h).
CREATE TABLE arg_chunks(
  id INTEGER PRIMARY KEY, source_id INTEGER NOT NULL, min_id INTEGER NOT NULL,
  count INTEGER NOT NULL, data BLOB NOT NULL);
CREATE INDEX arg_chunks_source ON arg_chunks(source_id);
)SQL";

// The rows of the old slices table, in its (track_id, ts, id) order, and of the old args
// table into chunks.
Status rowsToChunks(SqliteDb& db) {
    Statement q = db.prepare(
        "SELECT id, track_id, ts, dur, depth, name_id, coalesce(cat_id, 0), "
        "coalesce(arg_set_id, 0), flags FROM slices_v4");
    if (!q.ok()) return Error{q.error()};
    SliceChunkWriter writer(db);
    std::vector<StoredSlice> rows;
    int64_t track = 0;
    auto flush = [&]() -> Status {
        Status s = writer.write(track, rows);
        rows.clear();
        return s;
    };
    while (q.step()) {
        StoredSlice r;
        r.id = q.int64(0);
        r.row.trackId = q.int64(1);
        r.row.ts = q.int64(2);
        r.row.dur = q.int64(3);
        r.row.depth = static_cast<int32_t>(q.int64(4));
        r.row.nameId = q.int64(5);
        r.row.catId = q.int64(6);
        r.row.argSetId = q.int64(7);
        r.row.flags = static_cast<int32_t>(q.int64(8));
        if ((!rows.empty() && r.row.trackId != track) || rows.size() == kSliceChunkRows)
            if (auto s = flush(); !s) return s;
        track = r.row.trackId;
        rows.push_back(r);
    }
    if (!q.error().empty()) return Error{q.error()};
    if (auto s = flush(); !s) return s;
    // Args, in id order; a chunk holds consecutive ids of one source.
    Statement a = db.prepare("SELECT id, source_id, json FROM args_v4 ORDER BY id");
    if (!a.ok()) return Error{a.error()};
    ArgChunkWriter args;
    int64_t source = 0;
    bool any = false;
    while (a.step()) {
        if (!any || a.int64(1) != source) {
            if (any)
                if (auto s = args.flush(); !s) return s;
            source = a.int64(1);
            args = ArgChunkWriter(db, source);
            any = true;
        }
        if (auto s = args.add(a.int64(0), a.textView(2)); !s) return s;
    }
    if (!a.error().empty()) return Error{a.error()};
    return args.flush();
}

// The timeline read cache of v1 goes too: the timeline model reads chunks as fast as it read
// the cache, which only doubled the file and cost seconds after every big import.
constexpr std::string_view kV5After = R"SQL(
DROP TABLE slices_v4;
CREATE VIRTUAL TABLE slices USING trainscope_slices;
DROP TABLE args_v4;
CREATE VIRTUAL TABLE args USING trainscope_args;
DROP TABLE timeline_cache;
DELETE FROM meta WHERE key = 'timeline_cache_key';
)SQL";

// v6: runs of another kind than the engine (a user's command, launched by the studio), and
// the sources a run produced (the traces a command run's profiler wrote and the launcher
// imported). A run whose recording process died is now 'interrupted' (not 'failed').
constexpr std::string_view kV6 = R"SQL(
-- runs.kind: 'engine' (the built-in engine; config is a TrainConfig) or 'command' (a
-- user's program launched by the studio; config is a LaunchSpec, docs/RUNS.md).
-- runs.status gains 'interrupted': the studio or CLI recording the run ended without
-- closing it (killed, crashed, power cut); set when the session is next opened.
ALTER TABLE runs ADD COLUMN kind TEXT NOT NULL DEFAULT 'engine';
-- sources.run_id: the run that produced this source (NULL: imported by the user).
ALTER TABLE sources ADD COLUMN run_id INTEGER;
)SQL";

// v7: what Chrome traces hold beside slices that v6 had no rows for: stack samples (P events,
// the top-level `samples` with their `stackFrames`) and clock syncs ('c' events). Marks ('R')
// and samples are instants (scope 'm' and 's'); a sample names the leaf of its stack.
constexpr std::string_view kV7 = R"SQL(
-- One frame of a sampled call stack: name_id (function), cat_id (module or category),
-- parent_id: the calling frame (NULL at the root). Frames of one source only refer to each
-- other; a stack is the chain from a leaf to the root.
CREATE TABLE stack_frames(
  id INTEGER PRIMARY KEY, source_id INTEGER NOT NULL, parent_id INTEGER,
  name_id INTEGER NOT NULL, cat_id INTEGER);
-- instants.frame_id: for a sample (scope 's', on a track of kind 'samples'), the leaf frame
-- of its stack (stack_frames.id); NULL for other instants and stacks that could not be read.
ALTER TABLE instants ADD COLUMN frame_id INTEGER;
-- A clock sync marker ('c' event) of a source: sync_id as the trace wrote it, ts (and
-- issue_ts, on the side that issued the sync) in session time, i.e. after the source was
-- aligned to an earlier source sharing a sync id (sources.stats.extra.clock_alignment).
CREATE TABLE clock_syncs(
  id INTEGER PRIMARY KEY, source_id INTEGER NOT NULL, sync_id TEXT NOT NULL,
  ts INTEGER NOT NULL, issue_ts INTEGER);
CREATE INDEX clock_syncs_sync ON clock_syncs(sync_id);
)SQL";

// v8: what summary files hold beside scalars (MindSpore summary files, TensorBoard event
// files: docs/MINDSPORE.md) and the hyper-parameters and final metrics of runs (MindSpore
// lineage files, TensorBoard HParams), for the histogram, image, tensor, landscape, graph
// and lineage views.
constexpr std::string_view kV8 = R"SQL(
-- One non-scalar value of a run's summary: tag_id into strings as the file wrote it ('conv1.weight/auto'),
-- step, wall_time (ns), kind 'histogram' | 'image' | 'tensor' | 'landscape' | 'graph' |
-- 'hparams', and data: the value as MindSpore's own message (core/proto/mindinsight_summary.proto:
-- Summary.Histogram, Summary.Image, TensorProto, LossLandscape, GraphProto; TensorBoard's
-- values are converted to those on import) or, for 'hparams', a JSON object.
-- source_id: the imported file (NULL for values a run recorded live).
CREATE TABLE summary_values(
  id INTEGER PRIMARY KEY, run_id INTEGER NOT NULL, source_id INTEGER, tag_id INTEGER NOT NULL,
  step INTEGER NOT NULL, wall_time INTEGER NOT NULL, kind TEXT NOT NULL, data BLOB NOT NULL);
CREATE INDEX summary_values_run ON summary_values(run_id, kind, tag_id, step);
-- A hyper-parameter (kind 'hparam': learning_rate, optimizer, batch_size, ...) or a final
-- metric (kind 'metric': accuracy, loss, ...) of a run, from a lineage file, TensorBoard's
-- HParams or the run's own config; value when numeric, else text. One row per (run, kind, key).
CREATE TABLE run_params(
  run_id INTEGER NOT NULL, source_id INTEGER, kind TEXT NOT NULL, key TEXT NOT NULL,
  value REAL, text TEXT, PRIMARY KEY(run_id, kind, key));
)SQL";

// v9: a per-rank summary of a session's trace, so the cluster view of many ranks reads one small
// row per rank instead of every slice (docs/DISTRIBUTED.md, "A 1,024-rank job").
constexpr std::string_view kV9 = R"SQL(
-- The figures the cluster view takes from one rank (core/analysis/cluster/rank_summary.h):
-- its steps with compute, communication, overlap and idle, its device figures and its
-- collective kernels. sources: the rank's source ids as the cluster reads them ("3,5");
-- fingerprint: what those sources were when it was computed (their rows, the count and
-- last id of their tracks and chunks, the summary format): a summary whose fingerprint no
-- longer matches is stale and computed again from the slices. data: the summary, varint-coded.
CREATE TABLE rank_summaries(
  sources TEXT PRIMARY KEY, fingerprint TEXT NOT NULL, computed_at INTEGER NOT NULL,
  data BLOB NOT NULL);
)SQL";

constexpr std::array<Migration, 9> kMigrations = {{
    {1, "trace tables", kV1},
    {2, "runs, scalars, logs", kV2},
    {3, "dumps, overflow findings, RDR records", kV3},
    {4, "run writer pid", kV4},
    {5, "slices and args in chunks, no timeline cache", kV5, rowsToChunks, kV5After},
    {6, "run kinds, sources produced by runs", kV6},
    {7, "stack samples, clock syncs", kV7},
    {8, "summary values, run parameters", kV8},
    {9, "per-rank summaries", kV9},
}};

// Indexes: time-range queries on instants and counters of one track, flows by slice.
// Slices need none (chunks are found through their summaries, slice_directory.h); by-name
// aggregation reads slice_name_stats (whole tracks) or the slices of a time range.
constexpr std::string_view kIndexes = R"SQL(
CREATE INDEX IF NOT EXISTS instants_track_ts ON instants(track_id, ts);
CREATE INDEX IF NOT EXISTS counters_track_ts ON counters(track_id, ts);
CREATE INDEX IF NOT EXISTS flows_out ON flows(slice_out);
CREATE INDEX IF NOT EXISTS flows_in ON flows(slice_in);
CREATE INDEX IF NOT EXISTS scalars_run_tag ON scalars(run_id, tag_id, step);
CREATE INDEX IF NOT EXISTS logs_ts ON logs(ts);
)SQL";

constexpr std::string_view kDropIndexes = R"SQL(
DROP INDEX IF EXISTS instants_track_ts;
DROP INDEX IF EXISTS counters_track_ts;
DROP INDEX IF EXISTS flows_out;
DROP INDEX IF EXISTS flows_in;
)SQL";

}  // namespace

Status applyMigration(SqliteDb& db, const Migration& m) {
    if (auto s = db.exec(m.sql); !s) return s;
    if (m.step)
        if (auto s = m.step(db); !s) return s;
    if (!m.sqlAfter.empty()) return db.exec(m.sqlAfter);
    return {};
}

std::span<const Migration> migrations() {
    return kMigrations;
}
int currentSchemaVersion() {
    return kMigrations.back().toVersion;
}
std::string_view indexSql() {
    return kIndexes;
}
std::string_view dropIndexSql() {
    return kDropIndexes;
}

}  // namespace ts::store
