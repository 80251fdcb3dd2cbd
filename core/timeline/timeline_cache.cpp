#include "core/timeline/timeline_cache.h"

#include <cstring>
#include <unordered_map>
#include <vector>

#include "core/store/sqlite_db.h"

namespace ts::timeline {
namespace {

using store::SqliteDb;
using store::Statement;

constexpr const char* kKeyName = "timeline_cache_key";

template <class T>
bool fromBlob(std::string_view blob, int64_t count, std::vector<T>& out) {
    if (count < 0 || blob.size() != static_cast<size_t>(count) * sizeof(T)) return false;
    out.resize(static_cast<size_t>(count));
    if (count) std::memcpy(out.data(), blob.data(), blob.size());
    return true;
}

template <class T>
void bindVector(Statement& st, int idx, const std::vector<T>& v) {
    static const char kEmpty = 0;
    st.bindBlob(idx, v.empty() ? &kEmpty : static_cast<const void*>(v.data()),
                v.size() * sizeof(T));
}

}  // namespace

Result<std::string> timelineCacheKey(SqliteDb& db) {
    // Only small tables: max(id) of the slices table would scan it whole (it is clustered by
    // track and time), which is what the cache exists to avoid. Slices come and go with
    // sources and tracks (new ids every import) and their per-track totals.
    Statement st = db.prepare(
        "SELECT (SELECT coalesce(sum(count), 0) FROM slice_name_stats), "
        "(SELECT coalesce(sum(total_dur), 0) FROM slice_name_stats), "
        "(SELECT count(*) FROM tracks), (SELECT coalesce(max(id), 0) FROM tracks), "
        "(SELECT count(*) FROM sources), (SELECT coalesce(max(id), 0) FROM sources)");
    if (!st.step()) return Error{st.error().empty() ? "no key" : st.error()};
    std::string key = "v2-" + std::to_string(sizeof(void*)) + "-" + std::to_string(st.int64(0));
    for (int c = 1; c < 6; ++c) key += ":" + std::to_string(st.int64(c));
    return key;
}

bool readTimelineCache(SqliteDb& db, const std::string& key, TimelineModel& m) {
    Statement k = db.prepare("SELECT value FROM meta WHERE key = ?");
    k.bind(1, kKeyName);
    if (!k.step() || k.text(0) != key) return false;
    Statement st = db.prepare(
        "SELECT track_id, level, depth, count, ts, dur, name_id, slice_id FROM timeline_cache "
        "ORDER BY track_id, level");
    if (!st.ok()) return false;
    std::unordered_map<int64_t, size_t> byId;
    for (size_t i = 0; i < m.tracks.size(); ++i) byId[m.tracks[i].id] = i;
    bool ok = true;
    while (ok && st.step()) {
        auto it = byId.find(st.int64(0));
        if (it == byId.end()) {
            ok = false;
            break;
        }
        TimelineTrack& t = m.tracks[it->second];
        if (st.int64(1) != static_cast<int64_t>(t.levels.size())) {
            ok = false;
            break;
        }
        SliceLevel lv;
        lv.depth = static_cast<int32_t>(st.int64(2));
        const int64_t n = st.int64(3);
        ok = fromBlob(st.blob(4), n, lv.ts) && fromBlob(st.blob(5), n, lv.dur) &&
             fromBlob(st.blob(6), n, lv.name) && fromBlob(st.blob(7), n, lv.sliceId);
        t.sliceCount += n;
        t.levels.push_back(std::move(lv));
    }
    if (!ok || !st.error().empty()) {
        for (auto& t : m.tracks) {
            t.levels.clear();
            t.sliceCount = 0;
        }
        return false;
    }
    m.sliceCount = 0;
    for (const auto& t : m.tracks) m.sliceCount += t.sliceCount;
    return true;
}

Status writeTimelineCache(const std::string& path, const TimelineModel& m, const std::string& key) {
    auto db = SqliteDb::open(path, SqliteDb::Mode::ReadWrite);
    if (!db) return Error{db.error()};
    SqliteDb& d = db.value();
    d.exec("PRAGMA busy_timeout=2000");
    if (auto s = d.exec("BEGIN IMMEDIATE"); !s) return s;
    auto fail = [&](const std::string& e) {
        d.exec("ROLLBACK");
        return Status(Error{e});
    };
    auto now = timelineCacheKey(d);
    if (!now) return fail(now.error());
    if (now.value() != key) return fail("session changed while the timeline was loading");
    if (auto s = d.exec("DELETE FROM timeline_cache"); !s) return fail(s.error());
    Statement ins = d.prepare(
        "INSERT INTO timeline_cache(track_id, level, depth, count, ts, dur, name_id, slice_id) "
        "VALUES(?,?,?,?,?,?,?,?)");
    if (!ins.ok()) return fail(ins.error());
    std::vector<int64_t> absolute;
    for (const auto& t : m.tracks)
        for (size_t l = 0; l < t.levels.size(); ++l) {
            const SliceLevel& lv = t.levels[l];
            ins.bind(1, t.id).bind(2, static_cast<int64_t>(l)).bind(3, lv.depth);
            ins.bind(4, static_cast<int64_t>(lv.size()));
            if (m.originNs == 0) {
                bindVector(ins, 5, lv.ts);
            } else {  // the cache holds store times
                absolute.resize(lv.ts.size());
                for (size_t i = 0; i < lv.ts.size(); ++i) absolute[i] = lv.ts[i] + m.originNs;
                bindVector(ins, 5, absolute);
            }
            bindVector(ins, 6, lv.dur);
            bindVector(ins, 7, lv.name);
            bindVector(ins, 8, lv.sliceId);
            if (auto s = ins.run(); !s) return fail(s.error());
        }
    Statement meta = d.prepare("INSERT OR REPLACE INTO meta(key, value) VALUES(?, ?)");
    meta.bind(1, kKeyName).bind(2, key);
    if (auto s = meta.run(); !s) return fail(s.error());
    return d.exec("COMMIT");
}

Status buildTimelineCache(const std::string& path, JobControl* job) {
    auto m = loadTimelineModel(path, job);
    if (!m) return Error{m.error()};
    if (m.value()->fromCache) return {};
    return writeTimelineCache(path, *m.value(), m.value()->cacheKey);
}

}  // namespace ts::timeline
