// Command runs of real clients: Debian's PyTorch (1.13, CPU, gloo) running the scripts in
// tests/run/python/scripts through `trainscope-cli launch`, and the MindSpore stand-in (a
// script printing MindSpore's real log and LossMonitor formats and writing an RDR export:
// MindSpore is not packaged for Debian). What each run leaves in the session is checked:
// status and reason, logs with their levels, scalars, imported traces, dumps that Compare
// dumps accepts, overflow findings, crash records.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <filesystem>
#include <fstream>

#include "core/store/trace_store.h"
#include "tests/common/test_support.h"

namespace fs = std::filesystem;
using ts::test::runCli;

namespace {

const char* kPython = "/usr/bin/python3";

fs::path script(const std::string& name) {
    return fs::path(TRAINSCOPE_SOURCE_DIR) / "tests/run/python/scripts" / name;
}

bool torchAvailable() {
    static const bool ok =
        ts::test::runProgram(kPython, {"-c", "import torch, h5py"}).exitCode == 0;
    return ok;
}

#define REQUIRE_TORCH()                                                                        \
    do {                                                                                       \
        if (!torchAvailable())                                                                 \
            GTEST_SKIP() << "Debian's PyTorch is not importable by /usr/bin/python3 (apt-get " \
                            "install python3-torch python3-h5py)";                             \
    } while (0)

struct Launched {
    int exitCode = -1;
    rapidjson::Document json;
    std::string err;
};

Launched launch(const std::string& session, std::vector<std::string> options,
                const std::vector<std::string>& command) {
    std::vector<std::string> args = {"launch", "-o", session, "--json", "--quiet"};
    args.insert(args.end(), options.begin(), options.end());
    args.push_back("--");
    args.insert(args.end(), command.begin(), command.end());
    auto r = runCli(args);
    Launched out;
    out.exitCode = r.exitCode;
    out.err = r.err;
    out.json.Parse(r.out.c_str());
    EXPECT_FALSE(out.json.HasParseError()) << r.out << r.err;
    return out;
}

std::unique_ptr<ts::store::TraceStore> open(const std::string& session) {
    auto s = ts::store::TraceStore::open(session, ts::store::TraceStore::Mode::ReadOnly);
    EXPECT_TRUE(s.ok()) << s.error();
    return std::move(s.value());
}

int64_t count(const std::string& session, const std::string& sql) {
    return open(session)->db().queryInt(sql).value();
}

}  // namespace

TEST(TorchRuns, MlpWithProfilerDumpsAndTheLoss) {
    REQUIRE_TORCH();
    const fs::path dir = ts::test::tempDir("torch_mlp");
    const std::string session = (dir / "s.tscope").string();
    std::ofstream(dir / "dump.json")
        << R"({"dump_path": "dumps_a", "steps": "2", "dump_mode": "all"})";
    std::ofstream(dir / "dump_b.json")
        << R"({"dump_path": "dumps_b", "steps": "2", "dump_mode": "all"})";
    auto a = launch(session,
                    {"--cwd", dir.string(), "--profile", "--profile-schedule", "0,1,3,1", "--dump",
                     "dump.json"},
                    {kPython, script("mlp_fashion.py").string(), "--steps", "12", "--seed", "0"});
    ASSERT_EQ(a.exitCode, 0) << a.err;
    const auto& j = a.json;
    EXPECT_STREQ(j["status"].GetString(), "completed");
    EXPECT_EQ(j["scalars"]["train/loss"].GetInt64(), 12);  // one per optimizer step
    ASSERT_EQ(j["traces_imported"].Size(), 1u);
    EXPECT_GT(j["traces_imported"][0]["slices"].GetInt64(), 100);
    ASSERT_EQ(j["dumps"].Size(), 1u);
    // The trace is the run's profile: ProfilerStep#2..4 (warm-up step 1, then 3 active).
    EXPECT_GT(count(session, "SELECT profile_source_id FROM runs WHERE id = 1"), 0);
    EXPECT_EQ(count(session, "SELECT count(*) FROM sources WHERE run_id = 1"), 1);
    EXPECT_EQ(count(session,
                    "SELECT count(*) FROM slices s JOIN strings n ON n.id = s.name_id WHERE n.str "
                    "IN ('ProfilerStep#2', 'ProfilerStep#3', 'ProfilerStep#4')"),
              3);
    // Python logging's records keep their level and logger; print()s are stdout.
    EXPECT_GT(
        count(session, "SELECT count(*) FROM logs WHERE module = 'mlp_fashion' AND level = 1"), 0);
    EXPECT_GT(count(session, "SELECT count(*) FROM logs WHERE module = 'stdout'"), 0);
    auto analyze = runCli({"analyze", session, "--run", "1", "--json"});
    EXPECT_EQ(analyze.exitCode, 0) << analyze.out;

    // A second run with another seed: Compare dumps pairs every tensor of the two.
    auto b = launch(session, {"--cwd", dir.string(), "--dump", "dump_b.json"},
                    {kPython, script("mlp_fashion.py").string(), "--steps", "3", "--seed", "1"});
    ASSERT_EQ(b.exitCode, 0) << b.err;
    ASSERT_EQ(b.json["dumps"].Size(), 1u);
    auto cmp = runCli({"dump", "compare", a.json["dumps"][0].GetString(),
                       b.json["dumps"][0].GetString(), "--json"});
    ASSERT_EQ(cmp.exitCode, 0) << cmp.out;
    rapidjson::Document c;
    c.Parse(cmp.out.c_str());
    ASSERT_TRUE(c.IsObject()) << cmp.out;
    EXPECT_GE(c["pairs"].Size(), 8u);  // Linear, ReLU, Linear ... inputs and outputs
    EXPECT_EQ(c["unmatched"].Size(), 0u);
    EXPECT_EQ(count(session, "SELECT count(*) FROM dump_files"), 2);
}

TEST(TorchRuns, TwoRanksOnGlooBothRecorded) {
    REQUIRE_TORCH();
    const fs::path dir = ts::test::tempDir("torch_ddp");
    const std::string session = (dir / "s.tscope").string();
    auto r = launch(session, {"--nproc", "2", "--profile", "--profile-schedule", "0,1,2,1"},
                    {kPython, script("ddp_gloo.py").string(), "--steps", "5"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_STREQ(r.json["status"].GetString(), "completed");
    EXPECT_STREQ(r.json["reason"].GetString(), "all 2 processes exited with code 0");
    ASSERT_EQ(r.json["processes"].Size(), 2u);
    EXPECT_EQ(r.json["traces_imported"].Size(), 2u);  // one per rank
    // Both ranks' output is in the logs (each with its pid); the allreduce is on the timeline.
    const int64_t pid0 = r.json["processes"][0]["pid"].GetInt64();
    const int64_t pid1 = r.json["processes"][1]["pid"].GetInt64();
    EXPECT_GT(count(session, "SELECT count(*) FROM logs WHERE pid = " + std::to_string(pid0)), 0);
    EXPECT_GT(count(session, "SELECT count(*) FROM logs WHERE pid = " + std::to_string(pid1)), 0);
    // Every rank's trace holds its gradient all-reduce. Not one per profiled step: torch
    // 1.13 records gloo's work on the worker thread, and the last step's can end after the
    // profiler has stopped collecting (seen: 1 on rank 0, 2 on rank 1, both files complete).
    EXPECT_EQ(count(session,
                    "SELECT count(DISTINCT t.source_id) FROM slices s JOIN tracks t ON t.id = "
                    "s.track_id JOIN strings n ON n.id = s.name_id WHERE n.str = "
                    "'gloo:all_reduce'"),
              2);
    EXPECT_EQ(count(session, "SELECT count(*) FROM scalars WHERE run_id = 1"),
              5);  // rank 0's losses
}

TEST(TorchRuns, NanIsFoundAndStopOnOverflowStops) {
    REQUIRE_TORCH();
    const fs::path dir = ts::test::tempDir("torch_nan");
    const std::string session = (dir / "s.tscope").string();
    auto check = launch(session, {"--overflow-check"}, {kPython, script("nan_script.py").string()});
    ASSERT_EQ(check.exitCode, 0) << check.err;
    EXPECT_GT(check.json["overflow_findings"].GetInt64(), 0);
    const int64_t first =
        count(session, "SELECT min(step) FROM overflow_findings WHERE run_id = 1");
    EXPECT_EQ(first, 3);
    EXPECT_GT(
        count(session, "SELECT count(*) FROM overflow_findings WHERE run_id = 1 AND op = 'Linear'"),
        0);
    auto stop =
        launch(session, {"--stop-on-overflow"}, {kPython, script("nan_script.py").string()});
    EXPECT_EQ(stop.exitCode, 3);
    EXPECT_STREQ(stop.json["status"].GetString(), "stopped");
    const std::string reason = stop.json["reason"].GetString();
    EXPECT_NE(reason.find("step 3"), std::string::npos) << reason;
    EXPECT_EQ(count(session, "SELECT count(DISTINCT step) FROM overflow_findings WHERE run_id = 2"),
              1);
}

TEST(TorchRuns, AnExceptionIsTheFailureReason) {
    REQUIRE_TORCH();
    const fs::path dir = ts::test::tempDir("torch_raise");
    const std::string session = (dir / "s.tscope").string();
    auto r = launch(session, {}, {kPython, script("raise_script.py").string()});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_STREQ(r.json["status"].GetString(), "failed");
    const std::string reason = r.json["reason"].GetString();
    EXPECT_EQ(reason.rfind("RuntimeError: ", 0), 0u) << reason;
    EXPECT_NE(reason.find("(exit code 1)"), std::string::npos);
    EXPECT_EQ(count(session, "SELECT count(*) FROM logs WHERE module = 'PYTHON' AND level = 3"), 1);
}

TEST(TorchRuns, MindSporeStandInLevelsScalarsAndCrashRecord) {
    // No torch needed: the stand-in prints MindSpore's formats honouring GLOG_v and
    // MS_SUBMODULE_LOG_v, as MindSpore does.
    if (ts::test::runProgram(kPython, {"-c", "pass"}).exitCode != 0)
        GTEST_SKIP() << "no /usr/bin/python3";
    const fs::path dir = ts::test::tempDir("mindspore_standin");
    const std::string session = (dir / "s.tscope").string();
    std::ofstream(dir / "rdr.json") << R"({"rdr": {"enable": true, "mode": 1}})";
    auto quiet =
        launch(session, {}, {kPython, script("mindspore_standin.py").string(), "--steps", "10"});
    ASSERT_EQ(quiet.exitCode, 0) << quiet.err;
    EXPECT_EQ(quiet.json["scalars"]["train/loss"].GetInt64(), 10);  // LossMonitor lines
    // Global steps across epochs of 5 steps: 1..10, not 1..5 twice.
    EXPECT_EQ(count(session, "SELECT max(step) FROM scalars WHERE run_id = 1"), 10);
    EXPECT_EQ(count(session,
                    "SELECT count(*) FROM logs WHERE run_id = 1 AND level = 1 AND module = 'ME'"),
              0);

    auto loud =
        launch(session,
               {"--log-level", "GLOBAL=INFO", "--log-level", "KERNEL=DEBUG", "--rdr",
                (dir / "rdr.json").string()},
               {kPython, script("mindspore_standin.py").string(), "--steps", "10", "--fail"});
    EXPECT_EQ(loud.exitCode, 1);
    EXPECT_STREQ(loud.json["status"].GetString(), "failed");
    const std::string reason = loud.json["reason"].GetString();
    EXPECT_EQ(reason.rfind("RuntimeError: mindspore/ccsrc/", 0), 0u) << reason;
    EXPECT_EQ(loud.json["environment"]["GLOG_v"].GetString(), std::string("1"));
    EXPECT_EQ(loud.json["environment"]["MS_SUBMODULE_LOG_v"].GetString(),
              std::string("{KERNEL:0}"));
    EXPECT_GT(count(session,
                    "SELECT count(*) FROM logs WHERE run_id = 2 AND level = 1 AND module = 'ME'"),
              0);
    ASSERT_EQ(loud.json["rdr"].Size(), 1u);
    EXPECT_EQ(count(session, "SELECT count(*) FROM rdr_records WHERE run_id = 2"), 1);
    auto rdr = runCli({"rdr", loud.json["rdr"][0].GetString(), "--json"});
    EXPECT_EQ(rdr.exitCode, 0) << rdr.out;
}
