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

uint64_t zigzag(int64_t v) {
    return (static_cast<uint64_t>(v) << 1) ^ static_cast<uint64_t>(v >> 63);
}
int64_t unzigzag(uint64_t u) {
    return static_cast<int64_t>((u >> 1) ^ (~(u & 1) + 1));
}
// Wrapping difference and sum, so deltas of any int64 values round-trip.
int64_t minus(int64_t a, int64_t b) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) - static_cast<uint64_t>(b));
}
int64_t plus(int64_t a, int64_t b) {
    return static_cast<int64_t>(static_cast<uint64_t>(a) + static_cast<uint64_t>(b));
}

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

std::string encodeSliceChunk(std::span<StoredSlice> rows, ChunkSummary& sum) {
    if (!std::is_sorted(rows.begin(), rows.end(), tsIdBefore))
        std::sort(rows.begin(), rows.end(), tsIdBefore);
    sum = {};
    sum.count = static_cast<int64_t>(rows.size());
    std::array<std::string, kStreams> s;
    for (std::string& x : s) x.reserve(rows.size() * 2);
    int64_t prevId = 0, prevTs = 0, prevArgs = 0;
    bool first = true;
    for (const StoredSlice& r : rows) {
        putVarint(s[0], zigzag(first ? r.id : minus(r.id, prevId)));
        putVarint(s[1], zigzag(first ? r.row.ts : minus(r.row.ts, prevTs)));
        putVarint(s[2], zigzag(r.row.dur));
        putVarint(s[3], zigzag(r.row.depth));
        putVarint(s[4], zigzag(r.row.nameId));
        putVarint(s[5], zigzag(r.row.catId));
        if (r.row.argSetId == 0) {
            putVarint(s[6], 0);
        } else {
            putVarint(s[6], 1 + zigzag(minus(r.row.argSetId, prevArgs)));
            prevArgs = r.row.argSetId;
        }
        putVarint(s[7], zigzag(r.row.flags));
        const int64_t end = plus(r.row.ts, std::max<int64_t>(0, r.row.dur));
        if (first) {
            sum.minId = sum.maxId = r.id;
            sum.maxEnd = end;
        }
        sum.minId = std::min(sum.minId, r.id);
        sum.maxId = std::max(sum.maxId, r.id);
        sum.maxEnd = std::max(sum.maxEnd, end);
        prevId = r.id;
        prevTs = r.row.ts;
        first = false;
    }
    if (!rows.empty()) {
        sum.minTs = rows.front().row.ts;
        sum.maxTs = rows.back().row.ts;
        sum.firstId = rows.front().id;
        sum.lastId = rows.back().id;
    }
    std::string out;
    size_t total = 0;
    for (const std::string& x : s) total += x.size();
    out.reserve(total + 2 + 10 * (kStreams + 1));
    out.push_back(static_cast<char>(kFormat));
    putVarint(out, rows.size());
    for (const std::string& x : s) putVarint(out, x.size());
    for (const std::string& x : s) out += x;
    return out;
}

TrackChunks encodeTrackChunks(int64_t trackId, std::vector<StoredSlice>& rows) {
    TrackChunks t;
    t.trackId = trackId;
    t.slices = static_cast<int64_t>(rows.size());
    if (!std::is_sorted(rows.begin(), rows.end(), tsIdBefore))
        std::sort(rows.begin(), rows.end(), tsIdBefore);
    for (size_t at = 0; at < rows.size(); at += kSliceChunkRows) {
        ChunkSummary s;
        t.blobs.push_back(encodeSliceChunk(
            std::span<StoredSlice>(rows).subspan(at, std::min(kSliceChunkRows, rows.size() - at)),
            s));
        t.summaries.push_back(s);
    }
    std::unordered_map<int64_t, size_t> index;  // name id -> t.names
    for (const StoredSlice& r : rows) {
        auto [it, added] = index.emplace(r.row.nameId, t.names.size());
        if (added) t.names.push_back({r.row.nameId, 0, 0, r.row.dur, r.row.dur});
        TrackChunks::NameTotal& n = t.names[it->second];
        ++n.count;
        n.total += r.row.dur;
        n.min = std::min(n.min, r.row.dur);
        n.max = std::max(n.max, r.row.dur);
    }
    return t;
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
                 prev = firstRow ? unzigzag(u) : plus(prev, unzigzag(u));
                 firstRow = false;
                 return prev;
             });
    }
    if (wants(kSliceTs)) {
        int64_t prev = 0;
        bool firstRow = true;
        ok = ok && decodeStream(reader(kStreamOf[kSliceTs]), n, out.ts, [&](uint64_t u) {
                 prev = firstRow ? unzigzag(u) : plus(prev, unzigzag(u));
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
                 prev = plus(prev, unzigzag(u - 1));
                 return prev;
             });
    }
    if (wants(kSliceFlags))
        ok = ok && decodeStream(reader(kStreamOf[kSliceFlags]), n, out.flags, plain);
    if (!ok) return fail(why, "slice chunk: damaged column stream");
    return true;
}

}  // namespace ts::store
