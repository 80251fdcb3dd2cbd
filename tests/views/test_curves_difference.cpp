// The curves view's difference series: with two runs shown each panel draws B - A (the newer
// run minus the older at the steps both logged) on its right axis; with one or three runs,
// none.
#include <gtest/gtest.h>

#include <QCheckBox>

#include "tests/common/qt_test_app.h"
#include "views/curves/curves_chart.h"

namespace {

ts::curves::RunScalars run(int64_t id, const std::vector<std::pair<int64_t, double>>& loss) {
    ts::curves::RunScalars r;
    r.runId = id;
    r.name = "run " + std::to_string(id);
    ts::curves::ScalarSeries s;
    s.tag = "train/loss";
    for (auto [step, v] : loss) s.points.push_back({step, 1000 + step, v});
    r.series.push_back(s);
    return r;
}

}  // namespace

TEST(CurvesDifference, TwoRunsDrawBMinusA) {
    ts::test::ensureQtApp();
    CurvesChart chart;
    chart.resize(800, 500);
    chart.addScalars(run(1, {{1, 2.0}, {2, 1.5}, {3, 1.2}, {4, 1.0}}));
    chart.setDifference(true);
    EXPECT_EQ(chart.differenceGraph("train/loss"), nullptr);  // one run: nothing to subtract
    chart.addScalars(run(2, {{2, 1.7}, {3, 1.1}, {4, 1.25}, {5, 0.9}}));
    QCPGraph* g = chart.differenceGraph("train/loss");
    ASSERT_NE(g, nullptr);
    ASSERT_EQ(g->data()->size(), 3);  // steps 2, 3, 4
    EXPECT_DOUBLE_EQ(g->data()->at(0)->key, 2);
    EXPECT_NEAR(g->data()->at(0)->value, 0.2, 1e-12);
    EXPECT_NEAR(g->data()->at(1)->value, -0.1, 1e-12);
    EXPECT_NEAR(g->data()->at(2)->value, 0.25, 1e-12);
    EXPECT_TRUE(chart.panelRect("train/loss")->axis(QCPAxis::atRight)->visible());
    // More data for B extends the difference; a third run removes it; off removes it.
    chart.addScalars(run(2, {{1, 2.5}}));
    ASSERT_NE(chart.differenceGraph("train/loss"), nullptr);
    EXPECT_EQ(chart.differenceGraph("train/loss")->data()->size(), 4);
    chart.addScalars(run(3, {{1, 1.0}}));
    EXPECT_EQ(chart.differenceGraph("train/loss"), nullptr);
    chart.removeRun(3);
    ASSERT_NE(chart.differenceGraph("train/loss"), nullptr);
    chart.setDifference(false);
    EXPECT_EQ(chart.differenceGraph("train/loss"), nullptr);
    EXPECT_FALSE(chart.panelRect("train/loss")->axis(QCPAxis::atRight)->visible());
}
