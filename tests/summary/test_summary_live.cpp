// A MindSpore summary file that a run writes while the studio records the run (a command run
// watching the run's summary folder, as with SummaryCollector) is tailed: what is complete
// is recorded as it comes, a record cut by a write in progress is read once the rest arrives.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/run/artifact_watch.h"
#include "core/run/command_run.h"
#include "core/store/trace_store.h"
#include "importers/run_artifacts.h"
#include "tests/common/summary_fixtures.h"
#include "tests/common/test_support.h"

using namespace ts;
namespace fs = std::filesystem;

TEST(SummaryLive, SummaryNamesAreTailedLineageIsNot) {
    EXPECT_EQ(run::classifyArtifact("/x/events.summary.1700000000.host_MS"),
              run::ArtifactKind::TfEvents);
    EXPECT_EQ(run::classifyArtifact("/x/events.summary.1700000000.host_lineage"),
              run::ArtifactKind::Other);
}

TEST(SummaryLive, CommandRunTailsAGrowingSummaryFile) {
    const auto dir = test::tempDir("summary_live");
    const auto full = dir / "staging" / "events.summary.1700000000.host_MS";
    const auto contents = test::writeMindSporeSummary(full, 30);
    const std::string bytes = test::readBytes(full);
    // Three appends, each ending inside a record.
    const size_t a = bytes.size() / 3 + 5, b = 2 * bytes.size() / 3 + 7;
    test::writeBytes(dir / "staging" / "p1", bytes.substr(0, a));
    test::writeBytes(dir / "staging" / "p2", bytes.substr(a, b - a));
    test::writeBytes(dir / "staging" / "p3", bytes.substr(b));
    fs::create_directories(dir / "summary");
    const fs::path script = dir / "train.sh";
    std::ofstream(script) << "f=summary/events.summary.1700000000.host_MS\n"
                             "cat staging/p1 > $f; sleep 0.7\n"
                             "cat staging/p2 >> $f; sleep 0.7\n"
                             "cat staging/p3 >> $f; sleep 0.7\n";
    run::CommandRunOptions o;
    o.sessionPath = (dir / "s.tscope").string();
    o.spec.program = "sh";
    o.spec.args = {script.string()};
    o.spec.cwd = dir.string();
    o.spec.watchDirs = {"summary"};
    o.importArtifact = importers::runArtifactImporter();
    o.settleNs = 200'000'000;
    run::CommandRun r(std::move(o));
    r.start();
    const run::CommandResult res = r.wait();
    EXPECT_EQ(res.status, store::RunStatus::Completed) << res.reason;
    auto s =
        store::TraceStore::open((dir / "s.tscope").string(), store::TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(s.ok());
    auto& db = s.value()->db();
    EXPECT_EQ(db.queryInt("SELECT count(*) FROM scalars s JOIN strings t ON t.id = s.tag_id "
                          "WHERE t.str = 'loss/auto' AND s.run_id = 1")
                  .value(),
              contents.scalarSteps);
    EXPECT_EQ(
        db.queryInt("SELECT count(*) FROM summary_values WHERE kind = 'histogram' AND run_id = 1")
            .value(),
        contents.histogramSteps);
    EXPECT_EQ(db.queryInt("SELECT count(*) FROM summary_values WHERE kind = 'landscape'").value(),
              1);
    EXPECT_EQ(db.queryInt("SELECT count(*) FROM summary_values WHERE kind = 'graph'").value(), 1);
}
