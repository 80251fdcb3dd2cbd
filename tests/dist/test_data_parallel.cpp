// Data-parallel training of the engine across processes (Gloo): `train --nproc 2`, ranks
// started by hand with the launcher variables, identical gradients on every rank, the
// collective as a profiled op, accuracy against one process with the same global batch, and
// a failure or a stop on one rank ending all with its reason.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <signal.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <thread>

#include "core/dist/process_group.h"
#include "core/engine/data/dataset.h"
#include "core/run/child_process.h"
#include "core/run/launch_env.h"
#include "core/store/trace_store.h"
#include "tests/common/test_support.h"

namespace fs = std::filesystem;
using ts::test::runCli;

namespace {

#define REQUIRE_GLOO()                                                                      \
    do {                                                                                    \
        if (!ts::dist::haveCollectives())                                                   \
            GTEST_SKIP() << "built without Gloo (apt-get install libgloo-dev and rebuild)"; \
    } while (0)

rapidjson::Document parse(const std::string& out) {
    rapidjson::Document d;
    d.Parse(out.c_str());
    EXPECT_TRUE(d.IsObject()) << out;
    return d;
}

// Read-only: the ranks are writing (a writable connection's locks would slow them). -1 while
// the session cannot be read yet (a rank creates its file before it writes the schema).
int64_t tryCount(const std::string& session, const std::string& sql) {
    auto s = ts::store::TraceStore::open(session, ts::store::TraceStore::Mode::ReadOnly);
    if (!s) return -1;
    auto n = s.value()->db().queryInt(sql);
    return n ? n.value() : -1;
}

int64_t count(const std::string& session, const std::string& sql) {
    const int64_t n = tryCount(session, sql);
    EXPECT_GE(n, 0) << session << ": " << sql;
    return n;
}

std::string lastRunStatus(const std::string& session, std::string* reason = nullptr) {
    auto s = ts::store::TraceStore::open(session, ts::store::TraceStore::Mode::ReadWrite);
    if (!s) return "no session: " + s.error();
    auto runs = s.value()->runs().value();
    if (runs.empty()) return "no run";
    if (reason) *reason = runs.back().reason;
    return ts::store::statusName(runs.back().status);
}

// One rank started by hand, as a launcher of the user's would: the variables, then train.
ts::test::CommandResult rank(int r, int world, int port, std::vector<std::string> args) {
    std::vector<std::string> full = {
        "RANK=" + std::to_string(r), "WORLD_SIZE=" + std::to_string(world),
        "MASTER_ADDR=127.0.0.1",     "MASTER_PORT=" + std::to_string(port),
        ts::test::cliPath(),         "train"};
    full.insert(full.end(), args.begin(), args.end());
    return ts::test::runProgram("/usr/bin/env", full);
}

}  // namespace

TEST(DataParallel, TwoRanksTrainOneModelWithIdenticalGradients) {
    REQUIRE_GLOO();
    const fs::path dir = ts::test::tempDir("dp_two");
    std::ofstream(dir / "dump.json") << R"({"dump_path": ")" << (dir / "dumps").string()
                                     << R"(", "dump_list": ["AllReduce"], "steps": "3"})";
    auto r =
        runCli({"train", "--nproc", "2", "--dataset", "synthetic", "--synthetic-samples", "1024",
                "--batch-size", "16", "--limit-steps", "12", "--eval-limit", "256", "--profile",
                "--dump", (dir / "dump.json").string(), "-o", (dir / "job").string(), "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto d = parse(r.out);
    EXPECT_EQ(d["world_size"].GetInt(), 2);
    ASSERT_EQ(d["ranks"].Size(), 2u);
    double sum = 0;
    for (const auto& rk : d["ranks"].GetArray()) {
        EXPECT_STREQ(rk["status"].GetString(), "completed");
        EXPECT_EQ(rk["steps"].GetInt64(), 12);
        EXPECT_GT(rk["samples_per_s"].GetDouble(), 0);
        sum += rk["samples_per_s"].GetDouble();
    }
    EXPECT_DOUBLE_EQ(d["samples_per_s"].GetDouble(), sum);
    EXPECT_STREQ(d["job"]["status"].GetString(), "completed");
    EXPECT_TRUE(d["eval"]["accuracy"].IsNumber());  // rank 0 evaluated
    const std::string s0 = (dir / "job" / "rank_0.tscope").string();
    const std::string s1 = (dir / "job" / "rank_1.tscope").string();
    // Each rank read its half: 1024 samples / 2 ranks / 16 = 32 batches an epoch.
    for (const std::string& s : {s0, s1}) {
        EXPECT_EQ(count(s, "SELECT count(*) FROM runs WHERE config LIKE '%\"world_size\":2%'"), 1)
            << s;
        EXPECT_EQ(count(s,
                        "SELECT count(*) FROM slices sl JOIN strings n ON n.id = sl.name_id "
                        "WHERE n.str = 'AllReduce'"),
                  12)
            << s;  // profiled like any op, once a step
    }
    EXPECT_EQ(count(s1, "SELECT count(*) FROM runs WHERE config LIKE '%\"rank\":1%'"), 1);
    // The ranks share this machine: each its share of the cores (core/run/training_job.cpp).
    const int perRank = std::max(1, static_cast<int>(std::thread::hardware_concurrency()) / 2);
    for (const std::string& s : {s0, s1})
        EXPECT_EQ(count(s, "SELECT count(*) FROM runs WHERE config LIKE '%\"threads\":" +
                               std::to_string(perRank) + "%'"),
                  1)
            << s;
    auto args =
        runCli({"query", s0,
                "SELECT a.json FROM slices sl JOIN strings n ON n.id = sl.name_id JOIN args a ON "
                "a.id = sl.arg_set_id WHERE n.str = 'AllReduce' LIMIT 1",
                "--json"});
    EXPECT_NE(args.out.find("\\\"algorithm\\\":\\\"ring\\\""), std::string::npos) << args.out;
    EXPECT_NE(args.out.find("\\\"bytes\\\":"), std::string::npos);
    EXPECT_NE(args.out.find("\\\"peers\\\":[1]"), std::string::npos);
    // The folder is one cluster: both ranks, their steps, the AllReduce as communication.
    auto cluster = runCli({"cluster", (dir / "job").string(), "--json"});
    ASSERT_EQ(cluster.exitCode, 0) << cluster.out;
    auto cl = parse(cluster.out);
    ASSERT_EQ(cl["ranks"].Size(), 2u);
    for (const auto& rk : cl["ranks"].GetArray()) {
        EXPECT_EQ(rk["steps"].GetInt64(), 12) << cluster.out;
        EXPECT_GT(rk["comm_ms"].GetDouble(), 0.0) << cluster.out;
        EXPECT_STREQ(rk["rank_from"].GetString(), "run config");
    }
    // The averaged gradients are the same on both ranks, bit for bit.
    const fs::path d0 = dir / "dumps" / "rank_0" / "step_3.h5",
                   d1 = dir / "dumps" / "rank_1" / "step_3.h5";
    ASSERT_TRUE(fs::exists(d0) && fs::exists(d1));
    auto cmp = runCli({"dump", "compare", d0.string(), d1.string(), "--json"});
    auto c = parse(cmp.out);
    ASSERT_GE(c["pairs"].Size(), 2u);
    for (const auto& p : c["pairs"].GetArray()) {
        EXPECT_TRUE(p["pass"].GetBool());
        EXPECT_EQ(p["max_abs"].GetDouble(), 0.0) << p["path"].GetString();
    }
}

// Gradient buckets (core/engine/train/grad_buckets.h): small buckets make several allreduces
// a step, started while backward runs; the sums are the same as one bucket's, bit for bit, so
// the two jobs end with the same loss; each bucket is its own AllReduce op with its bytes.
TEST(DataParallel, SmallBucketsSumAsOneBucketAndEachIsAnOp) {
    REQUIRE_GLOO();
    const fs::path dir = ts::test::tempDir("dp_buckets");
    auto job = [&](const std::string& name, std::vector<std::string> extra) {
        std::vector<std::string> args = {"train",     "--nproc",
                                         "2",         "--dataset",
                                         "synthetic", "--synthetic-samples",
                                         "512",       "--batch-size",
                                         "16",        "--limit-steps",
                                         "8",         "--eval-limit",
                                         "128",       "--profile",
                                         "-o",        (dir / name).string(),
                                         "--json"};
        args.insert(args.end(), extra.begin(), extra.end());
        auto r = runCli(args);
        EXPECT_EQ(r.exitCode, 0) << r.err;
        return parse(r.out);
    };
    auto one = job("one", {});
    auto many = job("many", {"--bucket-mb", "0.05"});  // 50 KB: the MLP's layers apart
    ASSERT_TRUE(one.HasMember("final") && many.HasMember("final"));
    EXPECT_EQ(one["final"]["loss"].GetDouble(), many["final"]["loss"].GetDouble());
    EXPECT_EQ(one["eval"]["loss"].GetDouble(), many["eval"]["loss"].GetDouble());
    const std::string s1 = (dir / "one" / "rank_0.tscope").string();
    const std::string sN = (dir / "many" / "rank_1.tscope").string();
    const std::string allreduce =
        "SELECT count(*) FROM slices sl JOIN strings n ON n.id = sl.name_id JOIN args a ON "
        "a.id = sl.arg_set_id WHERE n.str = 'AllReduce'";
    EXPECT_EQ(count(s1, allreduce), 8);
    EXPECT_EQ(count(s1, allreduce + " AND a.json LIKE '%\"buckets\":1,%'"), 8);
    // The collective's own time on the comm thread, known once it ran (an end attribute).
    EXPECT_EQ(count(s1, allreduce + " AND json_extract(a.json, '$.comm_ns') > 0"), 8);
    const int64_t buckets = count(sN, allreduce) / 8;
    EXPECT_GT(buckets, 1);
    EXPECT_EQ(count(sN, allreduce), 8 * buckets);
    EXPECT_EQ(
        count(sN, allreduce + " AND a.json LIKE '%\"buckets\":" + std::to_string(buckets) + ",%'"),
        8 * buckets);
    for (int64_t b = 0; b < buckets; ++b)
        EXPECT_EQ(count(sN, allreduce + " AND a.json LIKE '%\"bucket\":" + std::to_string(b) +
                                ",%' AND a.json LIKE '%\"bytes\":%'"),
                  8)
            << "bucket " << b;
    auto bad = runCli({"train", "--nproc", "2", "--bucket-mb", "0", "-o", (dir / "bad").string()});
    EXPECT_NE(bad.exitCode, 0);
    EXPECT_NE((bad.out + bad.err).find("--bucket-mb"), std::string::npos) << bad.err;
}

TEST(DataParallel, AccuracyMatchesOneProcessWithTheSameGlobalBatch) {
    REQUIRE_GLOO();
    if (ts::engine::fashionMnistDir().empty())
        GTEST_SKIP() << "dataset-fashion-mnist is not installed";
    const fs::path dir = ts::test::tempDir("dp_accuracy");
    const std::vector<std::string> common = {"--model",      "mlp",  "--limit-steps", "400",
                                             "--eval-limit", "2000", "--lr",          "0.05",
                                             "--seed",       "3",    "--json"};
    auto one = runCli([&] {
        std::vector<std::string> a = {"train", "--batch-size", "64", "-o",
                                      (dir / "one.tscope").string()};
        a.insert(a.end(), common.begin(), common.end());
        return a;
    }());
    auto two = runCli([&] {
        std::vector<std::string> a = {
            "train", "--nproc", "2", "--batch-size", "32", "-o", (dir / "two").string()};
        a.insert(a.end(), common.begin(), common.end());
        return a;
    }());
    ASSERT_EQ(one.exitCode, 0) << one.err;
    ASSERT_EQ(two.exitCode, 0) << two.err;
    const double a1 = parse(one.out)["eval"]["accuracy"].GetDouble();
    const double a2 = parse(two.out)["eval"]["accuracy"].GetDouble();
    std::printf("accuracy after 400 steps of 64 samples: 1 process %.4f, 2 ranks x 32 %.4f\n", a1,
                a2);
    EXPECT_GT(a1, 0.7);
    EXPECT_LT(std::abs(a1 - a2), 0.02);
}

TEST(DataParallel, AFailedRankStopsTheOthersWithItsReason) {
    REQUIRE_GLOO();
    const fs::path dir = ts::test::tempDir("dp_fail");
    const int port = ts::run::pickFreePort("127.0.0.1");
    const std::vector<std::string> common = {
        "--dataset",    "synthetic", "--epochs", "1000",
        "--batch-size", "16",        "-o",       (dir / "job").string(),
        "--json"};
    ts::test::CommandResult r0, r1;
    std::thread t0([&] { r0 = rank(0, 2, port, common); });
    std::thread t1([&] {
        auto args = common;
        args.insert(args.end(), {"--max-memory-mb", "1"});  // its first big allocation fails
        r1 = rank(1, 2, port, args);
    });
    t0.join();
    t1.join();
    EXPECT_NE(r1.exitCode, 0);
    EXPECT_NE(r0.exitCode, 0) << r0.out;
    std::string reason;
    EXPECT_EQ(lastRunStatus((dir / "job" / "rank_0.tscope").string(), &reason), "failed");
    EXPECT_NE(reason.find("rank 1"), std::string::npos) << reason;
}

TEST(DataParallel, InterruptingOneRankStopsAllAfterTheSameStep) {
    REQUIRE_GLOO();
    const fs::path dir = ts::test::tempDir("dp_stop");
    const int port = ts::run::pickFreePort("127.0.0.1");
    std::vector<std::unique_ptr<ts::run::ChildProcess>> ranks;
    for (int r = 0; r < 2; ++r) {
        ts::run::EnvList env = ts::run::currentEnvironment();
        env.insert(env.end(), {{"RANK", std::to_string(r)},
                               {"WORLD_SIZE", "2"},
                               {"MASTER_ADDR", "127.0.0.1"},
                               {"MASTER_PORT", std::to_string(port)}});
        auto c = ts::run::ChildProcess::spawn(
            {ts::test::cliPath(),
             {"train", "--dataset", "synthetic", "--epochs", "100000", "--batch-size", "16", "-o",
              (dir / "job").string(), "--json"},
             "",
             env});
        ASSERT_TRUE(c) << c.error();
        ranks.push_back(std::move(c.value()));
    }
    // Wait until both train, then interrupt rank 1 only.
    const std::string s1 = (dir / "job" / "rank_1.tscope").string();
    const auto w0 = std::chrono::steady_clock::now();
    int polls = 0;
    for (; polls < 600; ++polls) {
        if (tryCount(s1, "SELECT count(*) FROM scalars") > 5) break;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    std::printf("training after %d polls, %.2f s\n", polls,
                std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count());
    const auto t0 = std::chrono::steady_clock::now();
    ::kill(ranks[1]->pid(), SIGINT);
    for (int i = 0; i < 600 && !(ranks[0]->poll() && ranks[1]->poll()); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    ASSERT_TRUE(ranks[0]->ended() && ranks[1]->ended()) << "a rank did not stop";
    std::printf("both ranks ended %.2f s after rank 1's SIGINT\n",
                std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    std::string reason0, reason1;
    EXPECT_EQ(lastRunStatus((dir / "job" / "rank_0.tscope").string(), &reason0), "stopped");
    EXPECT_EQ(lastRunStatus(s1, &reason1), "stopped");
    EXPECT_NE(reason0.find("rank 1: stopped: interrupted"), std::string::npos) << reason0;
    EXPECT_NE(reason1.find("interrupted"), std::string::npos) << reason1;
    // The same last step on both.
    EXPECT_EQ(count((dir / "job" / "rank_0.tscope").string(), "SELECT max(step) FROM scalars"),
              count(s1, "SELECT max(step) FROM scalars"));
}

TEST(DataParallel, WithoutRendezvousTheErrorSaysWhatToSet) {
    const fs::path dir = ts::test::tempDir("dp_norv");
    auto r = ts::test::runProgram(
        "/usr/bin/env", {"RANK=0", "WORLD_SIZE=2", ts::test::cliPath(), "train", "--dataset",
                         "synthetic", "-o", (dir / "x").string(), "--json"});
    EXPECT_NE(r.exitCode, 0);
    EXPECT_NE(r.out.find("MASTER_ADDR and MASTER_PORT"), std::string::npos) << r.out;
}
