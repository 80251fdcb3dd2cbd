#include <gtest/gtest.h>

#include <random>

#include "core/timeline/timeline_query.h"
#include "tests/common/test_support.h"
#include "tests/timeline/timeline_fixture.h"

namespace ts::timeline {
namespace {

/// A level of n non-overlapping slices with random gaps and durations over many scales.
SliceLevel randomLevel(size_t n, uint32_t seed) {
    std::mt19937_64 rng(seed);
    SliceLevel lv;
    int64_t t = 0;
    for (size_t i = 0; i < n; ++i) {
        const int scale = static_cast<int>(rng() % 7);
        int64_t unit = 1;
        for (int k = 0; k < scale; ++k) unit *= 10;
        t += static_cast<int64_t>(rng() % 3) * unit;
        const int64_t d = static_cast<int64_t>(rng() % 10) * unit;
        lv.ts.push_back(t);
        lv.dur.push_back(d);
        lv.name.push_back(static_cast<uint32_t>(i % 5));
        lv.sliceId.push_back(static_cast<int64_t>(i + 1));
        t += d;
    }
    lv.buildSummary();
    return lv;
}

TEST(LevelOfDetail, BlocksCoverExactlyTheVisibleSlices) {
    const SliceLevel lv = randomLevel(20000, 7);
    SliceLevel noSummary = lv;
    noSummary.smallMax.clear();
    noSummary.bigMax.clear();
    std::mt19937_64 rng(11);
    const double total = static_cast<double>(lv.end(lv.size() - 1));
    for (int round = 0; round < 300; ++round) {
        const double width = 100 + static_cast<double>(rng() % 1900);
        const double span = total / std::pow(10.0, static_cast<double>(rng() % 60) / 10.0);
        const double t0 = std::uniform_real_distribution<double>(-span * 0.1, total)(rng);
        const double t1 = t0 + span;
        const double npp = span / width;
        std::vector<DrawItem> items;
        levelItems(lv, t0, t1, npp, items);
        // Expected visible slices: end >= t0 and start <= t1.
        std::vector<size_t> visible;
        for (size_t i = 0; i < lv.size(); ++i)
            if (static_cast<double>(lv.end(i)) >= std::floor(t0) &&
                static_cast<double>(lv.ts[i]) <= t1)
                visible.push_back(i);
        size_t next = visible.empty() ? 0 : visible.front();
        int64_t covered = 0;
        for (const DrawItem& it : items) {
            ASSERT_EQ(static_cast<size_t>(it.first), next) << "round " << round;
            ASSERT_GE(it.count, 1);
            int64_t maxEnd = 0;
            for (int64_t k = it.first; k < it.first + it.count; ++k) {
                maxEnd = std::max(maxEnd, lv.end(k));
                if (it.count > 1) {
                    ASSERT_LT(static_cast<double>(lv.dur[k]), npp);
                }
            }
            EXPECT_EQ(it.start, lv.ts[it.first]);
            EXPECT_EQ(it.end, maxEnd);
            EXPECT_EQ(it.name, lv.name[it.first]);
            next = static_cast<size_t>(it.first + it.count);
            covered += it.count;
        }
        ASSERT_EQ(covered, static_cast<int64_t>(visible.size())) << "round " << round;
        // The block summary only skips work: the items are the same without it.
        std::vector<DrawItem> plain;
        levelItems(noSummary, t0, t1, npp, plain);
        ASSERT_EQ(plain.size(), items.size());
        for (size_t k = 0; k < items.size(); ++k) {
            EXPECT_EQ(plain[k].first, items[k].first);
            EXPECT_EQ(plain[k].count, items[k].count);
        }
        // The cost depends on the pixels: at most a few items per pixel column.
        EXPECT_LE(items.size(), static_cast<size_t>(3 * (width + 2)));
    }
}

TEST(LevelOfDetail, WideSlicesComeOneByOne) {
    SliceLevel lv;
    for (int i = 0; i < 10; ++i) {
        lv.ts.push_back(i * 100);
        lv.dur.push_back(90);
        lv.name.push_back(1);
        lv.sliceId.push_back(i);
    }
    lv.buildSummary();
    std::vector<DrawItem> items;
    levelItems(lv, 0, 1000, 1.0, items);
    ASSERT_EQ(items.size(), 10u);
    for (const auto& it : items) EXPECT_EQ(it.count, 1);
    items.clear();
    levelItems(lv, 0, 1000, 1000.0, items);  // the whole level in one pixel: one block
    ASSERT_EQ(items.size(), 1u);
    EXPECT_EQ(items[0].count, 10);
    EXPECT_EQ(items[0].end, 990);
    items.clear();
    levelItems(SliceLevel{}, 0, 10, 1, items);
    EXPECT_TRUE(items.empty());
}

class FixtureQuery : public ::testing::Test {
protected:
    void SetUp() override {
        const auto path = test::tempDir("tl_query") / "s.tscope";
        ids = test::writeTimelineFixture(path);
        auto m = loadTimelineModel(path.string());
        ASSERT_TRUE(m.ok());
        model = m.value();
        for (size_t i = 0; i < model->tracks.size(); ++i)
            if (model->tracks[i].id == ids.threadTrack) thread = static_cast<int>(i);
    }
    test::TimelineFixtureIds ids;
    std::shared_ptr<const TimelineModel> model;
    int thread = -1;
};

TEST_F(FixtureQuery, HitTest) {
    const TimelineModel& m = *model;
    EXPECT_EQ(m.sliceId(hitTest(m, thread, 1, 15, 0)), ids.linear1);
    EXPECT_EQ(m.sliceId(hitTest(m, thread, 1, 46, 5)), ids.linear2);  // 4 ns before it
    EXPECT_EQ(m.sliceId(hitTest(m, thread, 0, 99.5, 0)), ids.step1);
    EXPECT_FALSE(hitTest(m, thread, 1, 150, 5).valid());
    EXPECT_FALSE(hitTest(m, thread, 7, 15, 0).valid());
    EXPECT_FALSE(hitTest(m, 99, 0, 15, 0).valid());
}

TEST_F(FixtureQuery, SearchSubstringRegexAndNavigation) {
    const TimelineModel& m = *model;
    auto r = searchSlices(m, "ATEN", false);
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->matches.size(), 4u);
    EXPECT_EQ(m.sliceId(r->matches[0]), ids.linear1);
    EXPECT_EQ(m.sliceId(r->matches[1]), ids.addmm);
    EXPECT_EQ(m.sliceId(r->matches[3]), ids.relu);
    EXPECT_EQ(nextMatch(m, r.value(), 12), 2);
    EXPECT_EQ(previousMatch(m, r.value(), 12), 0);
    EXPECT_EQ(nextMatch(m, r.value(), 300), 0);    // wraps
    EXPECT_EQ(previousMatch(m, r.value(), 0), 3);  // wraps
    auto re = searchSlices(m, "^aten::(relu|addmm)$", true);
    ASSERT_TRUE(re.ok());
    EXPECT_EQ(re->matches.size(), 2u);
    EXPECT_FALSE(searchSlices(m, "(", true).ok());
    auto none = searchSlices(m, "", false);
    ASSERT_TRUE(none.ok());
    EXPECT_TRUE(none->matches.empty());
    EXPECT_EQ(nextMatch(m, none.value(), 0), -1);
}

TEST_F(FixtureQuery, AggregateSelectionWithSelfTime) {
    const TimelineModel& m = *model;
    auto rows = aggregateSelection(m, {thread}, 0, 60);
    ASSERT_EQ(rows.size(), 3u);
    EXPECT_EQ(m.nameOf(rows[0].name), "ProfilerStep#1");
    EXPECT_EQ(rows[0].count, 1);
    EXPECT_EQ(rows[0].total, 100);
    EXPECT_EQ(rows[0].self, 50);
    EXPECT_EQ(m.nameOf(rows[1].name), "aten::linear");
    EXPECT_EQ(rows[1].count, 2);
    EXPECT_EQ(rows[1].total, 50);
    EXPECT_EQ(rows[1].self, 40);
    EXPECT_EQ(rows[1].min, 20);
    EXPECT_EQ(rows[1].max, 30);
    EXPECT_DOUBLE_EQ(rows[1].avg(), 25.0);
    EXPECT_EQ(m.nameOf(rows[2].name), "aten::addmm");
    auto gap = aggregateSelection(m, {thread}, 41, 45);
    ASSERT_EQ(gap.size(), 1u);
    EXPECT_EQ(m.nameOf(gap[0].name), "ProfilerStep#1");
    EXPECT_TRUE(aggregateSelection(m, {}, 0, 1000).empty());
}

}  // namespace
}  // namespace ts::timeline
