// The Training panel's "Instrumentation" group: the profiler, dump/overflow and crash-recorder
// sections round-trip their JobOptions fields and name bad ones, and a run started from the
// panel with all three on leaves its profile and findings in the session and, ending
// abnormally, opens its crash record.
#include <gtest/gtest.h>

#include <QApplication>
#include <QDir>
#include <QGroupBox>
#include <QSignalSpy>
#include <QTest>

#include "core/store/trace_store.h"
#include "tests/common/qt_test_app.h"
#include "tests/common/test_support.h"
#include "views/common/session_context.h"
#include "views/training/training_form.h"
#include "views/training/training_view.h"

namespace {

ts::run::JobOptions instrumented(const std::string& rdrDir) {
    ts::run::JobOptions o = TrainingView::defaultOptions();
    o.profile = true;
    o.profiler.schedule.skipFirst = 1;
    o.profiler.schedule.wait = 1;
    o.profiler.schedule.warmup = 1;
    o.profiler.schedule.active = 2;
    o.profiler.schedule.repeat = 3;
    o.profiler.recordShapes = false;
    o.profiler.profileMemory = true;
    o.overflowCheck = true;
    o.stopOnOverflow = false;
    o.rdrConfigJson = "{\"rdr\":{\"enable\":true,\"mode\":2,\"path\":\"" + rdrDir + "\"}}";
    o.rdrUseEnvironment = false;
    return o;
}

}  // namespace

TEST(TrainingInstrumentation, SectionsAreShownAndRoundTrip) {
    ts::test::ensureQtApp();
    TrainingForm form;
    EXPECT_NE(form.findChild<QGroupBox*>(QStringLiteral("instrumentationGroup")), nullptr);
    const ts::run::JobOptions in = instrumented("/tmp/rdr_root");
    form.setOptions(in);
    ts::run::JobOptions out;
    QString error;
    ASSERT_TRUE(form.options(&out, &error)) << error.toStdString();
    EXPECT_TRUE(out.profile);
    EXPECT_EQ(out.profiler.schedule.skipFirst, 1);
    EXPECT_EQ(out.profiler.schedule.wait, 1);
    EXPECT_EQ(out.profiler.schedule.warmup, 1);
    EXPECT_EQ(out.profiler.schedule.active, 2);
    EXPECT_EQ(out.profiler.schedule.repeat, 3);
    EXPECT_FALSE(out.profiler.recordShapes);
    EXPECT_TRUE(out.profiler.profileMemory);
    EXPECT_TRUE(out.overflowCheck);
    EXPECT_FALSE(out.stopOnOverflow);
    EXPECT_TRUE(out.dumpConfigJson.empty());
    EXPECT_FALSE(out.rdrUseEnvironment);
    EXPECT_NE(out.rdrConfigJson.find("\"mode\":2"), std::string::npos) << out.rdrConfigJson;
    EXPECT_NE(out.rdrConfigJson.find("/tmp/rdr_root"), std::string::npos) << out.rdrConfigJson;

    // Defaults: everything off.
    form.setOptions(TrainingView::defaultOptions());
    ASSERT_TRUE(form.options(&out, &error));
    EXPECT_FALSE(out.profile);
    EXPECT_FALSE(out.overflowCheck);
    EXPECT_TRUE(out.rdrConfigJson.empty());

    // A relative crash-record folder is refused, naming the section.
    ts::run::JobOptions bad = in;
    bad.rdrConfigJson = R"({"rdr":{"enable":true,"mode":1,"path":"relative/dir"}})";
    form.setOptions(bad);
    EXPECT_FALSE(form.options(&out, &error));
    EXPECT_TRUE(error.contains(QStringLiteral("Crash recorder"))) << error.toStdString();
}

TEST(TrainingInstrumentation, DivergingRunLeavesProfileFindingsAndOpensItsCrashRecord) {
    ts::test::ensureQtApp();
    const auto dir = ts::test::tempDir("training_instrumentation");
    SessionContext ctx;
    const std::string session = (dir / "s.tscope").string();
    ctx.setSessionPath(QString::fromStdString(session));
    TrainingView view(&ctx);
    ts::run::JobOptions o = instrumented((dir / "rdr").string());
    o.profiler.schedule = {};  // every step
    o.train.dataset = "synthetic";
    o.train.syntheticSamples = 512;
    o.train.batchSize = 32;
    o.train.epochs = 1;
    o.train.lr = 1e9;  // diverges within a few steps
    o.train.evalLimit = 64;
    view.form()->setOptions(o);
    QSignalSpy opened(&ctx, &SessionContext::openRequested);
    QSignalSpy finished(&view, &TrainingView::runFinished);
    ASSERT_TRUE(view.startTraining()) << view.message().toStdString();
    ASSERT_TRUE(finished.wait(60000) || finished.count() > 0);
    EXPECT_EQ(finished.at(0).at(1).toString(), QStringLiteral("failed"));
    EXPECT_TRUE(view.message().contains(QStringLiteral("profile recorded")))
        << view.message().toStdString();
    EXPECT_TRUE(view.message().contains(QStringLiteral("NaN/Inf finding")))
        << view.message().toStdString();
    ASSERT_EQ(opened.count(), 1);
    const QString rdr = opened.at(0).at(0).toString();
    EXPECT_TRUE(QDir(rdr).exists(QStringLiteral("rdr_index.json"))) << rdr.toStdString();

    auto store = ts::store::TraceStore::open(session, ts::store::TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(store.ok()) << store.error();
    auto& db = store.value()->db();
    EXPECT_EQ(db.queryInt("SELECT count(*) FROM sources WHERE kind = 'profiler'").value(), 1);
    EXPECT_GT(db.queryInt("SELECT count(*) FROM overflow_findings").value(), 0);
    EXPECT_EQ(db.queryInt("SELECT count(*) FROM runs WHERE profile_source_id IS NOT NULL").value(),
              1);
}
