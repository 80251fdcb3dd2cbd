// TraceStore: create, reopen, strings, sources, runs, counts, cancel (deleteSource).
#include <gtest/gtest.h>

#include "core/store/store_writer.h"
#include "tests/common/test_support.h"

using namespace ts::store;

namespace {

std::unique_ptr<TraceStore> create(const std::string& path) {
    auto s = TraceStore::open(path, TraceStore::Mode::Create);
    EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error());
    return std::move(s.value());
}

int64_t writeSource(TraceStore& store, int slices) {
    const int64_t src = store.beginSource("a.json", "test").value();
    {
        StoreWriter w(store, src, 100);
        const int64_t p = w.addProcess("1", "proc");
        const int64_t t = w.addTrack("thread", p, w.addThread(p, "7", "main"), "main");
        for (int i = 0; i < slices; ++i)
            w.addSlice({t, 1000 + i * 10, 5, 0, w.intern(i % 2 ? "odd" : "even"), 0, 0, 0});
        EXPECT_TRUE(w.error().empty()) << w.error();
    }
    SourceSummary sum;
    sum.status = ts::store::SourceStatus::Complete;
    sum.slices = slices;
    EXPECT_TRUE(store.finishSource(src, sum).ok());
    return src;
}

}  // namespace

TEST(TraceStore, CreatesAndReopensWithCurrentSchema) {
    const std::string path = (ts::test::tempDir("store") / "s.tscope").string();
    { create(path); }
    auto s = TraceStore::open(path, TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(s.ok()) << s.error();
    EXPECT_EQ(s.value()->schemaVersion(), 9);
    EXPECT_TRUE(s.value()->sources().value().empty());
    EXPECT_FALSE(s.value()->timeRange().value().has_value());
}

TEST(TraceStore, InternsStringsOnce) {
    auto s = create((ts::test::tempDir("store") / "s.tscope").string());
    const int64_t a = s->intern("conv2d");
    EXPECT_EQ(s->intern("conv2d"), a);
    EXPECT_NE(s->intern("relu"), a);
    EXPECT_EQ(s->string(a), "conv2d");
}

TEST(TraceStore, WritesSlicesAndReportsCountsAndRange) {
    const std::string path = (ts::test::tempDir("store") / "s.tscope").string();
    {
        auto s = create(path);
        writeSource(*s, 250);
    }
    auto s = TraceStore::open(path, TraceStore::Mode::ReadOnly).value();
    auto sources = s->sources().value();
    ASSERT_EQ(sources.size(), 1u);
    EXPECT_EQ(sources[0].status, ts::store::SourceStatus::Complete);
    EXPECT_EQ(sources[0].slices, 250);
    int64_t slices = -1, stats = -1;
    for (const auto& c : s->tableCounts().value())
        if (c.table == "slices") slices = c.rows;
    EXPECT_EQ(slices, 250);
    stats = s->db().queryInt("SELECT sum(count) FROM slice_name_stats").value();
    EXPECT_EQ(stats, 250);
    EXPECT_EQ(s->db()
                  .queryInt("SELECT total_dur FROM slice_name_stats WHERE name_id=(SELECT id "
                            "FROM strings WHERE str='odd')")
                  .value(),
              125 * 5);
    auto range = s->timeRange().value();
    ASSERT_TRUE(range.has_value());
    EXPECT_EQ(range->first, 1000);
    EXPECT_EQ(range->second, 1000 + 249 * 10 + 5);
}

TEST(TraceStore, DeleteSourceRemovesEveryRowOfIt) {
    auto s = create((ts::test::tempDir("store") / "s.tscope").string());
    const int64_t keep = writeSource(*s, 10);
    const int64_t drop = writeSource(*s, 20);
    ASSERT_TRUE(s->deleteSource(drop).ok());
    auto sources = s->sources().value();
    ASSERT_EQ(sources.size(), 1u);
    EXPECT_EQ(sources[0].id, keep);
    EXPECT_EQ(s->db().queryInt("SELECT count(*) FROM slices").value(), 10);
    EXPECT_EQ(s->db().queryInt("SELECT count(*) FROM tracks").value(), 1);
    EXPECT_EQ(s->db().queryInt("SELECT count(*) FROM processes").value(), 1);
    EXPECT_EQ(s->db().queryInt("SELECT sum(count) FROM slice_name_stats").value(), 10);
}

TEST(TraceStore, RunsKeepConfigAndStatus) {
    auto s = create((ts::test::tempDir("store") / "s.tscope").string());
    const int64_t run = s->beginRun("mlp", R"({"lr":0.05})").value();
    ASSERT_TRUE(s->finishRun(run, ts::store::RunStatus::Completed, "finished all epochs").ok());
    auto runs = s->runs().value();
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].status, ts::store::RunStatus::Completed);
    EXPECT_EQ(runs[0].config, R"({"lr":0.05})");
}

TEST(TraceStore, ReadOnlyOpenRefusesWrites) {
    const std::string path = (ts::test::tempDir("store") / "s.tscope").string();
    { create(path); }
    auto s = TraceStore::open(path, TraceStore::Mode::ReadOnly).value();
    EXPECT_FALSE(s->db().exec("INSERT INTO meta VALUES('x','y')").ok());
}

// Opening a session while another connection records a run must not take the run for one
// whose process died; a run whose recorder process is gone is closed as interrupted.
TEST(TraceStore, OpeningKeepsLiveRunsAndClosesDeadOnes) {
    const std::string path = (ts::test::tempDir("store_runs") / "s.tscope").string();
    int64_t live = 0, dead = 0;
    {
        auto store = create(path);
        live = store->beginRun("live", "{}").value();
        dead = store->beginRun("dead", "{}").value();
        // A pid no process has (pid_max is at most 2^22 on Linux).
        ASSERT_TRUE(store->db().exec("UPDATE runs SET writer_pid = 99999999 WHERE id = " +
                                     std::to_string(dead)));
    }
    auto reopened = TraceStore::open(path, TraceStore::Mode::ReadWrite);
    ASSERT_TRUE(reopened.ok()) << reopened.error();
    auto runs = reopened.value()->runs();
    ASSERT_TRUE(runs.ok());
    ASSERT_EQ(runs.value().size(), 2u);
    for (const RunInfo& r : runs.value()) {
        if (r.id == live) {
            EXPECT_EQ(r.status, ts::store::RunStatus::Running);
        }
        if (r.id == dead) {
            EXPECT_EQ(r.status, ts::store::RunStatus::Interrupted);
            EXPECT_NE(r.reason.find("ended without closing"), std::string::npos) << r.reason;
            EXPECT_GT(r.endedAt, 0);
        }
    }
    ASSERT_TRUE(reopened.value()->finishRun(live, ts::store::RunStatus::Completed, "done", "{}"));
    EXPECT_EQ(reopened.value()
                  ->db()
                  .queryInt("SELECT count(*) FROM runs WHERE writer_pid IS "
                            "NOT NULL")
                  .value(),
              0);
}
