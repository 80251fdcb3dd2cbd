// The run diff on small profiles (core/analysis/run_diff.h): classes and ranking, the noise
// band, name maps and fuzzy names, steps chosen on each side, the step split, and errors.
#include <gtest/gtest.h>

#include <cmath>

#include "core/analysis/diff/run_diff.h"
#include "core/analysis/diff/scalar_diff.h"
#include "tests/common/test_support.h"
#include "tests/diff/diff_fixture.h"

using namespace ts::analysis;
using ts::test::DiffProfileSpec;
using ts::test::writeDiffProfile;

namespace {

DiffSideSpec sideOf(const std::filesystem::path& p, int64_t source) {
    DiffSideSpec s;
    s.path = p.string();
    s.sourceId = source;
    return s;
}

const OpDiffRow* row(const RunDiff& d, const std::string& name) {
    for (const auto& r : d.ops)
        if (r.name == name) return &r;
    return nullptr;
}

std::vector<ts::test::DiffOp> baseOps() {
    return {{"Conv2D", 400}, {"BiasAdd", 50}, {"ReLU", 60}, {"MatMul", 300}, {"Softmax", 40}};
}

}  // namespace

TEST(RunDiff, SlowerAddedRemovedUnchangedRankedByChange) {
    const auto path = ts::test::tempDir("run_diff") / "s.tscope";
    DiffProfileSpec a;
    a.label = "a";
    a.ops = baseOps();
    a.kernels = true;
    DiffProfileSpec b = a;
    b.label = "b";
    b.ops[3].dur = 900;                                 // MatMul 3x slower
    b.ops.insert(b.ops.begin() + 2, {"Dropout", 100});  // a new op
    b.ops.erase(b.ops.end() - 1);                       // Softmax gone
    b.ops[1].dur = 51;                                  // BiasAdd: within the noise band
    const int64_t sa = writeDiffProfile(path, a), sb = writeDiffProfile(path, b);
    auto d = diffRuns(sideOf(path, sa), sideOf(path, sb), {});
    ASSERT_TRUE(d) << d.error();
    ASSERT_GE(d->ops.size(), 5u);
    EXPECT_EQ(d->ops[0].name, "MatMul");
    EXPECT_EQ(d->ops[0].change, OpChange::Slower);
    EXPECT_DOUBLE_EQ(d->ops[0].ratio, 3.0);
    EXPECT_DOUBLE_EQ(d->ops[0].deltaNs, 600.0);
    EXPECT_DOUBLE_EQ(d->ops[0].calls[0], 1.0);  // per step
    for (size_t i = 1; i < d->ops.size(); ++i)
        EXPECT_GE(std::fabs(d->ops[i - 1].deltaNs), std::fabs(d->ops[i].deltaNs));
    ASSERT_NE(row(*d, "Dropout"), nullptr);
    EXPECT_EQ(row(*d, "Dropout")->change, OpChange::Added);
    EXPECT_TRUE(std::isinf(row(*d, "Dropout")->ratio));
    ASSERT_NE(row(*d, "Softmax"), nullptr);
    EXPECT_EQ(row(*d, "Softmax")->change, OpChange::Removed);
    EXPECT_EQ(row(*d, "BiasAdd")->change, OpChange::Unchanged);
    EXPECT_EQ(row(*d, "Conv2D")->change, OpChange::Unchanged);
    // Kernels are ops of the device lane, compared the same way.
    ASSERT_NE(row(*d, "MatMul_kernel"), nullptr);
    EXPECT_EQ(row(*d, "MatMul_kernel")->change, OpChange::Slower);
    // Steps: 4 each, identical, so the band is the minimum.
    EXPECT_EQ(d->a.steps.size(), 4u);
    EXPECT_DOUBLE_EQ(d->noiseBand, kDiffMinNoise);
    EXPECT_GT(d->b.stepNs, d->a.stepNs);
    EXPECT_NE(d->explains.find("MatMul"), std::string::npos) << d->explains;
    EXPECT_EQ(d->splitExplains, "cpu_ops");

    // The alignment of one step: Dropout inserted, Softmax deleted, nothing else shifted.
    const auto& al = d->aligned;
    ASSERT_EQ(al.ops[0].size(), 10u);  // 5 host ops + 5 kernels
    ASSERT_EQ(al.ops[1].size(), 10u);
    EXPECT_EQ(al.pairs.size(), 8u);
    ASSERT_EQ(al.inserted.size(), 2u);
    EXPECT_EQ(al.names[al.ops[1][al.inserted[0]].name], "Dropout");
    EXPECT_EQ(al.names[al.ops[1][al.inserted[1]].name], "Dropout_kernel");
    ASSERT_EQ(al.deleted.size(), 2u);
    EXPECT_EQ(al.names[al.ops[0][al.deleted[0]].name], "Softmax");
    for (const auto& [i, j] : al.pairs) EXPECT_EQ(al.ops[0][i].name, al.ops[1][j].name);
    EXPECT_EQ(al.firstPairNamed("MatMul"), 3);
    EXPECT_EQ(al.firstPairNamed("nothing"), -1);
}

TEST(RunDiff, NoiseBandFollowsTheStepsSpread) {
    const auto path = ts::test::tempDir("run_diff_noise") / "s.tscope";
    DiffProfileSpec a;
    a.label = "a";
    a.steps = 6;
    a.ops = baseOps();
    // Step times vary by ~10% of the median: the band widens to 3 MAD / median.
    a.extraNs = {0, 100, 0, 100, 0, 100};
    DiffProfileSpec b = a;
    b.label = "b";
    b.ops[3].dur = 330;  // +10% MatMul: inside the wider band
    const int64_t sa = writeDiffProfile(path, a), sb = writeDiffProfile(path, b);
    auto d = diffRuns(sideOf(path, sa), sideOf(path, sb), {});
    ASSERT_TRUE(d) << d.error();
    EXPECT_GT(d->a.spread, 0.0);
    EXPECT_GT(d->noiseBand, kDiffMinNoise);
    EXPECT_EQ(row(*d, "MatMul")->change, OpChange::Unchanged);
}

TEST(RunDiff, NameMapAndFuzzyNumbering) {
    const auto path = ts::test::tempDir("run_diff_map") / "s.tscope";
    DiffProfileSpec a;
    a.label = "npu";
    a.ops = {{"Conv2D-op1", 400}, {"BiasAdd-op2", 50}, {"MatMulV2-op3", 300}, {"Cast-op4", 20}};
    DiffProfileSpec b;
    b.label = "gpu";
    b.ops = {{"aten::conv2d", 500}, {"aten::add", 50}, {"aten::mm", 300}, {"Cast-op9", 20}};
    const int64_t sa = writeDiffProfile(path, a), sb = writeDiffProfile(path, b);
    // Without a map nothing pairs but Cast (numbering ignored); it is one fuzzy row.
    auto plain = diffRuns(sideOf(path, sa), sideOf(path, sb), {});
    ASSERT_TRUE(plain) << plain.error();
    EXPECT_EQ(plain->aligned.pairs.size(), 1u);
    EXPECT_EQ(plain->aligned.fuzzyPairs, 1);
    const OpDiffRow* cast = row(*plain, "Cast-op#");
    ASSERT_NE(cast, nullptr);
    EXPECT_TRUE(cast->fuzzy);
    EXPECT_EQ(cast->change, OpChange::Unchanged);
    EXPECT_EQ(cast->namesA, std::vector<std::string>{"Cast-op4"});
    EXPECT_EQ(cast->namesB, std::vector<std::string>{"Cast-op9"});
    EXPECT_EQ(row(*plain, "Conv2D-op1")->change, OpChange::Removed);

    RunDiffOptions o;
    auto map = NameMap::parse(
        "^Conv2D-op\\d+$ -> aten::conv2d\n^BiasAdd-op\\d+$ -> aten::add\n"
        "^MatMulV2-op\\d+$ -> aten::mm\n");
    ASSERT_TRUE(map);
    o.map = map.value();
    auto mapped = diffRuns(sideOf(path, sa), sideOf(path, sb), o);
    ASSERT_TRUE(mapped) << mapped.error();
    EXPECT_EQ(mapped->aligned.pairs.size(), 4u);
    EXPECT_TRUE(mapped->aligned.inserted.empty());
    EXPECT_EQ(mapped->ops[0].name, "aten::conv2d");
    EXPECT_EQ(mapped->ops[0].change, OpChange::Slower);
    EXPECT_EQ(mapped->ops[0].namesA, std::vector<std::string>{"Conv2D-op1"});
    for (const auto& r : mapped->ops)
        EXPECT_TRUE(r.change == OpChange::Slower || r.change == OpChange::Unchanged) << r.name;
}

TEST(RunDiff, StepsOfOneProfileAndByShape) {
    const auto path = ts::test::tempDir("run_diff_steps") / "s.tscope";
    DiffProfileSpec a;
    a.label = "one";
    a.steps = 5;
    a.firstStep = 10;
    a.ops = baseOps();
    a.extraNs = {0, 0, 0, 5000, 0};  // step 13 is slow: idle at its end
    const int64_t sa = writeDiffProfile(path, a);
    DiffSideSpec x = sideOf(path, sa), y = x;
    x.step = 11;
    y.step = 13;
    RunDiffOptions o;
    o.by = DiffGroupBy::Shape;
    auto d = diffRuns(x, y, o);
    ASSERT_TRUE(d) << d.error();
    EXPECT_EQ(d->a.steps, std::vector<int64_t>{11});
    EXPECT_EQ(d->b.alignedStep, 13);
    EXPECT_EQ(d->splitExplains, "idle");
    EXPECT_EQ(d->ops[0].shapes, "[[8,8]]");
    for (const auto& r : d->ops) EXPECT_EQ(r.change, OpChange::Unchanged) << r.name;
    EXPECT_EQ(d->aligned.pairs.size(), 5u);

    y.step = 99;
    auto missing = diffRuns(x, y, {});
    ASSERT_FALSE(missing);
    EXPECT_NE(missing.error().find("B has no step 99 (steps 10-14)"), std::string::npos)
        << missing.error();
    auto same = diffRuns(sideOf(path, sa), sideOf(path, sa), {});
    ASSERT_FALSE(same);
    EXPECT_NE(same.error().find("same profile"), std::string::npos);
}

TEST(RunDiff, BadInputsAreErrors) {
    const auto dir = ts::test::tempDir("run_diff_bad");
    DiffSideSpec none;
    none.path = (dir / "missing.tscope").string();
    auto r = diffRuns(none, none, {});
    ASSERT_FALSE(r);
    EXPECT_EQ(r.error().rfind("A: ", 0), 0u) << r.error();
    // A session without a profile.
    const auto empty = dir / "empty.tscope";
    { auto st = ts::store::TraceStore::open(empty.string(), ts::store::TraceStore::Mode::Create); }
    DiffSideSpec e;
    e.path = empty.string();
    r = diffRuns(e, e, {});
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().find("no profile"), std::string::npos) << r.error();
    e.runId = 4;
    r = diffRuns(e, e, {});
    ASSERT_FALSE(r);
    EXPECT_NE(r.error().find("no run 4"), std::string::npos) << r.error();
}

TEST(RunDiff, ParseSide) {
    auto s = parseDiffSide("a/b.tscope:run=3");
    ASSERT_TRUE(s);
    EXPECT_EQ(s->path, "a/b.tscope");
    EXPECT_EQ(s->runId, 3);
    s = parseDiffSide("c:\\x.tscope:source=12");
    ASSERT_TRUE(s);
    EXPECT_EQ(s->path, "c:\\x.tscope");
    EXPECT_EQ(s->sourceId, 12);
    s = parseDiffSide("odd:name.tscope");
    ASSERT_TRUE(s);
    EXPECT_EQ(s->path, "odd:name.tscope");
    EXPECT_FALSE(s->runId);
    EXPECT_FALSE(parseDiffSide("x.tscope:run=abc"));
    EXPECT_FALSE(parseDiffSide(":source=1"));
}

TEST(RunDiff, ScalarDifferenceByStep) {
    ts::curves::ScalarSeries a, b;
    a.points = {{1, 10, 2.0}, {2, 20, 1.5}, {3, 30, 1.0}, {3, 31, 0.9}};
    b.points = {{3, 300, 1.2}, {2, 200, 1.0}, {4, 400, 0.5}};
    const auto d = differenceByStep(a, b);
    ASSERT_EQ(d.size(), 2u);
    EXPECT_EQ(d[0].step, 2);
    EXPECT_DOUBLE_EQ(d[0].value, -0.5);
    EXPECT_EQ(d[0].wallTimeNs, 200);
    EXPECT_EQ(d[1].step, 3);
    EXPECT_NEAR(d[1].value, 0.3, 1e-12);  // the last sample of step 3 in A
}

// Issue 26, item 15: an op made slower inside a record_function block is blamed on the
// block (what the user wrote), not on the op inside it; without a block, on the outermost op.
namespace {
int64_t writeNested(const std::filesystem::path& path, const std::string& label, int64_t mmDur,
                    bool annotated) {
    auto st = ts::store::TraceStore::open(path.string(), ts::store::TraceStore::Mode::Create);
    ts::store::TraceStore& s = *st.value();
    const int64_t source = s.beginSource(label, "chrome_json").value();
    {
        ts::store::StoreWriter w(s, source);
        const int64_t proc = w.addProcess("100", label);
        const int64_t track = w.addTrack("thread", proc, w.addThread(proc, "1", "main"), "main");
        const int64_t op = w.intern("cpu_op"), ua = w.intern("user_annotation");
        auto slice = [&](int64_t ts, int64_t dur, int depth, const char* name, int64_t cat) {
            w.addSlice({track, ts, dur, depth, w.intern(name), cat, 0, 0});
        };
        int64_t t = 1000;
        for (int k = 1; k <= 4; ++k) {
            const int64_t block = mmDur + 20;
            slice(t, block + 220, 0, ("ProfilerStep#" + std::to_string(k)).c_str(), ua);
            slice(t + 5, 200, 1, "aten::relu", op);
            const int depth = annotated ? 2 : 1;
            if (annotated) slice(t + 210, block, 1, "slow_block", ua);
            slice(t + 212, mmDur + 10, depth, "aten::linear", op);
            slice(t + 214, mmDur, depth + 1, "aten::mm", op);
            t += block + 300;
        }
        EXPECT_TRUE(w.flush().ok());
    }
    ts::store::SourceSummary sum;
    sum.status = ts::store::SourceStatus::Complete;
    EXPECT_TRUE(s.finishSource(source, sum).ok());
    return source;
}
}  // namespace

TEST(RunDiff, ChangeIsAttributedToTheEnclosingUserAnnotation) {
    const auto path = ts::test::tempDir("run_diff_attr") / "s.tscope";
    const int64_t a = writeNested(path, "a", 300, true), b = writeNested(path, "b", 900, true);
    auto d = diffRuns(sideOf(path, a), sideOf(path, b), {});
    ASSERT_TRUE(d) << d.error();
    EXPECT_EQ(d->ops[0].name, "aten::mm");
    EXPECT_EQ(d->attribution.name, "slow_block");
    EXPECT_TRUE(d->attribution.annotation);
    EXPECT_DOUBLE_EQ(d->attribution.deltaNs, 600.0);
    EXPECT_NE(d->explains.find("the change is in slow_block"), std::string::npos) << d->explains;
    // Without the block: the outermost op the user called.
    const auto path2 = ts::test::tempDir("run_diff_attr2") / "s.tscope";
    const int64_t a2 = writeNested(path2, "a", 300, false),
                  b2 = writeNested(path2, "b", 900, false);
    auto d2 = diffRuns(sideOf(path2, a2), sideOf(path2, b2), {});
    ASSERT_TRUE(d2) << d2.error();
    EXPECT_EQ(d2->attribution.name, "aten::linear");
    EXPECT_FALSE(d2->attribution.annotation);
}
