#include "core/store/slice_chunk.h"

#include <algorithm>
#include <array>
#include <unordered_map>

#include "core/store/varint.h"

namespace ts::store {
namespace {

constexpr uint8_t kFormat = 1;
constexpr int kStreams = 8;  // id, ts, dur, depth, name, cat, args, flags
// Stream index of each SliceColumn (-1: not in the BLOB).
constexpr std::array<int, kSliceColumnCount> kStreamOf = {0, -1, 1, 2, 3, 4, 5, 6, 7};

bool fail(std::string* why, const char* what) {
    if (why) *why = what;
    return false;
}

template <class T, class F>
bool decodeStream(VarintReader r, size_t n, std::vector<T>& out, F value) {
    out.resize(n);
    for (size_t i = 0; i < n; ++i) out[i] = static_cast<T>(value(r.next()));
    return r.ok() && r.atEnd();
}

bool tsIdBefore(const StoredSlice& a, const StoredSlice& b) {
    return a.row.ts != b.row.ts ? a.row.ts < b.row.ts : a.id < b.id;
}

}  // namespace

namespace {

char* putVarintAt(char* p, uint64_t v) {
    while (v >= 0x80) {
        *p++ = static_cast<char>(v | 0x80);
        v >>= 7;
    }
    *p++ = static_cast<char>(v);
    return p;
}

// Encodes rows sorted by (ts, id): each column's stream into its part of `scratch` (10
// bytes a value at most), then header and streams into one string.
std::string encodeSorted(std::span<const StoredSlice> rows, ChunkSummary& sum,
                         std::vector<char>& scratch) {
    const size_t n = rows.size();
    sum = {};
    sum.count = static_cast<int64_t>(n);
    if (n) {
        sum.minTs = rows.front().row.ts;
        sum.maxTs = rows.back().row.ts;
        sum.firstId = rows.front().id;
        sum.lastId = rows.back().id;
        sum.minId = sum.maxId = rows.front().id;
        sum.maxEnd = wrappingPlus(rows.front().row.ts, std::max<int64_t>(0, rows.front().row.dur));
    }
    scratch.resize(n * 10 * kStreams + 16);
    std::array<char*, kStreams> begin, end;
    for (int k = 0; k < kStreams; ++k) begin[k] = end[k] = scratch.data() + n * 10 * k;
    int64_t prevId = 0, prevTs = 0;
    for (const StoredSlice& r : rows) {  // id, ts (deltas) and the summary
        end[0] = putVarintAt(end[0], zigzag(wrappingMinus(r.id, prevId)));
        end[1] = putVarintAt(end[1], zigzag(wrappingMinus(r.row.ts, prevTs)));
        prevId = r.id;
        prevTs = r.row.ts;
        sum.minId = std::min(sum.minId, r.id);
        sum.maxId = std::max(sum.maxId, r.id);
        sum.maxEnd = std::max(sum.maxEnd, wrappingPlus(r.row.ts, std::max<int64_t>(0, r.row.dur)));
    }
    for (const StoredSlice& r : rows) end[2] = putVarintAt(end[2], zigzag(r.row.dur));
    for (const StoredSlice& r : rows) end[3] = putVarintAt(end[3], zigzag(r.row.depth));
    for (const StoredSlice& r : rows) end[4] = putVarintAt(end[4], zigzag(r.row.nameId));
    for (const StoredSlice& r : rows) end[5] = putVarintAt(end[5], zigzag(r.row.catId));
    int64_t prevArgs = 0;
    for (const StoredSlice& r : rows) {
        if (r.row.argSetId == 0) {
            *end[6]++ = 0;
        } else {
            end[6] = putVarintAt(end[6], 1 + zigzag(wrappingMinus(r.row.argSetId, prevArgs)));
            prevArgs = r.row.argSetId;
        }
    }
    for (const StoredSlice& r : rows) end[7] = putVarintAt(end[7], zigzag(r.row.flags));
    char head[10 * (kStreams + 2)];
    char* h = head;
    *h++ = static_cast<char>(kFormat);
    h = putVarintAt(h, n);
    size_t total = 0;
    for (int k = 0; k < kStreams; ++k) {
        h = putVarintAt(h, static_cast<uint64_t>(end[k] - begin[k]));
        total += static_cast<size_t>(end[k] - begin[k]);
    }
    std::string out;
    out.reserve(static_cast<size_t>(h - head) + total);
    out.append(head, h);
    for (int k = 0; k < kStreams; ++k) out.append(begin[k], end[k]);
    return out;
}

}  // namespace

std::string encodeSliceChunk(std::span<StoredSlice> rows, ChunkSummary& sum,
                             std::vector<char>& scratch) {
    if (!std::is_sorted(rows.begin(), rows.end(), tsIdBefore))
        std::sort(rows.begin(), rows.end(), tsIdBefore);
    return encodeSorted(rows, sum, scratch);
}

std::string encodeSliceChunk(std::span<StoredSlice> rows, ChunkSummary& sum) {
    std::vector<char> scratch;
    return encodeSliceChunk(rows, sum, scratch);
}

TrackChunkEncoder::TrackChunkEncoder(int64_t trackId) {
    m_out.trackId = trackId;
    m_rows.reserve(kSliceChunkRows);
}

void TrackChunkEncoder::add(const StoredSlice& r) {
    m_rows.push_back(r);
    ++m_out.slices;
    // By-name totals: name ids are small and dense (interned strings): a flat table by id.
    const int64_t name = r.row.nameId;
    int32_t* slot = nullptr;
    if (name >= 0 && name < kDenseNames) {
        if (static_cast<size_t>(name) >= m_nameSlot.size())
            m_nameSlot.resize(static_cast<size_t>(name) + 1, -1);
        slot = &m_nameSlot[static_cast<size_t>(name)];
    } else {
        slot = &m_sparseSlot.try_emplace(name, -1).first->second;
    }
    if (*slot < 0) {
        *slot = static_cast<int32_t>(m_out.names.size());
        m_out.names.push_back({name, 0, 0, r.row.dur, r.row.dur});
    }
    TrackChunks::NameTotal& n = m_out.names[static_cast<size_t>(*slot)];
    ++n.count;
    n.total += r.row.dur;
    n.min = std::min(n.min, r.row.dur);
    n.max = std::max(n.max, r.row.dur);
    if (m_rows.size() == kSliceChunkRows) encodeChunk();
}

void TrackChunkEncoder::encodeChunk() {
    if (m_rows.empty()) return;
    m_out.summaries.emplace_back();
    m_out.blobs.push_back(encodeSorted(m_rows, m_out.summaries.back(), m_scratch));
    m_rows.clear();
}

TrackChunks TrackChunkEncoder::finish() {
    encodeChunk();
    TrackChunks out = std::move(m_out);
    m_out = TrackChunks{};
    m_out.trackId = out.trackId;
    m_nameSlot.clear();
    m_sparseSlot.clear();
    return out;
}

TrackChunks TrackChunkEncoder::takeChunks() {
    TrackChunks out;
    out.trackId = m_out.trackId;
    out.summaries = std::move(m_out.summaries);
    out.blobs = std::move(m_out.blobs);
    m_out.summaries.clear();
    m_out.blobs.clear();
    for (const ChunkSummary& c : out.summaries) out.slices += c.count;
    m_out.slices -= out.slices;
    return out;
}

bool decodeSliceChunk(std::string_view blob, uint32_t columns, SliceColumns& out,
                      std::string* why) {
    const auto* p = reinterpret_cast<const uint8_t*>(blob.data());
    const uint8_t* end = p + blob.size();
    if (blob.empty() || p[0] != kFormat) return fail(why, "slice chunk: unknown format");
    VarintReader head(p + 1, end);
    const uint64_t count = head.next();
    std::array<uint64_t, kStreams> len{};
    for (uint64_t& l : len) l = head.next();
    if (!head.ok() || count > (uint64_t{1} << 32)) return fail(why, "slice chunk: damaged header");
    std::array<const uint8_t*, kStreams + 1> at{};
    at[0] = head.pos();
    for (int i = 0; i < kStreams; ++i) {
        if (at[i] > end || len[i] > static_cast<uint64_t>(end - at[i]))
            return fail(why, "slice chunk: stream lengths exceed the BLOB");
        at[i + 1] = at[i] + len[i];
    }
    const size_t n = static_cast<size_t>(count);
    out.count = n;
    auto reader = [&](int stream) { return VarintReader(at[stream], at[stream + 1]); };
    auto wants = [&](SliceColumn c) { return (columns >> c) & 1u; };
    bool ok = true;
    if (wants(kSliceId)) {
        int64_t prev = 0;
        bool firstRow = true;
        ok = ok && decodeStream(reader(kStreamOf[kSliceId]), n, out.id, [&](uint64_t u) {
                 prev = firstRow ? unzigzag(u) : wrappingPlus(prev, unzigzag(u));
                 firstRow = false;
                 return prev;
             });
    }
    if (wants(kSliceTs)) {
        int64_t prev = 0;
        bool firstRow = true;
        ok = ok && decodeStream(reader(kStreamOf[kSliceTs]), n, out.ts, [&](uint64_t u) {
                 prev = firstRow ? unzigzag(u) : wrappingPlus(prev, unzigzag(u));
                 firstRow = false;
                 return prev;
             });
    }
    auto plain = [](uint64_t u) { return unzigzag(u); };
    if (wants(kSliceDur)) ok = ok && decodeStream(reader(kStreamOf[kSliceDur]), n, out.dur, plain);
    if (wants(kSliceDepth))
        ok = ok && decodeStream(reader(kStreamOf[kSliceDepth]), n, out.depth, plain);
    if (wants(kSliceName))
        ok = ok && decodeStream(reader(kStreamOf[kSliceName]), n, out.nameId, plain);
    if (wants(kSliceCat))
        ok = ok && decodeStream(reader(kStreamOf[kSliceCat]), n, out.catId, plain);
    if (wants(kSliceArgs)) {
        int64_t prev = 0;
        ok = ok && decodeStream(reader(kStreamOf[kSliceArgs]), n, out.argSetId, [&](uint64_t u) {
                 if (u == 0) return int64_t{0};
                 prev = wrappingPlus(prev, unzigzag(u - 1));
                 return prev;
             });
    }
    if (wants(kSliceFlags))
        ok = ok && decodeStream(reader(kStreamOf[kSliceFlags]), n, out.flags, plain);
    if (!ok) return fail(why, "slice chunk: damaged column stream");
    return true;
}

}  // namespace ts::store
