// Run names by script and counter, renaming, and removing a junk run (issue 26, item 14).
#include <gtest/gtest.h>

#include "core/run/run_names.h"
#include "core/store/trace_store.h"
#include "tests/common/test_support.h"

namespace ts::run {
namespace {

LaunchSpec spec(const std::string& program, std::vector<std::string> args) {
    LaunchSpec s;
    s.program = program;
    s.args = std::move(args);
    return s;
}

TEST(RunNames, ScriptOfACommand) {
    EXPECT_EQ(scriptOf(spec("python3", {"-u", "/home/me/exp/train.py", "--lr", "0.1"})),
              "train.py");
    EXPECT_EQ(scriptOf(spec("/usr/bin/torchrun", {"--nproc_per_node", "2", "ddp.py"})), "ddp.py");
    EXPECT_EQ(scriptOf(spec("python3", {"-m", "torch.distributed.run", "--nproc", "2", "a.py"})),
              "a.py");
    EXPECT_EQ(scriptOf(spec("python3", {"-m", "mypkg.train", "--epochs", "3"})), "mypkg.train");
    EXPECT_EQ(scriptOf(spec("./run.sh", {})), "run.sh");
    EXPECT_EQ(scriptOf(spec("/opt/bin/trainer", {"--config", "c.yaml"})), "trainer");
}

TEST(RunNames, CounterRenameAndRemove) {
    const std::string path = (test::tempDir("runnames") / "s.tscope").string();
    auto opened = store::TraceStore::open(path, store::TraceStore::Mode::Create);
    ASSERT_TRUE(opened.ok()) << opened.error();
    store::TraceStore& s = *opened.value();
    EXPECT_EQ(nextRunName(s, "train.py").value(), "train.py #1");
    const int64_t a = s.beginRun(nextRunName(s, "train.py").value(), "{}", "command").value();
    const int64_t b = s.beginRun(nextRunName(s, "train.py").value(), "{}", "command").value();
    EXPECT_EQ(nextRunName(s, "train.py").value(), "train.py #3");
    EXPECT_EQ(nextRunName(s, "eval.py").value(), "eval.py #1");

    EXPECT_TRUE(renameRun(s, a, "baseline lr 0.1").ok());
    EXPECT_FALSE(renameRun(s, a, "  ").ok());
    EXPECT_FALSE(renameRun(s, 99, "x").ok());
    EXPECT_EQ(nextRunName(s, "train.py").value(), "train.py #3");  // #2 is still there

    // A run still recording is not removed; a failed one goes with what it recorded.
    EXPECT_FALSE(removeRun(s, b).ok());
    ASSERT_TRUE(s.finishRun(b, store::RunStatus::Failed, "program not found", "{}").ok());
    const int64_t src = s.beginSource("trace.json", "chrome_json").value();
    ASSERT_TRUE(s.setSourceRun(src, b).ok());
    ASSERT_TRUE(s.db()
                    .exec("INSERT INTO logs(run_id, level, message) VALUES(" + std::to_string(b) +
                          ", 3, 'No such file')")
                    .ok());
    ASSERT_TRUE(removeRun(s, b).ok());
    auto runs = s.runs().value();
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].name, "baseline lr 0.1");
    EXPECT_EQ(s.sources().value().size(), 0u);
    EXPECT_EQ(s.db().queryInt("SELECT count(*) FROM logs").value(), 0);
    EXPECT_FALSE(removeRun(s, b).ok());
}

}  // namespace
}  // namespace ts::run
