#include "core/store/slice_scan.h"

#include <algorithm>
#include <tuple>

namespace ts::store {
namespace {

constexpr uint32_t kAlways = (1u << kSliceTs) | (1u << kSliceId);

}  // namespace

SliceScanner::SliceScanner(sqlite3* db) : m_reader(db) {}

SliceScanner::~SliceScanner() = default;

Status SliceScanner::start(std::shared_ptr<const SliceDirectory> dir, const SliceBounds& b,
                           uint32_t columns) {
    if (dir != m_dir) m_recent.clear();
    m_dir = std::move(dir);
    m_b = b;
    m_columns = columns | kAlways;
    m_active.clear();
    m_cur = -1;
    m_next = m_groupEnd = m_end = 0;
    if (b.empty() || !m_dir) return {};
    if (b.idLo == b.idHi) {  // point lookup: only the chunk(s) whose id bounds hold it
        m_found.clear();
        m_dir->chunksHolding(b.idLo, m_found);
        for (size_t i : m_found) {
            const ChunkInfo& c = m_dir->chunks()[i];
            if (c.trackId < b.trackLo || c.trackId > b.trackHi || c.s.maxTs < b.tsLo ||
                c.s.minTs > b.tsHi)
                continue;
            if (auto s = open(c, true); !s) return s;
        }
        pick();
        return {};
    }
    std::tie(m_next, m_end) = m_dir->trackRange(b.trackLo, b.trackHi);
    return startGroup();
}

Status SliceScanner::startGroup() {
    const auto& cs = m_dir->chunks();
    while (m_next < m_end) {
        m_groupEnd = m_next;
        while (m_groupEnd < m_end && cs[m_groupEnd].trackId == cs[m_next].trackId) ++m_groupEnd;
        if (auto s = fill(); !s) return s;
        pick();
        if (m_cur >= 0) return {};
        m_next = m_groupEnd;
    }
    return {};
}

// Opens the track's next chunks for as long as one may hold a row that sorts before every
// row of the open ones (chunks are ordered by their first row).
Status SliceScanner::fill() {
    const auto& cs = m_dir->chunks();
    while (m_next < m_groupEnd) {
        const ChunkInfo& c = cs[m_next];
        if (c.s.minTs > m_b.tsHi) {  // and so do the later chunks of the track
            m_next = m_groupEnd;
            break;
        }
        if (c.s.maxTs < m_b.tsLo || c.s.maxId < m_b.idLo || c.s.minId > m_b.idHi) {
            ++m_next;
            continue;
        }
        if (!m_active.empty()) {
            pick();
            const Run& r = run();
            if (std::make_pair(c.s.minTs, c.s.firstId) >
                std::make_pair(r.cols->ts[r.pos], r.cols->id[r.pos]))
                break;
        }
        ++m_next;
        if (auto s = open(c, false); !s) return s;
    }
    return {};
}

Result<std::shared_ptr<const SliceColumns>> SliceScanner::decode(const ChunkInfo& c) {
    for (const Decoded& d : m_recent)
        if (d.rowid == c.rowid && (d.columns & m_columns) == m_columns) return d.cols;
    auto cols = m_reader.read(c, m_columns);
    if (!cols) return cols;
    if (m_recent.size() == kRecent) m_recent.erase(m_recent.begin());
    m_recent.push_back({c.rowid, m_columns, cols.value()});
    return cols;
}

Status SliceScanner::open(const ChunkInfo& c, bool single) {
    auto cols = decode(c);
    if (!cols) return Error{cols.error()};
    Run r;
    r.cols = std::move(cols.value());
    r.track = c.trackId;
    const auto& ts = r.cols->ts;
    r.pos = static_cast<size_t>(std::lower_bound(ts.begin(), ts.end(), m_b.tsLo) - ts.begin());
    r.end = static_cast<size_t>(
        std::upper_bound(ts.begin() + static_cast<ptrdiff_t>(r.pos), ts.end(), m_b.tsHi) -
        ts.begin());
    skipFiltered(r);
    if (single && r.pos < r.end) r.end = r.pos + 1;  // ids are unique
    if (r.pos < r.end) m_active.push_back(std::move(r));
    return {};
}

void SliceScanner::skipFiltered(Run& r) const {
    if (m_b.idLo == SliceBounds::kMin && m_b.idHi == SliceBounds::kMax) return;
    const auto& id = r.cols->id;
    while (r.pos < r.end && (id[r.pos] < m_b.idLo || id[r.pos] > m_b.idHi)) ++r.pos;
}

void SliceScanner::pick() {
    m_cur = -1;
    for (size_t i = 0; i < m_active.size(); ++i) {
        if (m_cur < 0) {
            m_cur = static_cast<int>(i);
            continue;
        }
        const Run& a = m_active[i];
        const Run& b = run();
        if (std::make_tuple(a.track, a.cols->ts[a.pos], a.cols->id[a.pos]) <
            std::make_tuple(b.track, b.cols->ts[b.pos], b.cols->id[b.pos]))
            m_cur = static_cast<int>(i);
    }
}

Status SliceScanner::next() {
    if (m_cur < 0) return {};
    Run& r = m_active[static_cast<size_t>(m_cur)];
    ++r.pos;
    skipFiltered(r);
    if (r.pos >= r.end) m_active.erase(m_active.begin() + m_cur);
    if (auto s = fill(); !s) return s;
    pick();
    if (m_cur >= 0) return {};
    m_next = m_groupEnd;
    return startGroup();
}

int64_t SliceScanner::column(int c) const {
    switch (c) {
        case kSliceId:
            return id();
        case kSliceTrack:
            return track();
        case kSliceTs:
            return ts();
        case kSliceDur:
            return dur();
        case kSliceDepth:
            return depth();
        case kSliceName:
            return nameId();
        case kSliceCat:
            return catId();
        case kSliceArgs:
            return argSetId();
        case kSliceFlags:
            return flags();
        default:
            return 0;
    }
}

}  // namespace ts::store
