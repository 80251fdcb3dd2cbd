// Two engine runs that differ in one setting, profiled into one session, compared by the run
// diff: mixed precision (--amp O1 inserts Cast ops before every MatMul and CastGrad after the
// backward ones: "added", aligned without shifting a pair) and a batch 16x larger (every
// matrix product's input 16x larger; the structure unchanged).
#include <gtest/gtest.h>

#include <set>

#include "core/analysis/diff/run_diff.h"
#include "core/common/json_read.h"
#include "core/store/trace_store.h"
#include "tests/common/test_support.h"

using namespace ts::analysis;

namespace {

void train(const std::filesystem::path& session, const std::vector<std::string>& extra) {
    std::vector<std::string> args{
        "train", "--model",   "mlp",  "--dataset",      "synthetic", "--epochs",
        "1",     "--lr",      "0.01", "--seed",         "1",         "--threads",
        "1",     "--profile", "-o",   session.string(), "--json"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = ts::test::runCli(args);
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
}

DiffSideSpec run(const std::filesystem::path& session, int64_t id) {
    DiffSideSpec s;
    s.path = session.string();
    s.runId = id;
    return s;
}

}  // namespace

TEST(EnginePair, MixedPrecisionInsertsCastsWithoutShiftingPairs) {
    const auto session = ts::test::tempDir("engine_pair_amp") / "s.tscope";
    train(session, {"--limit-steps", "6", "--batch-size", "32", "--amp", "O0"});
    train(session, {"--limit-steps", "6", "--batch-size", "32", "--amp", "O1"});
    auto d = diffRuns(run(session, 1), run(session, 2), {});
    ASSERT_TRUE(d) << d.error();
    EXPECT_EQ(d->a.runId, 1);
    EXPECT_EQ(d->b.runId, 2);
    EXPECT_EQ(d->a.split, StepSplit::Phases);
    std::set<std::string> added;
    for (const auto& r : d->ops) {
        if (r.change == OpChange::Added) added.insert(r.name);
        EXPECT_NE(r.change, OpChange::Removed) << r.name;
    }
    EXPECT_EQ(added, (std::set<std::string>{"Cast", "CastGrad"}));
    // Every op of A pairs with the same op in B; only casts are inserted, nothing deleted.
    const auto& al = d->aligned;
    EXPECT_EQ(al.pairs.size(), al.ops[0].size());
    EXPECT_TRUE(al.deleted.empty());
    EXPECT_EQ(al.inserted.size(), al.ops[1].size() - al.ops[0].size());
    EXPECT_GT(al.inserted.size(), 0u);
    for (uint32_t j : al.inserted) {
        const std::string& n = al.names[al.ops[1][j].name];
        EXPECT_TRUE(n == "Cast" || n == "CastGrad") << n;
    }
    for (const auto& [i, j] : al.pairs) EXPECT_EQ(al.ops[0][i].name, al.ops[1][j].name);
}

// What a 16x larger batch changes, asserted on what the runs did, not on how long they took
// (issue 25, case 19: under a loaded sanitizer build MatMulGrad measured 1.33x slower and the
// test, which asked for 2x, failed): every matrix product's input has 16x the rows, the diff
// pairs the same ops in the same order. How the diff classes measured times is tested on
// recorded times (test_run_diff.cpp, test_kineto_pair.cpp).
TEST(EnginePair, LargerBatchMultipliesTheMatrixProductsWork) {
    const auto session = ts::test::tempDir("engine_pair_batch") / "s.tscope";
    train(session, {"--limit-steps", "10", "--batch-size", "16"});
    train(session, {"--limit-steps", "10", "--batch-size", "256", "--synthetic-samples", "4096"});
    auto d = diffRuns(run(session, 1), run(session, 2), {});
    ASSERT_TRUE(d) << d.error();
    ASSERT_FALSE(d->ops.empty());
    int matmuls = 0;
    for (const auto& r : d->ops) {
        matmuls += r.name == "MatMul" || r.name == "MatMulGrad";
        EXPECT_TRUE(r.change != OpChange::Added && r.change != OpChange::Removed) << r.name;
    }
    EXPECT_EQ(matmuls, 2);
    EXPECT_TRUE(d->aligned.inserted.empty());
    EXPECT_TRUE(d->aligned.deleted.empty());
    // The rows of each forward MatMul's first input: the batch, 16 in run 1 and 256 in run 2,
    // in as many calls.
    auto s = ts::store::TraceStore::open(session.string(), ts::store::TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(s) << s.error();
    for (const auto& [runId, batch] : {std::pair<int64_t, int64_t>{1, 16}, {2, 256}}) {
        auto q = s.value()->db().prepare(
            "SELECT a.json FROM slices sl JOIN strings n ON n.id = sl.name_id JOIN args a ON "
            "a.id = sl.arg_set_id JOIN tracks t ON t.id = sl.track_id JOIN runs r ON "
            "r.profile_source_id = t.source_id WHERE r.id = ? AND n.str = 'MatMul'");
        q.bind(1, runId);
        int calls = 0;
        while (q.step()) {
            rapidjson::Document a;
            ASSERT_TRUE(ts::json::parse(a, q.textView(0)).ok && a.IsObject());
            ASSERT_TRUE(a.HasMember("Input Dims") && a["Input Dims"].IsArray());
            const auto& first = a["Input Dims"][0];
            ASSERT_TRUE(first.IsArray() && first.Size() == 2);
            EXPECT_EQ(first[0].GetInt64(), batch) << "run " << runId;
            ++calls;
        }
        EXPECT_EQ(calls, 10 * 3) << "run " << runId << ": three Dense layers, ten steps";
    }
}
