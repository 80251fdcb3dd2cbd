// Unrelated clock bases are detected and each source can be aligned on the timeline
// (issue 26, item 11).
#include <gtest/gtest.h>

#include "core/store/store_writer.h"
#include "core/store/trace_store.h"
#include "core/timeline/clock_bases.h"
#include "core/timeline/timeline_model.h"
#include "tests/common/test_support.h"

namespace ts::timeline {
namespace {

constexpr int64_t kUnix = 1'790'857'026'000'000'000;  // 2026, in ns
constexpr int64_t kBoot = 4'886'740'144'556'953'000;  // 56 days of uptime, in ns

TEST(ClockBases, DetectsUnrelatedClocks) {
    // Two ranks on one Unix clock, one trace on time since boot, two from zero.
    auto bases = detectClockBases({{1, kUnix, kUnix + 2'000'000, "rank0"},
                                   {2, kUnix + 500'000, kUnix + 3'000'000, "rank1"},
                                   {3, kBoot, kBoot + 1'000'000, "h200"},
                                   {4, 0, 5'000'000, "legacy"},
                                   {5, 1000, 4'000'000, "hand-made"}});
    ASSERT_EQ(bases.size(), 4u);
    EXPECT_TRUE(bases[0].relative);
    EXPECT_TRUE(bases[1].relative);
    EXPECT_EQ(bases[2].sources, (std::vector<int64_t>{1, 2}));
    EXPECT_EQ(bases[3].sources, (std::vector<int64_t>{3}));
    // One clock: nothing to align.
    EXPECT_EQ(
        detectClockBases({{1, kUnix, kUnix + 10, "a"}, {2, kUnix + 20, kUnix + 30, "b"}}).size(),
        1u);
}

TEST(ClockBases, AlignmentIsKeptAndAppliedByTheTimeline) {
    const std::string path = (test::tempDir("clock") / "s.tscope").string();
    int64_t unixSrc = 0, zeroSrc = 0, zeroSlice = 0;
    {
        auto opened = store::TraceStore::open(path, store::TraceStore::Mode::Create);
        ASSERT_TRUE(opened.ok());
        store::TraceStore& s = *opened.value();
        for (int64_t base : {kUnix, int64_t{1000}}) {
            const int64_t src =
                s.beginSource(base == kUnix ? "kineto.json" : "legacy.json", "chrome_json").value();
            int64_t slice = 0;
            {
                store::StoreWriter w(s, src);
                const int64_t p = w.addProcess("1", "python3");
                const int64_t t = w.addTrack("thread", p, w.addThread(p, "1", "main"), "");
                slice = w.addSlice({t, base, 1000, 0, w.intern("step"), 0, 0, 0});
                ASSERT_TRUE(w.flush().ok());
            }
            store::SourceSummary sum;
            sum.status = store::SourceStatus::Complete;
            ASSERT_TRUE(s.finishSource(src, sum).ok());
            (base == kUnix ? unixSrc : zeroSrc) = src;
            if (base != kUnix) zeroSlice = slice;
        }
    }
    auto before = loadTimelineModel(path);
    ASSERT_TRUE(before.ok()) << before.error();
    EXPECT_EQ(before.value()->clockBases.size(), 2u);
    {
        auto opened = store::TraceStore::open(path, store::TraceStore::Mode::ReadWrite);
        ASSERT_TRUE(opened.ok());
        auto off = alignmentOffset(*opened.value(), before.value()->sourceExtents, zeroSrc,
                                   AlignMode::FirstEvent);
        ASSERT_TRUE(off.ok()) << off.error();
        EXPECT_EQ(off.value(), kUnix - 1000);
        EXPECT_FALSE(alignmentOffset(*opened.value(), before.value()->sourceExtents, zeroSrc,
                                     AlignMode::ClockSync)
                         .ok());  // no sync event to align by
        ASSERT_TRUE(
            writeAlignment(*opened.value(), {zeroSrc, AlignMode::FirstEvent, off.value()}).ok());
        auto kept = readAlignments(*opened.value());
        ASSERT_TRUE(kept.ok());
        ASSERT_EQ(kept.value().size(), 1u);
        EXPECT_EQ(kept.value()[0].offsetNs, kUnix - 1000);
    }
    auto after = loadTimelineModel(path);
    ASSERT_TRUE(after.ok()) << after.error();
    const TimelineModel& m = *after.value();
    EXPECT_EQ(m.endNs - m.startNs, 1000);  // both sources now start together
    bool shown = false;
    for (const TrackGroup& g : m.groups)
        if (g.sourceId == zeroSrc) {
            EXPECT_NE(g.alignment.find("first event"), std::string::npos) << g.alignment;
            shown = true;
        }
    EXPECT_TRUE(shown);
    const SliceRef ref = m.find(zeroSlice);
    ASSERT_TRUE(ref.valid());
    EXPECT_EQ(m.storeTime(ref.track, m.ts(ref)), 1000);  // the details read the stored slice
    EXPECT_EQ(m.modelTime(1000), m.ts(ref));
    // Back to as recorded.
    {
        auto opened = store::TraceStore::open(path, store::TraceStore::Mode::ReadWrite);
        ASSERT_TRUE(writeAlignment(*opened.value(), {zeroSrc, AlignMode::AsRecorded, 0}).ok());
        EXPECT_TRUE(readAlignments(*opened.value()).value().empty());
    }
    (void)unixSrc;
}

}  // namespace
}  // namespace ts::timeline
