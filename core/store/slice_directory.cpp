#include "core/store/slice_directory.h"

#include <sqlite3.h>

#include <algorithm>
#include <string>

namespace ts::store {

Result<std::shared_ptr<const SliceDirectory>> SliceDirectory::load(sqlite3* db) {
    auto dir = std::make_shared<SliceDirectory>();
    sqlite3_stmt* st = nullptr;
    const char* sql =
        "SELECT id, track_id, count, min_ts, max_ts, max_end, min_id, max_id, first_id, "
        "last_id FROM slice_chunks";
    if (sqlite3_prepare_v2(db, sql, -1, &st, nullptr) != SQLITE_OK)
        return Error{std::string("slice chunks: ") + sqlite3_errmsg(db)};
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        ChunkInfo c;
        c.rowid = sqlite3_column_int64(st, 0);
        c.trackId = sqlite3_column_int64(st, 1);
        c.s.count = sqlite3_column_int64(st, 2);
        c.s.minTs = sqlite3_column_int64(st, 3);
        c.s.maxTs = sqlite3_column_int64(st, 4);
        c.s.maxEnd = sqlite3_column_int64(st, 5);
        c.s.minId = sqlite3_column_int64(st, 6);
        c.s.maxId = sqlite3_column_int64(st, 7);
        c.s.firstId = sqlite3_column_int64(st, 8);
        c.s.lastId = sqlite3_column_int64(st, 9);
        dir->m_rows += c.s.count;
        dir->m_chunks.push_back(c);
    }
    std::string err = rc == SQLITE_DONE ? "" : sqlite3_errmsg(db);
    sqlite3_finalize(st);
    if (!err.empty()) return Error{"slice chunks: " + err};

    auto& cs = dir->m_chunks;
    std::sort(cs.begin(), cs.end(), [](const ChunkInfo& a, const ChunkInfo& b) {
        if (a.trackId != b.trackId) return a.trackId < b.trackId;
        if (a.s.minTs != b.s.minTs) return a.s.minTs < b.s.minTs;
        if (a.s.firstId != b.s.firstId) return a.s.firstId < b.s.firstId;
        return a.rowid < b.rowid;
    });
    for (size_t i = 0; i < cs.size(); ++i)
        if (i == 0 || cs[i].trackId != cs[i - 1].trackId) ++dir->m_tracks;
    dir->m_byMinId.resize(cs.size());
    for (size_t i = 0; i < cs.size(); ++i) dir->m_byMinId[i] = static_cast<uint32_t>(i);
    std::sort(dir->m_byMinId.begin(), dir->m_byMinId.end(),
              [&](uint32_t a, uint32_t b) { return cs[a].s.minId < cs[b].s.minId; });
    dir->m_prefixMaxId.resize(cs.size());
    for (size_t i = 0; i < cs.size(); ++i) {
        const int64_t m = cs[dir->m_byMinId[i]].s.maxId;
        dir->m_prefixMaxId[i] = i == 0 ? m : std::max(m, dir->m_prefixMaxId[i - 1]);
    }
    return std::shared_ptr<const SliceDirectory>(std::move(dir));
}

std::pair<size_t, size_t> SliceDirectory::trackRange(int64_t lo, int64_t hi) const {
    if (lo > hi) return {0, 0};
    auto b = std::lower_bound(m_chunks.begin(), m_chunks.end(), lo,
                              [](const ChunkInfo& c, int64_t t) { return c.trackId < t; });
    auto e = std::upper_bound(b, m_chunks.end(), hi,
                              [](int64_t t, const ChunkInfo& c) { return t < c.trackId; });
    return {static_cast<size_t>(b - m_chunks.begin()), static_cast<size_t>(e - m_chunks.begin())};
}

void SliceDirectory::chunksHolding(int64_t id, std::vector<size_t>& out) const {
    // Chunks with minId <= id, walked from the largest minId down while some chunk at or
    // before the position may still reach id (prefix max of maxId).
    auto it = std::upper_bound(m_byMinId.begin(), m_byMinId.end(), id,
                               [&](int64_t v, uint32_t i) { return v < m_chunks[i].s.minId; });
    for (auto i = static_cast<ptrdiff_t>(it - m_byMinId.begin()) - 1; i >= 0; --i) {
        if (m_prefixMaxId[static_cast<size_t>(i)] < id) break;
        const uint32_t c = m_byMinId[static_cast<size_t>(i)];
        if (m_chunks[c].s.maxId >= id) out.push_back(c);
    }
}

}  // namespace ts::store
