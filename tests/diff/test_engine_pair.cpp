// Two engine runs that differ in one setting, profiled into one session, compared by the run
// diff: mixed precision (--amp O1 inserts Cast ops before every MatMul and CastGrad after the
// backward ones: "added", aligned without shifting a pair) and a batch 16x larger (every
// matrix product slower; the structure unchanged).
#include <gtest/gtest.h>

#include <set>

#include "core/analysis/diff/run_diff.h"
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

TEST(EnginePair, LargerBatchMakesTheMatrixProductsSlower) {
    const auto session = ts::test::tempDir("engine_pair_batch") / "s.tscope";
    train(session, {"--limit-steps", "10", "--batch-size", "16"});
    train(session, {"--limit-steps", "10", "--batch-size", "256", "--synthetic-samples", "4096"});
    auto d = diffRuns(run(session, 1), run(session, 2), {});
    ASSERT_TRUE(d) << d.error();
    ASSERT_FALSE(d->ops.empty());
    // A batch 16 times larger: the matrix products are classed slower, by well over 2x. (Which
    // op ranks first depends on the build: where the element-wise ops are instrumented and
    // BLAS is not, the sanitizer build, ReLU's gradient grows most.)
    int matmuls = 0;
    for (const auto& r : d->ops) {
        if (r.name != "MatMul" && r.name != "MatMulGrad") continue;
        ++matmuls;
        EXPECT_EQ(r.change, OpChange::Slower) << r.name;
        EXPECT_GT(r.ratio, 2.0) << r.name;
    }
    EXPECT_EQ(matmuls, 2);
    EXPECT_EQ(d->ops[0].change, OpChange::Slower);
    EXPECT_GT(d->b.stepNs, d->a.stepNs);
    EXPECT_TRUE(d->splitExplains == "forward" || d->splitExplains == "backward")
        << d->splitExplains;
    for (const auto& r : d->ops)
        EXPECT_TRUE(r.change != OpChange::Added && r.change != OpChange::Removed) << r.name;
    EXPECT_TRUE(d->aligned.inserted.empty());
    EXPECT_TRUE(d->aligned.deleted.empty());
}
