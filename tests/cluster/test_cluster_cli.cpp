// `trainscope-cli cluster` end to end: trace files of a synchronous job with a slow rank
// (ranks from distributedInfo), files without ranks (ranked by order), one session holding
// every rank's trace, a folder of engine rank sessions (`train ... -o DIR/rank_<r>.tscope`,
// one made slow with a bigger batch), --ops, and errors.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "tests/cluster/cluster_traces.h"
#include "tests/common/test_support.h"

namespace fs = std::filesystem;
using ts::test::runCli;
using ts::test::TraceEvent;
using ts::test::TraceSpec;

namespace {

/// One rank of a synchronous 2-rank job, 3 steps of 100 ms (times in µs): the slow rank
/// spends 40 ms in data loading (no op), both compute 40 ms, the fast rank waits ~45 ms in
/// gloo:all_reduce on gloo's thread.
TraceSpec syncRank(int rank, bool slow, bool withRank = true) {
    TraceSpec t;
    if (withRank) t.rank = rank;
    for (int n = 0; n < 3; ++n) {
        const double s = 1000.0 + n * 100'000.0;
        const double load = slow ? 40'000 : 0;
        t.events.push_back(
            {"1", "1", s, 100'000, "ProfilerStep#" + std::to_string(n + 2), "user_annotation"});
        t.events.push_back({"1", "1", s + load + 1'000, 40'000, "aten::mm", "cpu_op"});
        t.events.push_back({"1", "1", s + load + 41'000, 20, "c10d::allreduce_", "cpu_op"});
        const double commStart = s + load + 41'020;
        const double commEnd = s + 99'000;
        t.events.push_back(
            {"1", "2", commStart, commEnd - commStart, "gloo:all_reduce", "user_annotation"});
    }
    return t;
}

rapidjson::Document runJson(const std::vector<std::string>& args, int expectExit = 0) {
    auto r = runCli(args);
    EXPECT_EQ(r.exitCode, expectExit) << r.out << r.err;
    rapidjson::Document d;
    d.Parse(r.out.c_str());
    EXPECT_FALSE(d.HasParseError()) << r.out << r.err;
    return d;
}

}  // namespace

TEST(ClusterCli, TraceFilesOfASlowRankJob) {
    const fs::path dir = ts::test::tempDir("cluster_cli");
    writeTrace(dir / "a.json", syncRank(1, true));
    writeTrace(dir / "b.json", syncRank(0, false));
    auto d = runJson({"cluster", (dir / "a.json").string(), (dir / "b.json").string(), "--json"});
    ASSERT_TRUE(d.IsObject());
    ASSERT_EQ(d["ranks"].Size(), 2u);
    const auto& r0 = d["ranks"][0];
    const auto& r1 = d["ranks"][1];
    EXPECT_EQ(r0["rank"].GetInt(), 0);
    EXPECT_EQ(r1["rank"].GetInt(), 1);
    EXPECT_STREQ(r0["rank_from"].GetString(), "distributedInfo");
    EXPECT_EQ(r0["steps"].GetInt(), 3);
    EXPECT_NEAR(r0["step_ms_median"].GetDouble(), 100, 1e-6);
    EXPECT_NEAR(r0["step_ms_p95"].GetDouble(), 100, 1e-6);
    EXPECT_NEAR(r0["compute_ms"].GetDouble(), 40, 0.01);
    EXPECT_GT(r0["comm_ms"].GetDouble(), 50);  // waiting for rank 1
    EXPECT_LT(r1["comm_ms"].GetDouble(), 20);
    EXPECT_GT(r1["idle_ms"].GetDouble(), 40);  // its data loading
    EXPECT_EQ(d["slowest_rank"].GetInt(), 1);
    ASSERT_EQ(d["stragglers"].Size(), 3u);
    for (const auto& g : d["stragglers"].GetArray()) {
        EXPECT_EQ(g["rank"].GetInt(), 1);
        EXPECT_NEAR(g["step_ms"].GetDouble(), 100, 1e-6);
        EXPECT_GT(g["work_ms"].GetDouble(), g["median_work_ms"].GetDouble());
        EXPECT_GT(g["others_wait_ms"].GetDouble(), g["wait_ms"].GetDouble());
    }
    // The text form names it too.
    auto text = runCli({"cluster", (dir / "a.json").string(), (dir / "b.json").string()});
    EXPECT_EQ(text.exitCode, 0) << text.err;
    EXPECT_NE(text.out.find("slowest rank: 1"), std::string::npos) << text.out;
}

TEST(ClusterCli, FilesWithoutRanksAreRankedByOrderAndOneSessionHoldsAll) {
    const fs::path dir = ts::test::tempDir("cluster_cli_order");
    writeTrace(dir / "fast.json", syncRank(0, false, false));
    writeTrace(dir / "slow.json", syncRank(0, true, false));
    auto d = runJson({"cluster", (dir / "slow.json").string(), (dir / "fast.json").string(),
                      "--json", "--threads", "1"});
    ASSERT_EQ(d["ranks"].Size(), 2u);
    EXPECT_STREQ(d["ranks"][0]["rank_from"].GetString(), "order");
    EXPECT_STREQ(d["ranks"][0]["label"].GetString(), "slow.json");
    EXPECT_EQ(d["slowest_rank"].GetInt(), 0);

    // Every rank's trace imported into one session (with ranks): a rank per source.
    writeTrace(dir / "r0.json", syncRank(0, false));
    writeTrace(dir / "r1.json", syncRank(1, true));
    ts::test::importInto(dir / "both.tscope", {dir / "r0.json", dir / "r1.json"});
    auto s = runJson({"cluster", (dir / "both.tscope").string(), "--json"});
    ASSERT_EQ(s["ranks"].Size(), 2u);
    EXPECT_EQ(s["ranks"][1]["rank"].GetInt(), 1);
    EXPECT_EQ(s["slowest_rank"].GetInt(), 1);
    EXPECT_EQ(s["stragglers"].Size(), 3u);

    // --ops: op statistics of rank 1 against the median rank.
    auto o = runJson({"cluster", (dir / "both.tscope").string(), "--json", "--ops", "1"});
    ASSERT_TRUE(o.HasMember("ops_vs_median"));
    EXPECT_EQ(o["ops_vs_median"]["rank"].GetInt(), 1);
    EXPECT_TRUE(o["ops_vs_median"]["rows"].IsArray());
    EXPECT_GT(o["ops_vs_median"]["rows"].Size(), 0u);
}

TEST(ClusterCli, FolderOfEngineRankSessions) {
    const fs::path dir = ts::test::tempDir("cluster_engine");
    auto train = [&](int rank, int batch) {
        auto r = runCli({"train",
                         "--model",
                         "mlp",
                         "--dataset",
                         "synthetic",
                         "--epochs",
                         "1",
                         "--batch-size",
                         std::to_string(batch),
                         "--optimizer",
                         "sgd",
                         "--lr",
                         "0.05",
                         "--seed",
                         "1",
                         "--limit-steps",
                         "12",
                         "--threads",
                         "1",
                         "--synthetic-samples",
                         "16384",
                         "--profile",
                         "-o",
                         (dir / ("rank_" + std::to_string(rank) + ".tscope")).string(),
                         "--json"});
        ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    };
    train(0, 32);
    train(1, 32);
    train(2, 1024);  // the slow rank: 32x the work per step
    auto d = runJson({"cluster", dir.string(), "--json"});
    ASSERT_EQ(d["ranks"].Size(), 3u);
    for (int r = 0; r < 3; ++r) {
        const auto& rk = d["ranks"][r];
        EXPECT_EQ(rk["rank"].GetInt(), r);
        EXPECT_STREQ(rk["rank_from"].GetString(), "file name");
        EXPECT_EQ(rk["steps"].GetInt(), 12);
        EXPECT_STREQ(rk["step_markers"].GetString(), "ProfilerStep#N");
        EXPECT_GT(rk["compute_ms"].GetDouble(), 0);
    }
    EXPECT_EQ(d["slowest_rank"].GetInt(), 2);
    // Rank 2 does 32x the work in every step; the ranks ran one after another, so a step of
    // rank 0 or 1 slowed by the machine's load may be a straggler too, but never most of them.
    int slow = 0, others = 0;
    for (const auto& g : d["stragglers"].GetArray()) (g["rank"].GetInt() == 2 ? slow : others)++;
    EXPECT_GE(slow, 6) << "rank 2 is a straggler in most of its 12 steps";
    EXPECT_GT(slow, others);
    // The first `cluster` stored each rank's summary in its session: the next one reads the
    // summaries, and says so, with the figures the slices give.
    auto text = runCli({"cluster", dir.string()});
    ASSERT_EQ(text.exitCode, 0) << text.err;
    EXPECT_NE(text.out.find("ranks read from stored summaries: 3 of 3"), std::string::npos)
        << text.out;
    auto fromSummaries = runCli({"cluster", dir.string(), "--json"});
    auto fromSlices = runCli({"cluster", dir.string(), "--from-slices", "--json"});
    ASSERT_EQ(fromSlices.exitCode, 0) << fromSlices.err;
    EXPECT_EQ(fromSummaries.out, fromSlices.out);
    text = runCli({"cluster", dir.string(), "--from-slices"});
    EXPECT_NE(text.out.find("ranks read from stored summaries: 0 of 3"), std::string::npos)
        << text.out;
}

TEST(ClusterCli, Errors) {
    auto d = runJson({"cluster", "/nonexistent/x.json", "--json"}, 1);
    ASSERT_TRUE(d.HasMember("error"));
    const fs::path dir = ts::test::tempDir("cluster_cli_err");
    auto e = runJson({"cluster", dir.string(), "--json"}, 1);
    EXPECT_NE(std::string(e["error"].GetString()).find("folder"), std::string::npos);
    std::ofstream(dir / "bad.json") << "not json";
    auto b = runJson({"cluster", (dir / "bad.json").string(), "--json"}, 1);
    EXPECT_NE(std::string(b["error"].GetString()).find("bad.json"), std::string::npos);
}
