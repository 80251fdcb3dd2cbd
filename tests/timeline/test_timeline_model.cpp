#include <gtest/gtest.h>

#include "core/store/store_writer.h"
#include "core/store/trace_store.h"
#include "core/timeline/timeline_model.h"
#include "core/timeline/timeline_query.h"
#include "tests/common/test_support.h"
#include "tests/timeline/timeline_fixture.h"

namespace ts::timeline {
namespace {

struct Loaded {
    test::TimelineFixtureIds ids;
    std::shared_ptr<const TimelineModel> model;
};

Loaded load(const std::string& tag) {
    const auto path = test::tempDir(tag) / "s.tscope";
    Loaded l;
    l.ids = test::writeTimelineFixture(path);
    auto m = loadTimelineModel(path.string());
    EXPECT_TRUE(m.ok()) << (m.ok() ? "" : m.error());
    if (m) l.model = m.value();
    return l;
}

int trackIndex(const TimelineModel& m, int64_t id) {
    for (size_t i = 0; i < m.tracks.size(); ++i)
        if (m.tracks[i].id == id) return static_cast<int>(i);
    return -1;
}

TEST(TimelineModel, GroupsFollowProcessSortIndex) {
    auto l = load("tl_groups");
    const TimelineModel& m = *l.model;
    ASSERT_EQ(m.groups.size(), 2u);
    EXPECT_EQ(m.groups[0].title, "gpu (200)");
    EXPECT_EQ(m.groups[1].title, "python (100)");
    ASSERT_EQ(m.groups[1].tracks.size(), 2u);  // counter track and the thread track
    EXPECT_EQ(m.sliceCount, 9);
    EXPECT_EQ(m.startNs, 0);
    EXPECT_EQ(m.endNs, 250);
    const int thread = trackIndex(m, l.ids.threadTrack);
    ASSERT_GE(thread, 0);
    EXPECT_EQ(m.tracks[thread].name, "main (1)");
    EXPECT_EQ(m.tracks[thread].kind, TrackKind::Thread);
}

TEST(TimelineModel, LevelsAreSortedByDepthAndStart) {
    auto l = load("tl_levels");
    const TimelineModel& m = *l.model;
    const TimelineTrack& t = m.tracks[trackIndex(m, l.ids.threadTrack)];
    ASSERT_EQ(t.levels.size(), 3u);
    EXPECT_EQ(t.levels[0].sliceId, (std::vector<int64_t>{l.ids.step1, l.ids.step2}));
    EXPECT_EQ(t.levels[1].sliceId,
              (std::vector<int64_t>{l.ids.linear1, l.ids.linear2, l.ids.relu}));
    EXPECT_EQ(t.levels[2].sliceId, (std::vector<int64_t>{l.ids.addmm}));
    EXPECT_EQ(t.levels[2].depth, 2);
    EXPECT_EQ(t.instants.ts, (std::vector<int64_t>{5}));
}

TEST(TimelineModel, OverlappingSlicesOfOneDepthGetExtraLevels) {
    auto l = load("tl_overlap");
    const TimelineModel& m = *l.model;
    const TimelineTrack& g = m.tracks[trackIndex(m, l.ids.gpuTrack)];
    ASSERT_EQ(g.levels.size(), 2u);
    EXPECT_EQ(g.levels[0].depth, 0);
    EXPECT_EQ(g.levels[1].depth, 0);
    EXPECT_EQ(g.levels[0].sliceId, (std::vector<int64_t>{l.ids.gemm1, l.ids.gemm3}));
    EXPECT_EQ(g.levels[1].sliceId, (std::vector<int64_t>{l.ids.gemm2}));
}

TEST(TimelineModel, FindSelfTimeFlowsCounters) {
    auto l = load("tl_find");
    const TimelineModel& m = *l.model;
    const SliceRef step1 = m.find(l.ids.step1);
    ASSERT_TRUE(step1.valid());
    EXPECT_EQ(m.name(step1), "ProfilerStep#1");
    EXPECT_EQ(m.selfTime(step1), 50);  // 100 - 30 - 20
    EXPECT_EQ(m.selfTime(m.find(l.ids.linear1)), 20);
    EXPECT_EQ(m.selfTime(m.find(l.ids.addmm)), 10);
    EXPECT_FALSE(m.find(987654).valid());
    ASSERT_EQ(m.flows.size(), 1u);
    EXPECT_EQ(m.flows[0].from, m.find(l.ids.addmm));
    EXPECT_EQ(m.flows[0].to, m.find(l.ids.gemm1));
    const TimelineTrack& c = m.tracks[trackIndex(m, l.ids.counterTrack)];
    EXPECT_EQ(c.kind, TrackKind::Counter);
    EXPECT_EQ(c.counter.value, (std::vector<double>{1.0, 3.0}));
    EXPECT_EQ(c.counter.max, 3.0);
}

TEST(TimelineModel, MissingOrForeignFileIsAnError) {
    const auto dir = test::tempDir("tl_bad");
    EXPECT_FALSE(loadTimelineModel((dir / "nope.tscope").string()).ok());
    std::FILE* f = std::fopen((dir / "junk.tscope").string().c_str(), "wb");
    std::fputs("this is not sqlite at all, not even close", f);
    std::fclose(f);
    EXPECT_FALSE(loadTimelineModel((dir / "junk.tscope").string()).ok());
}

// A writer that commits a track's slices out of time order leaves chunks that overlap in
// time; the model still holds each slice once, sorted, at its depth.
TEST(TimelineModel, OverlappingChunksOfATrackLoadSorted) {
    const auto path = test::tempDir("tl_overlap") / "s.tscope";
    {
        auto s = store::TraceStore::open(path.string(), store::TraceStore::Mode::Create).value();
        const int64_t src = s->beginSource("gen", "test").value();
        store::StoreWriter w(*s, src, /*batchRows=*/1000);  // partial chunks every 1,000
        const int64_t p = w.addProcess("1", "p");
        const int64_t t = w.addTrack("thread", p, w.addThread(p, "1"), "");
        store::SliceRow r;
        r.trackId = t;
        r.nameId = w.intern("x");
        r.dur = 1;
        for (int i = 0; i < 10000; ++i) {
            r.ts = (i * 7919LL) % 10007 * 10;  // a permutation of the times
            r.depth = i % 2;
            w.addSlice(r);
        }
    }
    {
        auto s = store::TraceStore::open(path.string(), store::TraceStore::Mode::ReadOnly).value();
        ASSERT_GT(s->db().queryInt("SELECT count(*) FROM slice_chunks").value(), 9);
    }
    auto m = loadTimelineModel(path.string());
    ASSERT_TRUE(m.ok()) << m.error();
    ASSERT_EQ(m.value()->sliceCount, 10000);
    int64_t total = 0;
    for (const auto& lv : m.value()->tracks.at(0).levels) {
        EXPECT_TRUE(std::is_sorted(lv.ts.begin(), lv.ts.end()));
        total += static_cast<int64_t>(lv.size());
    }
    EXPECT_EQ(total, 10000);
    EXPECT_EQ(m.value()->tracks.at(0).levels.size(), 2u);
}

TEST(TimelineModel, ParallelReadMatchesSingleThread) {
    const auto path = test::tempDir("tl_par") / "big.tscope";
    {
        auto s = store::TraceStore::open(path.string(), store::TraceStore::Mode::Create);
        ASSERT_TRUE(s.ok());
        const int64_t src = s.value()->beginSource("gen", "chrome_json").value();
        store::StoreWriter w(*s.value(), src);
        const int64_t p = w.addProcess("1", "p");
        const int64_t t1 = w.addTrack("thread", p, w.addThread(p, "1"), "");
        const int64_t t2 = w.addTrack("thread", p, w.addThread(p, "2"), "");
        store::SliceRow r;
        r.nameId = w.intern("x");
        for (int i = 0; i < 300000; ++i) {
            r.trackId = i % 3 ? t1 : t2;
            r.ts = i * 10;
            r.dur = 5;
            w.addSlice(r);
        }
    }
    auto one = loadTimelineModel(path.string(), nullptr, 1);
    auto two = loadTimelineModel(path.string(), nullptr, 2);
    ASSERT_TRUE(one.ok() && two.ok());
    ASSERT_EQ(one.value()->sliceCount, 300000);
    ASSERT_EQ(two.value()->sliceCount, 300000);
    for (size_t t = 0; t < one.value()->tracks.size(); ++t) {
        const auto& a = one.value()->tracks[t].levels;
        const auto& b = two.value()->tracks[t].levels;
        ASSERT_EQ(a.size(), b.size());
        for (size_t l = 0; l < a.size(); ++l) {
            EXPECT_EQ(a[l].ts, b[l].ts);
            EXPECT_EQ(a[l].sliceId, b[l].sliceId);
        }
    }
}

}  // namespace
}  // namespace ts::timeline

namespace ts::timeline {
namespace {

// Unix-time stamps (Kineto, nsys) are shifted to a whole-second origin, so that drawing math
// in doubles stays exact to the nanosecond.
TEST(TimelineModel, EpochTimesAreShiftedToAnOriginExactly) {
    const auto path = test::tempDir("tl_origin") / "s.tscope";
    constexpr int64_t kT0 = 1704161511420306491;  // 2024, in ns
    int64_t a = 0, b = 0;
    {
        auto s = store::TraceStore::open(path.string(), store::TraceStore::Mode::Create).value();
        const int64_t src = s->beginSource("x", "test").value();
        {
            store::StoreWriter w(*s, src);
            const int64_t p = w.addProcess("1");
            const int64_t tr = w.addTrack("thread", p, w.addThread(p, "1"), "t");
            a = w.addSlice({tr, kT0, 3, 0, w.intern("a"), 0, 0, 0});
            b = w.addSlice({tr, kT0 + 5, 1, 0, w.intern("b"), 0, 0, 0});
            w.addInstant(tr, kT0 + 7, w.intern("i"), 0, 't', 0);
        }
        store::SourceSummary sum;
        sum.status = ts::store::SourceStatus::Complete;
        ASSERT_TRUE(s->finishSource(src, sum).ok());
    }
    {
        auto m = loadTimelineModel(path.string());
        ASSERT_TRUE(m.ok()) << m.error();
        const TimelineModel& model = *m.value();
        EXPECT_EQ(model.originNs, 1704161511000000000);
        EXPECT_EQ(model.startNs, 420306491);
        EXPECT_EQ(model.endNs, 420306498);
        const SliceRef ra = model.find(a), rb = model.find(b);
        ASSERT_TRUE(ra.valid() && rb.valid());
        EXPECT_EQ(model.ts(ra) + model.originNs, kT0);
        EXPECT_EQ(model.ts(rb) - model.ts(ra), 5);
        EXPECT_EQ(model.tracks[ra.track].instants.ts.front() + model.originNs, kT0 + 7);
        // Sub-nanosecond windows (a double near 1.7e18 could not even tell them apart): one
        // in the 2 ns gap between the slices finds nothing, one on b finds only b.
        std::vector<DrawItem> items;
        levelItems(model.level(rb), model.ts(rb) - 0.75, model.ts(rb) - 0.25, 0.01, items);
        EXPECT_TRUE(items.empty());
        items.clear();
        levelItems(model.level(rb), model.ts(rb) + 0.25, model.ts(rb) + 0.75, 0.01, items);
        ASSERT_EQ(items.size(), 1u);
        EXPECT_EQ(items[0].start, model.ts(rb));
    }
}

}  // namespace
}  // namespace ts::timeline
