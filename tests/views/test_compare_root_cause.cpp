// The Compare dumps view shows the root cause apart from the first failing tensor, re-applies
// the combined rule at once and compares again when the pairing changes (dumps written by
// tests/diff/make_dump_pair.py; skipped without python3 + h5py).
#include <gtest/gtest.h>

#include <QComboBox>
#include <QLabel>
#include <QSignalSpy>
#include <QTest>
#include <cstdlib>

#include "tests/common/qt_test_app.h"
#include "tests/common/test_support.h"
#include "views/common/job_tracker.h"
#include "views/common/session_context.h"
#include "views/dumps/compare/compare_table_model.h"
#include "views/dumps/compare/compare_view.h"

namespace {

std::filesystem::path dumps(const std::string& mode) {
    for (const char* py : {"/usr/bin/python3", "python3"}) {
        if (std::system((std::string(py) + " -c 'import h5py, numpy' >/dev/null 2>&1").c_str()))
            continue;
        const auto dir = ts::test::tempDir("cmp_rc_" + mode);
        const auto r = ts::test::runProgram(
            py, {TRAINSCOPE_SOURCE_DIR "/tests/diff/make_dump_pair.py", mode, dir.string()});
        EXPECT_EQ(r.exitCode, 0) << r.err;
        return dir;
    }
    return {};
}

QString pathOf(const std::filesystem::path& p) {
    return QString::fromStdString(p.string());
}

}  // namespace

TEST(CompareRootCause, ShownApartRuleAndPairing) {
    ts::test::ensureQtApp();
    const auto spread = dumps("spread");
    if (spread.empty()) GTEST_SKIP() << "python3 with h5py and numpy not available";
    SessionContext ctx;
    CompareView view(&ctx);
    view.resize(1400, 700);
    view.show();
    QSignalSpy done(&view, &CompareView::compared);
    view.compare(pathOf(spread / "a.h5"), pathOf(spread / "b.h5"));
    QTRY_VERIFY_WITH_TIMEOUT(done.count() == 1, 15000);
    auto* m = view.model();
    const int root = m->rootCauseRow();
    ASSERT_GE(root, 0);
    EXPECT_EQ(m->report().pairs[static_cast<size_t>(root)].tensor.path, "ReLU/1/output/0");
    EXPECT_TRUE(
        m->data(m->index(root, CompareTableModel::Index)).toString().contains("root cause"));
    EXPECT_EQ(
        m->headerData(CompareTableModel::Share1e3, Qt::Horizontal, Qt::DisplayRole).toString(),
        QStringLiteral("≤0.1 %"));

    // A wrong scale: cosine passes it, the combined rule does not; no root cause then.
    const auto entry = dumps("entry");
    view.compare(pathOf(entry / "a.h5"), pathOf(entry / "b.h5"));
    QTRY_VERIFY_WITH_TIMEOUT(done.count() == 2, 15000);
    auto t = view.thresholds();
    t.rule = ts::debug::PassRule::Combined;
    view.setThresholds(t);
    ASSERT_GE(m->firstDivergentRow(), 0);
    EXPECT_EQ(m->report().pairs[static_cast<size_t>(m->firstDivergentRow())].tensor.path,
              "MatMul/0/input/1");
    EXPECT_EQ(m->rootCauseRow(), -1);
    const QLabel* summary = view.findChild<QLabel*>();
    bool noted = false;
    for (const QLabel* l : view.findChildren<QLabel*>())
        noted |= l->text().contains("Root cause: none");
    EXPECT_TRUE(noted) << (summary ? summary->text().toStdString() : "");

    // Two frameworks: by path little pairs; aligned by scope layer, the root cause is found.
    const auto fw = dumps("frameworks");
    t.rule = ts::debug::PassRule::Cosine;
    view.setThresholds(t);
    view.compare(pathOf(fw / "engine.h5"), pathOf(fw / "torch.h5"));
    QTRY_VERIFY_WITH_TIMEOUT(done.count() == 3, 15000);
    EXPECT_EQ(m->report().pairing, "path");
    ts::debug::DumpPairOptions how;
    how.aligned = true;
    how.align.key = ts::debug::DumpKey::Scope;
    view.setPairing(how);
    QTRY_VERIFY_WITH_TIMEOUT(done.count() == 4, 15000);
    EXPECT_EQ(m->report().pairing, "aligned");
    ASSERT_GE(m->rootCauseRow(), 0);
    EXPECT_EQ(m->report().unitNamesA[*m->report().rootCause.unit], "ReLU/1");
    QTRY_VERIFY(ctx.jobs()->idle());
}
