// Recording CUDA activity of a command run (`record`, `launch --record-cuda`): the variables
// the processes get, the collector's files imported as the run's traces, a CPU-only program
// recording nothing (said, not an error), and the CLI's answers on a machine without a GPU.
// Shell scripts stand in for CUDA programs: they write an activity file where the collector
// would, since nothing here can load the CUDA driver.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "core/common/cuda_paths.h"
#include "core/profiler/gpu/activity_format.h"
#include "core/run/command_run.h"
#include "core/run/launch_env.h"
#include "importers/run_artifacts.h"
#include "tests/gpu/gpu_activity_fixture.h"

namespace ts::test {
namespace {

namespace fs = std::filesystem;

TEST(RecordCuda, ProcessesGetTheInjectionVariables) {
    using namespace ts::run;
    LaunchSpec s;
    s.program = "python3";
    s.recordCuda = true;
    RunPaths p = runPathsFor("/data/exp.tscope", 3, "");
    EXPECT_EQ(p.cudaDir, "/data/exp-runs/run-3/cuda");
    auto none = buildProcessEnvironment(s, {}, p, 0, 0);
    ASSERT_FALSE(none.ok());
    EXPECT_NE(none.error().find("CUPTI collector"), std::string::npos);
    p.cuptiLibrary = "/opt/ts/lib/trainscope/libtrainscope_cupti.so";
    auto e = buildProcessEnvironment(s, {{"CUDA_VISIBLE_DEVICES", "1"}}, p, 0, 0);
    ASSERT_TRUE(e.ok()) << e.error();
    std::map<std::string, std::string> m(e->full.begin(), e->full.end());
    EXPECT_EQ(m["CUDA_INJECTION64_PATH"], p.cuptiLibrary);
    EXPECT_EQ(m["NVTX_INJECTION64_PATH"], p.cuptiLibrary);
    EXPECT_EQ(m["TRAINSCOPE_CUPTI_DIR"], "/data/exp-runs/run-3/cuda");
    EXPECT_EQ(m["CUDA_VISIBLE_DEVICES"], "1");
    // The spec keeps the switch (runs.config), so the run can be started again alike.
    auto back = launchSpecFromJson(launchSpecToJson(s));
    ASSERT_TRUE(back.ok());
    EXPECT_TRUE(back->recordCuda);
}

/// A minimal activity file, as the collector writes for a process with one kernel.
std::string fixtureFile(const fs::path& dir) {
    const std::string path = (dir / "fixture.bin").string();
    profiler::gpu::ActivityWriter w;
    std::string error;
    EXPECT_TRUE(w.open(path, &error)) << error;
    profiler::gpu::ClockRecord c;
    c.realtimeNs = 1'700'000'000'000'000'000;
    w.put(profiler::gpu::RecordType::Clock, c);
    profiler::gpu::KernelRecord k;
    k.start = 10;
    k.end = 30;
    k.stream = 7;
    k.nameId = w.str("_Z6kernelv");
    w.put(profiler::gpu::RecordType::Kernel, k);
    return path;
}

run::CommandRunOptions recordOptions(const fs::path& dir, const std::string& body) {
    const fs::path script = dir / "train.sh";
    std::ofstream(script) << body;
    run::CommandRunOptions o;
    o.sessionPath = (dir / "s.tscope").string();
    o.spec.program = "sh";
    o.spec.args = {script.string()};
    o.spec.cwd = dir.string();
    o.spec.recordCuda = true;
    o.spec.pythonHooks = false;
    o.cuptiLibrary = "/nonexistent/libtrainscope_cupti.so";  // only named in the environment
    o.importArtifact = importers::runArtifactImporter();
    o.settleNs = 100'000'000;
    return o;
}

TEST(RecordCuda, EachProcessFileBecomesATraceOfTheRun) {
    const fs::path dir = tempDir("record_run");
    const std::string fixture = fixtureFile(dir);
    run::CommandRun run(recordOptions(dir,
                                      "test -n \"$CUDA_INJECTION64_PATH\" || exit 3\n"
                                      "cp '" +
                                          fixture +
                                          "' \"$TRAINSCOPE_CUPTI_DIR/cuda-$$.tscupti\"\n"
                                          "echo trained\n"));
    run.start();
    const run::CommandResult& r = run.wait();
    EXPECT_EQ(r.status, ts::store::RunStatus::Completed) << r.reason;
    ASSERT_EQ(r.traces.size(), 1u);
    EXPECT_EQ(r.traces[0].status, ts::store::SourceStatus::Complete);
    EXPECT_EQ(r.traces[0].slices, 1);
    for (const std::string& w : r.warnings)
        EXPECT_EQ(w.find("no CUDA activity"), std::string::npos) << w;
    auto s =
        store::TraceStore::open((dir / "s.tscope").string(), store::TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(
        queryText(*s.value(), "SELECT kind FROM sources WHERE run_id = " + std::to_string(r.runId)),
        "cupti_activity");
    EXPECT_EQ(queryInt(*s.value(),
                       "SELECT count(*) FROM slices s JOIN strings n ON n.id = "
                       "s.name_id WHERE n.str = 'kernel()'"),
              1);
}

TEST(RecordCuda, ACpuOnlyProgramRecordsNothingAndSaysSo) {
    const fs::path dir = tempDir("record_cpu");
    run::CommandRun run(recordOptions(dir, "echo no cuda here\n"));
    run.start();
    const run::CommandResult& r = run.wait();
    EXPECT_EQ(r.status, ts::store::RunStatus::Completed) << r.reason;
    EXPECT_EQ(r.exitCode, 0);
    EXPECT_TRUE(r.traces.empty());
    bool said = false;
    for (const std::string& w : r.warnings) said |= w.find("no CUDA activity was recorded") == 0;
    EXPECT_TRUE(said);
}

TEST(RecordCuda, CliHelpAndNoDriverAnswers) {
    auto help = runCli({"record", "--help"});
    EXPECT_EQ(help.exitCode, 0) << help.err;
    EXPECT_NE(help.out.find("CUPTI collector"), std::string::npos) << help.out;
    EXPECT_NE(help.out.find("-- COMMAND"), std::string::npos) << help.out;
    auto launchHelp = runCli({"launch", "--help"});
    EXPECT_NE(launchHelp.out.find("--record-cuda"), std::string::npos);

    if (cuptiForRecording())
        GTEST_SKIP() << "a CUDA driver is present: the no-driver answer cannot be checked here";
    const std::string session = (tempDir("record_cli") / "s.tscope").string();
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"record", "-o", session, "--json", "--", "/bin/true"},
          std::vector<std::string>{"launch", "-o", session, "--record-cuda", "--json", "--",
                                   "/bin/true"}}) {
        auto r = runCli(args);
        EXPECT_EQ(r.exitCode, 1) << r.out << r.err;
        EXPECT_EQ(r.out.rfind("{\"error\":", 0), 0u) << r.out;
        EXPECT_NE(r.out.find("cannot record CUDA activity"), std::string::npos) << r.out;
        const bool why = r.out.find("no CUDA driver") != std::string::npos ||
                         r.out.find("was not built") != std::string::npos;
        EXPECT_TRUE(why) << r.out;
    }
    // Without --json: the same on stderr, no crash.
    auto plain = runCli({"record", "-o", session, "--", "/bin/true"});
    EXPECT_EQ(plain.exitCode, 1);
    EXPECT_NE(plain.err.find("cannot record CUDA activity"), std::string::npos) << plain.err;
}

}  // namespace
}  // namespace ts::test

namespace ts::test {
namespace {

/// On an NVIDIA GPU: `record` around the engine's own CUDA training records its kernels
/// (synthetic data: a GPU machine need not have Debian's Fashion-MNIST).
TEST(RecordCudaOnGpu, RecordsAProgramsKernels) {
    if (auto c = cuptiForRecording(); !c) GTEST_SKIP() << c.error();
    const std::string session = (tempDir("record_gpu") / "s.tscope").string();
    auto r = runCli({"record", "-o", session, "--json", "--", cliPath(), "train", "--device",
                     "cuda", "--dataset", "synthetic", "--limit-steps", "2", "--eval-limit", "64",
                     "-o", (tempDir("record_gpu_inner") / "inner.tscope").string()});
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    auto s = store::TraceStore::open(session, store::TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(s.ok());
    EXPECT_GT(queryInt(*s.value(), "SELECT count(*) FROM tracks WHERE kind = 'gpu_stream'"), 0);
    EXPECT_GT(queryInt(*s.value(),
                       "SELECT count(*) FROM slices s JOIN strings c ON c.id = "
                       "s.cat_id WHERE c.str = 'kernel'"),
              10);
}

}  // namespace
}  // namespace ts::test
