// The curves view offscreen: run list and graphs from a synthetic session, smoothing,
// overflow markers, wall-time axis, showing/hiding runs, live polling of rows written
// after the view opened, run list reload on dataChanged, export.
#include <gtest/gtest.h>

#include <QApplication>
#include <QFileInfo>
#include <QListWidget>
#include <QTest>
#include <fstream>
#include <sstream>

#include "core/curves/scalar_csv.h"
#include "core/curves/smoothing.h"
#include "tests/common/qt_test_app.h"
#include "tests/curves/curves_fixture.h"
#include "views/common/session_context.h"
#include "views/curves/curves_chart.h"
#include "views/curves/curves_loader.h"
#include "views/curves/curves_view.h"
#include "views/curves/curves_view_info.h"

namespace {

bool waitFor(const std::function<bool()>& pred) {
    return QTest::qWaitFor(pred, 10000);
}

int count(const QCPGraph* g) {
    return g ? g->dataCount() : -1;
}

QListWidgetItem* itemFor(CurvesView& v, qint64 id) {
    for (int i = 0; i < v.runList()->count(); ++i)
        if (v.runList()->item(i)->data(Qt::UserRole).toLongLong() == id)
            return v.runList()->item(i);
    return nullptr;
}

class CurvesViewTest : public ::testing::Test {
protected:
    void SetUp() override { ts::test::ensureQtApp(); }
};

}  // namespace

TEST_F(CurvesViewTest, ShowsEveryRunAndTagWithOverflowMarkers) {
    ts::test::CurvesSession s("curves_view");
    const int64_t a = s.beginRun("mlp");
    const int64_t b = s.beginRun("lenet5");
    s.fillRun(a, 10);
    s.fillRun(b, 4, 2);
    s.scalar(b, "eval/f1", 4, 0.7);
    s.overflow(a, 3);
    s.finishRun(a);
    s.finishRun(b, ts::store::RunStatus::Stopped);

    SessionContext ctx;
    ctx.setSessionPath(QString::fromStdString(s.path()));
    CurvesView view(&ctx);
    view.resize(900, 600);
    CurvesChart* chart = view.chart();
    ASSERT_TRUE(waitFor([&] {
        return count(chart->rawGraph(b, "eval/f1")) == 1 && count(chart->rawGraph(a, "lr")) == 10;
    }));
    ASSERT_EQ(view.runList()->count(), 2);
    EXPECT_TRUE(view.runList()->item(0)->text().contains("mlp"));
    EXPECT_TRUE(view.runList()->item(1)->text().contains("stopped"));
    EXPECT_EQ(view.runList()->item(0)->checkState(), Qt::Checked);
    EXPECT_EQ(chart->panelTags(), QStringList({"train/loss", "eval/loss", "eval/accuracy",
                                               "eval/f1", "lr", "loss_scale"}));
    EXPECT_EQ(count(chart->rawGraph(a, "train/loss")), 10);
    EXPECT_EQ(count(chart->rawGraph(a, "eval/accuracy")), 2);
    EXPECT_EQ(count(chart->rawGraph(b, "eval/accuracy")), 2);
    EXPECT_EQ(chart->rawGraph(a, "eval/f1"), nullptr);
    // Same panel for both runs, each in its own colour.
    EXPECT_EQ(chart->rawGraph(a, "train/loss")->valueAxis(),
              chart->rawGraph(b, "train/loss")->valueAxis());
    EXPECT_NE(chart->smoothGraph(a, "train/loss")->pen().color(),
              chart->smoothGraph(b, "train/loss")->pen().color());
    // Step 3 overflowed: one marker at step 3 on the loss scale then in force (512).
    QCPGraph* ovf = chart->overflowGraph(a);
    ASSERT_NE(ovf, nullptr);
    ASSERT_EQ(ovf->dataCount(), 1);
    EXPECT_EQ(ovf->data()->at(0)->key, 3.0);
    EXPECT_EQ(ovf->data()->at(0)->value, 512.0);
    EXPECT_EQ(ovf->valueAxis(), chart->panelRect("loss_scale")->axis(QCPAxis::atLeft));
    EXPECT_EQ(chart->overflowGraph(b), nullptr);
    EXPECT_EQ(chart->rawGraph(a, "train/loss")->data()->at(4)->value, 2.0 / 5);
    // Hovering step 4 of the train/loss panel shows both runs' values there.
    view.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    chart->replot();
    QCPAxisRect* lossRect = chart->panelRect("train/loss");
    const QPointF at(lossRect->axis(QCPAxis::atBottom)->coordToPixel(4.1), lossRect->center().y());
    const QString tip = chart->valuesAt(at);
    EXPECT_TRUE(tip.contains("mlp: step 4 = 0.5")) << tip.toStdString();
    EXPECT_TRUE(tip.contains("lenet5: step 4")) << tip.toStdString();
    EXPECT_TRUE(chart->valuesAt(QPointF(-5, -5)).isEmpty());
}

TEST_F(CurvesViewTest, SmoothingLogScaleWallTimeAndHidingRuns) {
    ts::test::CurvesSession s("curves_view_opts");
    const int64_t a = s.beginRun("mlp");
    const int64_t b = s.beginRun("other");
    s.fillRun(a, 20);
    s.fillRun(b, 5);
    s.setStartedAt(a, 1'000'000'000);
    s.finishRun(a);
    s.finishRun(b);

    SessionContext ctx;
    ctx.setSessionPath(QString::fromStdString(s.path()));
    CurvesView view(&ctx);
    CurvesChart* chart = view.chart();
    ASSERT_TRUE(
        waitFor([&] { return count(chart->rawGraph(a, "train/loss")) == 20 && chart->hasRun(b); }));

    view.setSmoothing(0.5);
    EXPECT_DOUBLE_EQ(chart->smoothing(), 0.5);
    std::vector<double> raw;
    for (int i = 1; i <= 20; ++i) raw.push_back(2.0 / i);
    const auto expected = ts::curves::smoothSeries(raw, 0.5);
    QCPGraph* smooth = chart->smoothGraph(a, "train/loss");
    ASSERT_EQ(smooth->dataCount(), 20);
    for (int i = 0; i < 20; ++i) EXPECT_DOUBLE_EQ(smooth->data()->at(i)->value, expected[i]) << i;
    EXPECT_TRUE(chart->rawGraph(a, "train/loss")->visible());
    // Settings are drawn as they are: the loss scale drops 1024 -> 512 at step 3 unsmoothed.
    EXPECT_EQ(chart->smoothGraph(a, "loss_scale")->data()->at(2)->value, 512.0);
    EXPECT_FALSE(chart->rawGraph(a, "loss_scale")->visible());
    EXPECT_TRUE(chart->rawGraph(a, "eval/loss")->visible());  // per-epoch dots
    view.setSmoothing(0);
    EXPECT_FALSE(chart->rawGraph(a, "train/loss")->visible());
    EXPECT_DOUBLE_EQ(chart->smoothGraph(a, "train/loss")->data()->at(3)->value, 0.5);

    view.setLogScale(true);
    EXPECT_EQ(chart->panelRect("train/loss")->axis(QCPAxis::atLeft)->scaleType(),
              QCPAxis::stLogarithmic);
    view.setLogScale(false);
    EXPECT_EQ(chart->panelRect("train/loss")->axis(QCPAxis::atLeft)->scaleType(),
              QCPAxis::stLinear);

    // Wall time: seconds since the run started (fixture rows are at 1 s + step ms).
    view.setWallTimeAxis(true);
    ASSERT_EQ(count(chart->rawGraph(a, "train/loss")), 20);
    EXPECT_NEAR(chart->rawGraph(a, "train/loss")->data()->at(9)->key, 0.010, 1e-12);
    view.setWallTimeAxis(false);
    EXPECT_EQ(chart->rawGraph(a, "train/loss")->data()->at(9)->key, 10.0);

    // Hiding a run removes its graphs; showing it again reads it afresh.
    itemFor(view, b)->setCheckState(Qt::Unchecked);
    EXPECT_FALSE(chart->hasRun(b));
    EXPECT_EQ(chart->rawGraph(b, "train/loss"), nullptr);
    EXPECT_EQ(count(chart->rawGraph(a, "train/loss")), 20);
    itemFor(view, b)->setCheckState(Qt::Checked);
    ASSERT_TRUE(waitFor([&] { return count(chart->rawGraph(b, "train/loss")) == 5; }));
    EXPECT_EQ(count(chart->rawGraph(a, "train/loss")), 20);
}

TEST_F(CurvesViewTest, LivePollingPicksUpRowsWrittenAfterOpening) {
    ts::test::CurvesSession s("curves_view_live");
    const int64_t a = s.beginRun("live");
    s.scalar(a, "train/loss", 1, 2.0);
    s.scalar(a, "train/loss", 2, 1.8);

    SessionContext ctx;
    ctx.setSessionPath(QString::fromStdString(s.path()));
    CurvesView view(&ctx);
    CurvesChart* chart = view.chart();
    ASSERT_TRUE(waitFor([&] { return count(chart->rawGraph(a, "train/loss")) == 2; }));
    EXPECT_TRUE(view.loader()->live());
    EXPECT_LE(CurvesLoader::kPollMs, 200);  // at least 5 updates a second

    // The "engine" goes on writing; no dataChanged is needed for a running run.
    for (int step = 3; step <= 6; ++step) s.scalar(a, "train/loss", step, 2.0 / step);
    s.scalar(a, "loss_scale", 5, 256);
    s.overflow(a, 5);
    ASSERT_TRUE(waitFor([&] { return count(chart->rawGraph(a, "train/loss")) == 6; }));
    ASSERT_TRUE(waitFor([&] { return count(chart->overflowGraph(a)) == 1; }));
    EXPECT_TRUE(chart->panelTags().contains("loss_scale"));
    EXPECT_EQ(chart->rawGraph(a, "train/loss")->data()->at(5)->key, 6.0);

    s.scalar(a, "eval/accuracy", 6, 0.8);  // a new tag adds a panel
    s.finishRun(a);
    ASSERT_TRUE(waitFor([&] { return !view.loader()->live(); }));
    EXPECT_TRUE(view.runList()->item(0)->text().contains("completed"))
        << view.runList()->item(0)->text().toStdString();
    EXPECT_EQ(count(chart->rawGraph(a, "eval/accuracy")), 1);
    EXPECT_EQ(count(chart->rawGraph(a, "train/loss")), 6);  // no row twice
}

TEST_F(CurvesViewTest, DataChangedReloadsTheRunList) {
    ts::test::CurvesSession s("curves_view_reload");
    const int64_t a = s.beginRun("first");
    s.scalar(a, "train/loss", 1, 1.0);
    s.finishRun(a);
    SessionContext ctx;
    ctx.setSessionPath(QString::fromStdString(s.path()));
    CurvesView view(&ctx);
    ASSERT_TRUE(waitFor([&] { return count(view.chart()->rawGraph(a, "train/loss")) == 1; }));
    EXPECT_FALSE(view.loader()->live());

    const int64_t b = s.beginRun("second");
    s.scalar(b, "train/loss", 1, 3.0);
    s.finishRun(b);
    ctx.notifyDataChanged();
    ASSERT_TRUE(waitFor([&] {
        return view.runList()->count() == 2 && count(view.chart()->rawGraph(b, "train/loss")) == 1;
    }));

    ctx.setSessionPath(QString());
    ASSERT_TRUE(waitFor([&] { return view.runList()->count() == 0; }));
    EXPECT_FALSE(view.chart()->hasRun(a));
}

TEST_F(CurvesViewTest, OpensWithTheNewestRunsShown) {
    ts::test::CurvesSession s("curves_view_many");
    std::vector<int64_t> ids;
    for (int i = 0; i < 7; ++i) {
        ids.push_back(s.beginRun("run" + std::to_string(i)));
        s.scalar(ids.back(), "train/loss", 1, i);
        s.finishRun(ids.back());
    }
    SessionContext ctx;
    ctx.setSessionPath(QString::fromStdString(s.path()));
    CurvesView view(&ctx);
    ASSERT_TRUE(waitFor(
        [&] { return view.runList()->count() == 7 && view.chart()->runIds().size() == 5; }));
    EXPECT_EQ(itemFor(view, ids[0])->checkState(), Qt::Unchecked);
    EXPECT_EQ(itemFor(view, ids[1])->checkState(), Qt::Unchecked);
    EXPECT_EQ(itemFor(view, ids[2])->checkState(), Qt::Checked);
    EXPECT_FALSE(view.chart()->hasRun(ids[0]));
    EXPECT_TRUE(view.chart()->hasRun(ids[6]));

    const int64_t late = s.beginRun("late");  // appears ticked, whatever the count
    ctx.notifyDataChanged();
    ASSERT_TRUE(
        waitFor([&] { return view.runList()->count() == 8 && view.chart()->hasRun(late); }));
    EXPECT_EQ(itemFor(view, late)->checkState(), Qt::Checked);
}

TEST_F(CurvesViewTest, ExportsPngPdfAndCsv) {
    ts::test::CurvesSession s("curves_view_export");
    const int64_t a = s.beginRun("mlp");
    s.fillRun(a, 6);
    s.finishRun(a);
    SessionContext ctx;
    ctx.setSessionPath(QString::fromStdString(s.path()));
    CurvesView view(&ctx);
    view.resize(800, 500);
    ASSERT_TRUE(waitFor([&] { return count(view.chart()->rawGraph(a, "lr")) == 6; }));
    view.setSmoothing(0.3);

    const auto dir = ts::test::tempDir("curves_export");
    const QString png = QString::fromStdString((dir / "c.png").string());
    const QString pdf = QString::fromStdString((dir / "c.pdf").string());
    const QString csv = QString::fromStdString((dir / "c.csv").string());
    QString error;
    ASSERT_TRUE(view.exportTo(png, &error)) << error.toStdString();
    ASSERT_TRUE(view.exportTo(pdf, &error)) << error.toStdString();
    ASSERT_TRUE(view.exportTo(csv, &error)) << error.toStdString();
    EXPECT_GT(QFileInfo(png).size(), 1000);
    EXPECT_GT(QFileInfo(pdf).size(), 1000);
    std::ifstream f(csv.toStdString());
    std::stringstream text;
    text << f.rdbuf();
    EXPECT_EQ(text.str(), ts::curves::scalarsCsv(view.chart()->data(), 0.3));
    EXPECT_NE(text.str().find("1,mlp,train/loss,2,"), std::string::npos);

    EXPECT_FALSE(view.exportTo(QString::fromStdString((dir / "c.bmpx").string()), &error));
    EXPECT_TRUE(error.contains("unknown export format"));
    EXPECT_FALSE(view.exportTo(QString::fromStdString((dir / "no/dir/c.csv").string()), &error));
}

TEST_F(CurvesViewTest, ViewInfoCreatesTheView) {
    const ViewInfo info = curvesViewInfo();
    EXPECT_EQ(info.name, "curves");
    EXPECT_FALSE(info.openByDefault);
    SessionContext ctx;
    std::unique_ptr<QWidget> w(info.create(&ctx, nullptr));
    EXPECT_NE(qobject_cast<CurvesView*>(w.get()), nullptr);
}
