// The RDR wired to the engine through TrainingJob: each way a run can fail (an op that
// throws, a failed allocation, a NaN loss from an absurd learning rate, a real SIGSEGV in a
// child process) leaves a complete export under <path>/rank_<id>/rdr/ that names the failing
// op; mode 1 keeps quiet on a normal end, mode 2 exports it; a bad config stops prepare().
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <csignal>
#include <filesystem>

#include <rapidjson/document.h>

#include "core/debug/rdr/rdr_reader.h"
#include "core/debug/rdr/rdr_recorder.h"
#include "core/log/logger.h"
#include "tests/rdr/rdr_engine_fixture.h"

namespace fs = std::filesystem;
namespace rt = ts::rdr::test;
using namespace ts;
using namespace ts::rdr;

namespace {

const std::string kNet = "Default/network-WithLossCell/_backbone-FailingNet";

// Every file is there, the reader finds no problem, and each part holds engine data.
RdrExport expectCompleteEngineExport(const fs::path& root) {
    const fs::path dir = root / "rank_0" / "rdr";
    for (const char* f :
         {kIndexFile, kGraphIrFile, kExecOrderFile, kMemoryFile, kLogFile, kRunStateFile})
        EXPECT_TRUE(fs::is_regular_file(dir / f)) << f;
    auto e = readRdrExport(root.string());
    EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error());
    if (!e.ok()) return {};
    EXPECT_TRUE(e->problems.empty()) << e->problems.front();
    EXPECT_EQ(e->files.size(), 5u);
    // Graph IR: cells, parameters with types, and the first step's ops with scopes.
    EXPECT_NE(e->graphIr.find("cell body: MLP"), std::string::npos) << e->graphIr;
    EXPECT_NE(e->graphIr.find("%para1_body.fc1.weight : <Float32, [256, 784]>"), std::string::npos);
    EXPECT_NE(e->graphIr.find("# scope: Default/network-WithLossCell/_backbone-FailingNet/"),
              std::string::npos);
    // Execution order: the current step and the one before, with shapes.
    EXPECT_FALSE(e->current.rows.empty());
    EXPECT_FALSE(e->previous.rows.empty());
    EXPECT_EQ(e->previous.step + 1, e->current.step);
    EXPECT_EQ(e->previous.rows.front().inputs, "[32,1,28,28]:Float32");  // the batch
    EXPECT_EQ(e->previous.rows.front().outputs, "[32,784]:Float32");     // flattened
    EXPECT_FALSE(e->previous.rows.front().outputs.empty());
    // Memory: named allocations, frees, pool totals.
    EXPECT_FALSE(e->allocations.empty());
    bool output = false, freed = false;
    for (const auto& a : e->allocations) {
        output = output || (a.tensor.find("-op") != std::string::npos &&
                            a.tensor.find(":output0") != std::string::npos);
        freed = freed || a.status == "freed";
    }
    EXPECT_TRUE(output);  // allocations named after the op whose output they hold
    EXPECT_TRUE(freed);
    EXPECT_GT(e->poolPeak, 0u);
    // Run state and log lines.
    EXPECT_NE(e->runConfig.find("\"model\":\"mlp\""), std::string::npos) << e->runConfig;
    EXPECT_TRUE(e->runState.count("loss"));
    EXPECT_TRUE(e->runState.count("loss_scale"));
    EXPECT_FALSE(e->logLines.empty());
    return std::move(e).value();
}

class RdrEngine : public ::testing::Test {
protected:
    void SetUp() override {
        // INFO so the engine's records reach the log tail; restored after.
        m_level = log::Logger::instance().globalLevel();
        log::Logger::instance().setGlobalLevel(log::Level::Info);
    }
    void TearDown() override { log::Logger::instance().setGlobalLevel(m_level); }

    // Runs a FailingNet job (`op` at forward call 3) with RDR mode `mode` under `root`.
    engine::TrainResult runFailing(const fs::path& dir, const fs::path& root, const std::string& op,
                                   int mode, std::string* exportDir = nullptr,
                                   int64_t poolCap = 0) {
        run::JobOptions o = rt::smallJob(dir);
        o.rdrConfigPath = rt::writeRdrConfig(dir, root, mode);
        run::TrainingJob job(o);
        EXPECT_TRUE(job.prepare());
        job.trainer().setNetwork(std::make_shared<rt::FailingNet>(op, 3));
        if (poolCap) job.trainer().memoryPool().setLimit(poolCap);
        engine::TrainResult r = job.run();
        if (exportDir) *exportDir = job.rdrExportDir();
        return r;
    }

    log::Level m_level = log::Level::Warning;
};

TEST_F(RdrEngine, OpExceptionExportsAndNamesTheOp) {
    const fs::path dir = ts::test::tempDir("rdr_eng_exc"), root = dir / "rdr_root";
    std::string exportDir;
    const auto r = runFailing(dir, root, "Explode", 1, &exportDir);
    EXPECT_EQ(r.status, "failed");
    EXPECT_NE(r.reason.find("Explode: injected failure"), std::string::npos) << r.reason;
    EXPECT_NE(r.reason.find("RDR export (op exception): " + (root / "rank_0/rdr").string()),
              std::string::npos)
        << r.reason;
    EXPECT_EQ(exportDir, (root / "rank_0/rdr").string());

    const RdrExport e = expectCompleteEngineExport(root);
    EXPECT_EQ(e.reason, "op_exception");
    EXPECT_TRUE(e.failingOp.starts_with(kNet + "/Explode-op")) << e.failingOp;
    EXPECT_NE(e.detail.find("Explode: injected failure"), std::string::npos) << e.detail;
    ASSERT_GE(e.failingRow(), 0);
    EXPECT_EQ(e.current.rows[static_cast<size_t>(e.failingRow())].op, "Explode");
    EXPECT_EQ(e.step, 3);
    EXPECT_EQ(e.current.step, 3);
    // The failure is in the log tail too.
    bool logged = false;
    for (const auto& l : e.logLines)
        logged = logged || l.find("injected failure") != std::string::npos;
    EXPECT_TRUE(logged);
}

TEST_F(RdrEngine, FailedAllocationExportsAndNamesTheOp) {
    const fs::path dir = ts::test::tempDir("rdr_eng_oom"), root = dir / "rdr_root";
    const auto r = runFailing(dir, root, "AllocHuge", 1, nullptr, int64_t{32} << 20);
    EXPECT_EQ(r.status, "failed");
    EXPECT_NE(r.reason.find("RDR export"), std::string::npos) << r.reason;

    const RdrExport e = expectCompleteEngineExport(root);
    EXPECT_EQ(e.reason, "alloc_failed");
    EXPECT_TRUE(e.failingOp.starts_with(kNet + "/AllocHuge-op")) << e.failingOp;
    EXPECT_NE(e.detail.find("67108864 bytes failed"), std::string::npos) << e.detail;
    ASSERT_GE(e.failingRow(), 0);
    ASSERT_FALSE(e.allocations.empty());
    const RdrAllocRow& failed = e.allocations.back();
    EXPECT_EQ(failed.status, "FAILED");
    EXPECT_EQ(failed.bytes, uint64_t{1} << 26);
    EXPECT_EQ(failed.tensor, e.failingOp + ":alloc0");
    EXPECT_EQ(e.poolCapacity, uint64_t{32} << 20);
}

TEST_F(RdrEngine, AbsurdLearningRateEndsWithNanAndAnExport) {
    const fs::path dir = ts::test::tempDir("rdr_eng_nan"), root = dir / "rdr_root";
    run::JobOptions o = rt::smallJob(dir);
    o.train.lr = 1e12;
    o.rdrConfigPath = rt::writeRdrConfig(dir, root, 1);
    run::TrainingJob job(o);
    const auto r = job.run();
    EXPECT_TRUE(r.status == "failed" || r.status == "stopped") << r.status;
    EXPECT_NE(r.reason.find("NaN"), std::string::npos) << r.reason;
    EXPECT_NE(r.reason.find("RDR export"), std::string::npos) << r.reason;

    auto e = readRdrExport(root.string());
    ASSERT_TRUE(e.ok()) << e.error();
    EXPECT_TRUE(e->problems.empty());
    EXPECT_EQ(e->reason, "nan_loss");
    EXPECT_TRUE(e->detail.find("loss is NaN") != std::string::npos ||
                e->detail.find("loss is Inf") != std::string::npos)
        << e->detail;
    // The failing op is a real op of the run whose output held NaN or Inf.
    ASSERT_FALSE(e->failingOp.empty());
    const int cur = e->failingRow(), prev = e->failingPreviousRow();
    ASSERT_TRUE(cur >= 0 || prev >= 0) << e->failingOp;
    EXPECT_FALSE(std::isfinite(std::stod(e->runState["loss"]))) << e->runState["loss"];
    // The summary the CLI prints names it too.
    rapidjson::Document d;
    d.Parse(job.summaryJson(r).c_str());
    ASSERT_TRUE(d.IsObject());
    EXPECT_STREQ(d["rdr_export"].GetString(), (root / "rank_0/rdr").string().c_str());
}

TEST_F(RdrEngine, ModeOneSkipsANormalEndModeTwoExportsIt) {
    for (int mode : {1, 2}) {
        const fs::path dir = ts::test::tempDir("rdr_eng_mode" + std::to_string(mode));
        const fs::path root = dir / "rdr_root";
        run::JobOptions o = rt::smallJob(dir);
        o.train.limitSteps = 4;
        o.rdrConfigPath = rt::writeRdrConfig(dir, root, mode);
        run::TrainingJob job(o);
        const auto r = job.run();
        ASSERT_EQ(r.status, "completed") << r.reason;
        if (mode == 1) {
            EXPECT_FALSE(fs::exists(root / "rank_0"));
            EXPECT_EQ(job.rdrExportDir(), "");
            continue;
        }
        auto e = readRdrExport(root.string());
        ASSERT_TRUE(e.ok()) << e.error();
        EXPECT_EQ(e->reason, "normal_end");
        EXPECT_EQ(e->step, 4);
        EXPECT_EQ(e->previous.step, 3);
        EXPECT_NE(r.reason.find("RDR export"), std::string::npos);
    }
}

TEST_F(RdrEngine, ConfigErrorsStopPrepareAndDisabledAttachesNothing) {
    const fs::path dir = ts::test::tempDir("rdr_eng_cfg");
    run::JobOptions o = rt::smallJob(dir);
    o.rdrConfigPath = (dir / "rdr.json").string();
    std::ofstream(o.rdrConfigPath) << R"({"rdr": {"enable": true, "path": "relative/dir"}})";
    run::TrainingJob bad(o);
    auto s = bad.prepare();
    ASSERT_FALSE(s);
    EXPECT_NE(s.error().find("absolute"), std::string::npos) << s.error();

    std::ofstream(o.rdrConfigPath) << R"({"rdr": {"enable": false, "path": "/tmp"}})";
    run::TrainingJob off(o);
    ASSERT_TRUE(off.prepare());
    EXPECT_FALSE(off.trainer().dispatcher().observed());
}

TEST_F(RdrEngine, RealSegfaultInAChildLeavesACompleteExport) {
    const fs::path dir = ts::test::tempDir("rdr_eng_segv"), root = dir / "rdr_root";
    const pid_t pid = fork();
    if (pid == 0) {
        rt::noCoreFile();
        runFailing(dir, root, "Segv", 1);
        _exit(3);  // the crash did not happen
    }
    int status = 0;
    waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status)) << "child exited with " << WEXITSTATUS(status);
    EXPECT_EQ(WTERMSIG(status), SIGSEGV);

    const RdrExport e = expectCompleteEngineExport(root);
    EXPECT_EQ(e.reason, "signal SIGSEGV");
    EXPECT_EQ(e.signal, SIGSEGV);
    EXPECT_TRUE(e.failingOp.starts_with(kNet + "/Segv-op")) << e.failingOp;
    ASSERT_GE(e.failingRow(), 0);
    EXPECT_EQ(static_cast<size_t>(e.failingRow()), e.current.rows.size() - 1);
    EXPECT_EQ(e.step, 3);
}

TEST_F(RdrEngine, CliTrainHonoursRdrFileAndEnvironment) {
    const fs::path dir = ts::test::tempDir("rdr_eng_cli"), root = dir / "from_file";
    const std::string cfg = rt::writeRdrConfig(dir, root, 1);
    const std::vector<std::string> base = {
        "train", "--model",      "mlp", "--dataset", "synthetic", "--synthetic-samples",
        "256",   "--batch-size", "32",  "--epochs",  "1",         "--lr",
        "1e12",  "--json"};
    auto args = base;
    args.insert(args.end(), {"-o", (dir / "a.tscope").string(), "--rdr", cfg});
    auto res = ts::test::runCli(args);
    EXPECT_EQ(res.exitCode, 1) << res.err;
    rapidjson::Document d;
    d.Parse(res.out.c_str());
    ASSERT_TRUE(d.IsObject()) << res.out;
    EXPECT_NE(std::string(d["reason"].GetString()).find("NaN"), std::string::npos);
    EXPECT_STREQ(d["rdr_export"].GetString(), (root / "rank_0/rdr").string().c_str());

    auto summary = ts::test::runCli({"rdr", root.string(), "--json"});
    ASSERT_EQ(summary.exitCode, 0) << summary.err;
    rapidjson::Document s;
    s.Parse(summary.out.c_str());
    ASSERT_TRUE(s.IsObject()) << summary.out;
    EXPECT_STREQ(s["reason"].GetString(), "nan_loss");
    EXPECT_NE(std::string(s["failing_op"].GetString()).find("Default/"), std::string::npos);
    EXPECT_EQ(s["files"].Size(), 5u);

    // MS_RDR_* alone (no file), RANK_ID 3: the export goes to rank_3.
    const fs::path envRoot = dir / "from_env";
    setenv("MS_RDR_ENABLE", "1", 1);
    setenv("MS_RDR_MODE", "2", 1);
    setenv("MS_RDR_PATH", envRoot.c_str(), 1);
    setenv("RANK_ID", "3", 1);
    args = base;
    args[12] = "0.01";  // the value of --lr: a healthy run
    args.insert(args.end(), {"-o", (dir / "b.tscope").string(), "--limit-steps", "3"});
    auto envRun = ts::test::runCli(args);
    for (const char* v : {"MS_RDR_ENABLE", "MS_RDR_MODE", "MS_RDR_PATH", "RANK_ID"}) unsetenv(v);
    EXPECT_EQ(envRun.exitCode, 0) << envRun.err;
    auto envExport = readRdrExport(envRoot.string());
    ASSERT_TRUE(envExport.ok()) << envExport.error();
    EXPECT_EQ(envExport->reason, "normal_end");
    EXPECT_EQ(envExport->rankId, 3);
    EXPECT_TRUE(fs::exists(envRoot / "rank_3/rdr/rdr_index.json"));
}

}  // namespace
