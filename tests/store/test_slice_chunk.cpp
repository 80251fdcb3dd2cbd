// The slice chunk codec: every value round-trips (extremes included), rows come back sorted
// by (ts, id) with a summary that matches them, only the columns asked for are decoded, and
// a damaged BLOB is refused without reading outside it.
#include <gtest/gtest.h>

#include <limits>
#include <random>

#include "core/store/slice_chunk.h"

namespace ts::store {
namespace {

constexpr int64_t kMin = std::numeric_limits<int64_t>::min();
constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

std::vector<StoredSlice> randomRows(std::mt19937_64& rng, size_t n) {
    std::vector<StoredSlice> rows(n);
    std::uniform_int_distribution<int> pick(0, 9);
    auto value = [&](int64_t small) -> int64_t {
        switch (pick(rng)) {
            case 0:
                return kMin;
            case 1:
                return kMax;
            case 2:
                return static_cast<int64_t>(rng());
            default:
                return static_cast<int64_t>(rng() % static_cast<uint64_t>(small));
        }
    };
    for (size_t i = 0; i < n; ++i) {
        StoredSlice& r = rows[i];
        r.id = value(1000000);
        r.row.trackId = 7;
        r.row.ts = value(1000000000);
        r.row.dur = value(100000);
        r.row.depth = static_cast<int32_t>(value(8));
        r.row.nameId = value(500);
        r.row.catId = pick(rng) < 3 ? 0 : value(20);
        r.row.argSetId = pick(rng) < 5 ? 0 : value(1000000);
        r.row.flags = static_cast<int32_t>(value(2));
    }
    return rows;
}

TEST(SliceChunk, EveryValueRoundTripsInTsIdOrder) {
    std::mt19937_64 rng(42);
    for (size_t n : {size_t{1}, size_t{2}, size_t{100}, kSliceChunkRows}) {
        SCOPED_TRACE(n);
        auto rows = randomRows(rng, n);
        auto expect = rows;
        std::sort(expect.begin(), expect.end(), [](const StoredSlice& a, const StoredSlice& b) {
            return a.row.ts != b.row.ts ? a.row.ts < b.row.ts : a.id < b.id;
        });
        ChunkSummary s;
        const std::string blob = encodeSliceChunk(rows, s);
        SliceColumns c;
        ASSERT_TRUE(decodeSliceChunk(blob, kAllSliceColumns, c));
        ASSERT_EQ(c.count, n);
        int64_t minId = kMax, maxId = kMin;
        for (size_t i = 0; i < n; ++i) {
            const StoredSlice& e = expect[i];
            ASSERT_EQ(c.id[i], e.id) << i;
            ASSERT_EQ(c.ts[i], e.row.ts) << i;
            ASSERT_EQ(c.dur[i], e.row.dur) << i;
            ASSERT_EQ(c.depth[i], e.row.depth) << i;
            ASSERT_EQ(c.nameId[i], e.row.nameId) << i;
            ASSERT_EQ(c.catId[i], e.row.catId) << i;
            ASSERT_EQ(c.argSetId[i], e.row.argSetId) << i;
            ASSERT_EQ(c.flags[i], e.row.flags) << i;
            minId = std::min(minId, e.id);
            maxId = std::max(maxId, e.id);
        }
        EXPECT_EQ(s.count, static_cast<int64_t>(n));
        EXPECT_EQ(s.minTs, expect.front().row.ts);
        EXPECT_EQ(s.maxTs, expect.back().row.ts);
        EXPECT_EQ(s.firstId, expect.front().id);
        EXPECT_EQ(s.lastId, expect.back().id);
        EXPECT_EQ(s.minId, minId);
        EXPECT_EQ(s.maxId, maxId);
    }
}

TEST(SliceChunk, SummaryEndIgnoresNegativeDurations) {
    std::vector<StoredSlice> rows = {{1, {1, 100, 50, 0, 1, 0, 0, 0}},
                                     {2, {1, 120, -500, 0, 1, 0, 0, 0}},
                                     {3, {1, 90, 5, 0, 1, 0, 0, 0}}};
    ChunkSummary s;
    encodeSliceChunk(rows, s);
    EXPECT_EQ(s.maxEnd, 150);
    EXPECT_EQ(s.minTs, 90);
    EXPECT_EQ(s.firstId, 3);
    EXPECT_EQ(s.lastId, 2);
}

TEST(SliceChunk, DecodesOnlyTheColumnsAskedFor) {
    std::mt19937_64 rng(7);
    auto rows = randomRows(rng, 300);
    ChunkSummary s;
    const std::string blob = encodeSliceChunk(rows, s);
    SliceColumns c;
    ASSERT_TRUE(decodeSliceChunk(blob, (1u << kSliceTs) | (1u << kSliceName), c));
    EXPECT_EQ(c.ts.size(), 300u);
    EXPECT_EQ(c.nameId.size(), 300u);
    EXPECT_TRUE(c.id.empty());
    EXPECT_TRUE(c.dur.empty());
    EXPECT_TRUE(c.argSetId.empty());
    EXPECT_EQ(c.ts.front(), s.minTs);
}

TEST(SliceChunk, DamagedBlobsAreRefusedNeverOverread) {
    std::mt19937_64 rng(3);
    auto rows = randomRows(rng, 200);
    ChunkSummary s;
    const std::string blob = encodeSliceChunk(rows, s);
    SliceColumns c;
    std::string why;
    EXPECT_FALSE(decodeSliceChunk({}, kAllSliceColumns, c, &why));
    EXPECT_FALSE(why.empty());
    // Every truncation is refused (the streams' lengths no longer add up).
    for (size_t cut = 0; cut < blob.size(); ++cut) {
        // A copy of exactly `cut` bytes, so ASan sees any read past it.
        const std::string part = blob.substr(0, cut);
        EXPECT_FALSE(decodeSliceChunk(part, kAllSliceColumns, c)) << cut;
    }
    // Flipped bytes: decoded or refused, never a crash.
    int refused = 0;
    for (int trial = 0; trial < 2000; ++trial) {
        std::string bad = blob;
        bad[rng() % bad.size()] = static_cast<char>(rng());
        if (!decodeSliceChunk(bad, kAllSliceColumns, c)) ++refused;
    }
    EXPECT_GT(refused, 0);
    std::string wrongFormat = blob;
    wrongFormat[0] = 9;
    EXPECT_FALSE(decodeSliceChunk(wrongFormat, kAllSliceColumns, c, &why));
    EXPECT_NE(why.find("format"), std::string::npos);
}

}  // namespace
}  // namespace ts::store
