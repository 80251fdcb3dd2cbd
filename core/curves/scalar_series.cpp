#include "core/curves/scalar_series.h"

#include <algorithm>
#include <array>
#include <limits>
#include <map>

#include <sqlite3.h>

#include "core/store/trace_store.h"

namespace ts::curves {
namespace {

using store::Statement;
using store::TraceStore;

int tagRank(std::string_view tag) {
    static constexpr std::array<std::string_view, 3> kFirst = {"train/loss", "eval/loss",
                                                               "eval/accuracy"};
    for (size_t i = 0; i < kFirst.size(); ++i)
        if (tag == kFirst[i]) return static_cast<int>(i);
    if (tag.starts_with("train/")) return 3;
    if (tag.starts_with("eval/")) return 4;
    if (tag == "lr") return 5;
    if (tag == "loss_scale") return 6;
    if (tag == "samples_per_s") return 7;
    return 8;
}

/// Reads rows of one run; `incremental` reads by rowid range (only the new rows), else
/// through the (run_id, tag_id, step) index.
Statement prepareScalars(TraceStore& store, bool incremental, bool byTag) {
    std::string sql =
        "SELECT s.rowid, st.str, s.step, s.wall_time, s.value FROM scalars s "
        "JOIN strings st ON st.id = s.tag_id WHERE ";
    // `+s.run_id` keeps SQLite from choosing the run index, so a poll scans only new rows.
    sql += incremental ? "+s.run_id = ?1 AND s.rowid > ?2" : "s.run_id = ?1 AND s.rowid > ?2";
    if (byTag) sql += " AND st.str = ?3";
    // A whole read comes in index order (by tag, then step): no sort needed. New rows come
    // in write order.
    if (incremental) sql += " ORDER BY s.rowid";
    return store.db().prepare(sql);
}

Status readRows(TraceStore& store, int64_t runId, ScalarCursor after, std::string_view tag,
                RunScalars& out) {
    auto run = store.db().prepare("SELECT name, status, started_at FROM runs WHERE id = ?1");
    if (!run.ok()) return Error{run.error()};
    run.bind(1, runId);
    if (!run.step()) {
        if (!run.error().empty()) return Error{run.error()};
        return Error{"no run with id " + std::to_string(runId)};
    }
    out.name = run.isNull(0) ? std::string() : run.text(0);
    out.status = store::parseRunStatus(run.textView(1));
    out.startedAtNs = run.isNull(2) ? 0 : run.int64(2);

    auto rows = prepareScalars(store, after.scalarRowid > 0, !tag.empty());
    if (!rows.ok()) return Error{rows.error()};
    rows.bind(1, runId).bind(2, after.scalarRowid);
    if (!tag.empty()) rows.bind(3, tag);
    std::map<std::string, size_t, std::less<>> index;
    out.cursor = after;
    while (rows.step()) {
        out.cursor.scalarRowid = std::max(out.cursor.scalarRowid, rows.int64(0));
        const std::string_view name = rows.textView(1);
        auto it = index.find(name);
        if (it == index.end()) {
            it = index.emplace(std::string(name), out.series.size()).first;
            out.series.push_back(ScalarSeries{std::string(name), {}});
        }
        // NULL values cannot be stored (NOT NULL), but a NaN written by SQLite reads as NULL.
        const double v = rows.isNull(4) ? std::numeric_limits<double>::quiet_NaN() : rows.real(4);
        out.series[it->second].points.push_back({rows.int64(2), rows.int64(3), v});
    }
    if (!rows.error().empty()) return Error{rows.error()};
    std::stable_sort(
        out.series.begin(), out.series.end(),
        [](const ScalarSeries& a, const ScalarSeries& b) { return tagLess(a.tag, b.tag); });

    auto ovf = store.db().prepare(
        "SELECT id, step, ts FROM overflow_findings WHERE run_id = ?1 AND id > ?2 "
        "AND origin = 'loss_scale' ORDER BY id");
    if (!ovf.ok()) return Error{ovf.error()};
    ovf.bind(1, runId).bind(2, after.overflowId);
    while (ovf.step()) {
        out.cursor.overflowId = ovf.int64(0);
        out.overflows.push_back(
            {ovf.isNull(1) ? 0 : ovf.int64(1), ovf.isNull(2) ? 0 : ovf.int64(2)});
    }
    if (!ovf.error().empty()) return Error{ovf.error()};
    return Status::success();
}

}  // namespace

const ScalarSeries* RunScalars::find(std::string_view tag) const {
    for (const auto& s : series)
        if (s.tag == tag) return &s;
    return nullptr;
}

bool tagLess(std::string_view a, std::string_view b) {
    const int ra = tagRank(a), rb = tagRank(b);
    return ra != rb ? ra < rb : a < b;
}

Result<std::vector<RunEntry>> listRuns(TraceStore& store) {
    auto runs = store.runs();
    if (!runs) return Error{runs.error()};
    std::vector<RunEntry> out;
    std::map<int64_t, size_t> byId;
    for (const auto& r : runs.value()) {
        byId[r.id] = out.size();
        out.push_back(RunEntry{r.id, r.name, r.status, r.reason, r.startedAt, r.endedAt, {}});
    }
    auto tags = store.db().prepare(
        "SELECT t.run_id, st.str FROM (SELECT DISTINCT run_id, tag_id FROM scalars) t "
        "JOIN strings st ON st.id = t.tag_id");
    if (!tags.ok()) return Error{tags.error()};
    while (tags.step()) {
        auto it = byId.find(tags.int64(0));
        if (it != byId.end()) out[it->second].tags.push_back(tags.text(1));
    }
    if (!tags.error().empty()) return Error{tags.error()};
    for (auto& r : out)
        std::sort(r.tags.begin(), r.tags.end(),
                  [](const std::string& a, const std::string& b) { return tagLess(a, b); });
    return out;
}

Result<RunScalars> readRunScalars(TraceStore& store, int64_t runId, ScalarCursor after,
                                  std::string_view tag) {
    RunScalars out;
    out.runId = runId;
    // One read transaction: the status and the rows come from the same snapshot.
    // A deferred BEGIN takes no write lock, so it works on read-only connections and never
    // waits for the engine's writer.
    const bool ownTx = sqlite3_get_autocommit(store.db().handle()) != 0;
    if (ownTx)
        if (auto s = store.db().exec("BEGIN DEFERRED"); !s) return Error{s.error()};
    const Status read = readRows(store, runId, after, tag, out);
    if (ownTx) (void)store.db().exec("COMMIT");
    if (!read) return Error{read.error()};
    return out;
}

std::vector<std::string> mergeScalars(RunScalars& into, RunScalars&& delta) {
    std::vector<std::string> added;
    for (auto& s : delta.series) {
        auto it = std::find_if(into.series.begin(), into.series.end(),
                               [&](const ScalarSeries& x) { return x.tag == s.tag; });
        if (it == into.series.end()) {
            added.push_back(s.tag);
            into.series.push_back(std::move(s));
        } else {
            it->points.insert(it->points.end(), s.points.begin(), s.points.end());
        }
    }
    into.overflows.insert(into.overflows.end(), delta.overflows.begin(), delta.overflows.end());
    into.runId = delta.runId;
    into.name = std::move(delta.name);
    into.status = std::move(delta.status);
    into.startedAtNs = delta.startedAtNs;
    into.cursor = delta.cursor;
    return added;
}

}  // namespace ts::curves
