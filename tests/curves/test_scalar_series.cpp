// Run list and scalar reads on a synthetic session: tags in display order, whole reads,
// incremental reads that return only rows written since the cursor, tag filter, errors.
#include <gtest/gtest.h>

#include <cmath>

#include "core/curves/scalar_series.h"
#include "tests/curves/curves_fixture.h"

using namespace ts::curves;
using ts::store::TraceStore;

namespace {

std::unique_ptr<TraceStore> reader(const ts::test::CurvesSession& s) {
    return TraceStore::open(s.path(), TraceStore::Mode::ReadOnly).value();
}

size_t points(const RunScalars& r, std::string_view tag) {
    const auto* s = r.find(tag);
    return s ? s->points.size() : 0;
}

}  // namespace

TEST(ScalarSeries, TagOrderFollowsTensorBoardHabits) {
    EXPECT_TRUE(tagLess("train/loss", "eval/loss"));
    EXPECT_TRUE(tagLess("eval/loss", "eval/accuracy"));
    EXPECT_TRUE(tagLess("eval/accuracy", "eval/f1"));
    EXPECT_TRUE(tagLess("eval/f1", "lr"));
    EXPECT_TRUE(tagLess("lr", "loss_scale"));
    EXPECT_TRUE(tagLess("loss_scale", "samples_per_s"));
    EXPECT_TRUE(tagLess("samples_per_s", "a_custom_tag"));
    EXPECT_FALSE(tagLess("lr", "lr"));
}

TEST(ScalarSeries, ListsRunsWithTheirTags) {
    ts::test::CurvesSession s;
    const int64_t a = s.beginRun("mlp");
    const int64_t b = s.beginRun("lenet5");
    const int64_t c = s.beginRun("empty");
    s.fillRun(a, 10);
    s.scalar(b, "samples_per_s", 1, 5000);
    s.scalar(b, "train/loss", 1, 2.3);
    s.finishRun(a);
    auto r = reader(s);
    auto runs = listRuns(*r);
    ASSERT_TRUE(runs.ok()) << runs.error();
    ASSERT_EQ(runs->size(), 3u);
    EXPECT_EQ(runs.value()[0].id, a);
    EXPECT_EQ(runs.value()[0].name, "mlp");
    EXPECT_EQ(runs.value()[0].status, ts::store::RunStatus::Completed);
    EXPECT_EQ(runs.value()[0].reason, "done");
    EXPECT_EQ(
        runs.value()[0].tags,
        (std::vector<std::string>{"train/loss", "eval/loss", "eval/accuracy", "lr", "loss_scale"}));
    EXPECT_EQ(runs.value()[1].status, ts::store::RunStatus::Running);
    EXPECT_EQ(runs.value()[1].tags, (std::vector<std::string>{"train/loss", "samples_per_s"}));
    EXPECT_EQ(runs.value()[2].id, c);
    EXPECT_TRUE(runs.value()[2].tags.empty());
}

TEST(ScalarSeries, ReadsAWholeRun) {
    ts::test::CurvesSession s;
    const int64_t a = s.beginRun("mlp");
    const int64_t other = s.beginRun("other");
    s.fillRun(a, 10);
    s.fillRun(other, 3);
    s.overflow(a, 3);
    s.overflow(other, 1);
    auto r = reader(s);
    auto run = readRunScalars(*r, a);
    ASSERT_TRUE(run.ok()) << run.error();
    EXPECT_EQ(run->runId, a);
    EXPECT_EQ(run->name, "mlp");
    EXPECT_EQ(run->status, ts::store::RunStatus::Running);
    EXPECT_GT(run->startedAtNs, 0);
    EXPECT_EQ(points(run.value(), "train/loss"), 10u);
    EXPECT_EQ(points(run.value(), "eval/accuracy"), 2u);
    const auto* loss = run->find("train/loss");
    ASSERT_NE(loss, nullptr);
    EXPECT_EQ(loss->points[3].step, 4);
    EXPECT_DOUBLE_EQ(loss->points[3].value, 0.5);
    EXPECT_EQ(loss->points[3].wallTimeNs, 1'004'000'000);
    ASSERT_EQ(run->overflows.size(), 1u);
    EXPECT_EQ(run->overflows[0].step, 3);
    EXPECT_EQ(run->overflows[0].tsNs, 1'003'000'000);
    EXPECT_GT(run->cursor.scalarRowid, 0);
    EXPECT_GT(run->cursor.overflowId, 0);

    auto onlyLr = readRunScalars(*r, a, {}, "lr");
    ASSERT_TRUE(onlyLr.ok());
    ASSERT_EQ(onlyLr->series.size(), 1u);
    EXPECT_EQ(onlyLr->series[0].tag, "lr");
    EXPECT_EQ(onlyLr->series[0].points.size(), 10u);
}

TEST(ScalarSeries, IncrementalReadsReturnOnlyNewRows) {
    ts::test::CurvesSession s;
    const int64_t a = s.beginRun("live");
    const int64_t other = s.beginRun("other");
    s.scalar(a, "train/loss", 1, 2.0);
    s.scalar(a, "train/loss", 2, 1.5);
    auto r = reader(s);
    auto first = readRunScalars(*r, a);
    ASSERT_TRUE(first.ok());
    EXPECT_EQ(points(first.value(), "train/loss"), 2u);

    // Nothing new: an empty piece with the same cursor.
    auto none = readRunScalars(*r, a, first->cursor);
    ASSERT_TRUE(none.ok());
    EXPECT_TRUE(none->series.empty());
    EXPECT_EQ(none->cursor.scalarRowid, first->cursor.scalarRowid);

    s.scalar(other, "train/loss", 1, 9.0);  // another run's rows never leak in
    s.scalar(a, "train/loss", 3, 1.0);
    s.scalar(a, "eval/loss", 3, 1.1);
    s.overflow(a, 3);
    auto second = readRunScalars(*r, a, first->cursor);
    ASSERT_TRUE(second.ok());
    ASSERT_EQ(second->series.size(), 2u);
    ASSERT_EQ(points(second.value(), "train/loss"), 1u);
    EXPECT_EQ(second->find("train/loss")->points[0].step, 3);
    EXPECT_DOUBLE_EQ(second->find("eval/loss")->points[0].value, 1.1);
    ASSERT_EQ(second->overflows.size(), 1u);

    s.finishRun(a);
    auto third = readRunScalars(*r, a, second->cursor);
    ASSERT_TRUE(third.ok());
    EXPECT_TRUE(third->series.empty());
    EXPECT_TRUE(third->overflows.empty());
    EXPECT_EQ(third->status, ts::store::RunStatus::Completed);

    RunScalars all = std::move(first.value());
    auto added = mergeScalars(all, std::move(second.value()));
    EXPECT_EQ(added, std::vector<std::string>{"eval/loss"});
    EXPECT_EQ(points(all, "train/loss"), 3u);
    EXPECT_EQ(all.overflows.size(), 1u);
    mergeScalars(all, std::move(third.value()));
    EXPECT_EQ(all.status, ts::store::RunStatus::Completed);
    // The merged pieces equal one whole read.
    auto whole = readRunScalars(*r, a);
    ASSERT_TRUE(whole.ok());
    EXPECT_EQ(points(whole.value(), "train/loss"), 3u);
    EXPECT_EQ(whole->cursor.scalarRowid, all.cursor.scalarRowid);
}

TEST(ScalarSeries, NonFiniteValuesSurvive) {
    ts::test::CurvesSession s;
    const int64_t a = s.beginRun("diverged");
    s.scalar(a, "train/loss", 1, 1.0);
    s.scalar(a, "train/loss", 2, std::numeric_limits<double>::infinity());
    auto r = reader(s);
    auto run = readRunScalars(*r, a);
    ASSERT_TRUE(run.ok());
    ASSERT_EQ(points(run.value(), "train/loss"), 2u);
    EXPECT_TRUE(std::isinf(run->find("train/loss")->points[1].value));
}

TEST(ScalarSeries, UnknownRunIsAnError) {
    ts::test::CurvesSession s;
    auto r = reader(s);
    auto run = readRunScalars(*r, 42);
    ASSERT_FALSE(run.ok());
    EXPECT_NE(run.error().find("no run with id 42"), std::string::npos);
    auto runs = listRuns(*r);
    ASSERT_TRUE(runs.ok());
    EXPECT_TRUE(runs->empty());
}
