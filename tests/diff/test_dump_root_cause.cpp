// Dumps: the root-cause rule apart from the first failing tensor, the share-within metrics and
// the combined rule, pairing across frameworks by alignment (scope layers, name maps), and
// several ranks' overflow order. Unit tests on the core pieces, then `trainscope-cli dump` on
// pairs written by tests/diff/make_dump_pair.py.
#include <gtest/gtest.h>

#include <rapidjson/document.h>

#include <cmath>
#include <cstdlib>
#include <fstream>

#include "core/debug/compare_rule.h"
#include "core/debug/dump_pairing.h"
#include "core/debug/rank_overflow.h"
#include "core/debug/root_cause.h"
#include "core/debug/tensor_compare.h"
#include "tests/common/test_support.h"

namespace fs = std::filesystem;
using namespace ts::debug;

TEST(DumpRootCause, RuleFindsTheOpWhoseInputsAgree) {
    // Units: 0 MatMul (in ok, out ok), 1 ReLU (in ok, out FAIL), 2 MatMul (in FAIL, out FAIL).
    const std::vector<PairVerdict> spread{{0, true, true},  {0, true, true},   {0, false, true},
                                          {1, true, true},  {1, false, false}, {2, true, false},
                                          {2, false, false}};
    RootCause rc = findRootCause(spread, {"MatMul/0", "ReLU/0", "MatMul/1"});
    ASSERT_TRUE(rc.unit);
    EXPECT_EQ(*rc.unit, 1u);
    EXPECT_EQ(rc.firstFailing, 4u);
    EXPECT_FALSE(rc.firstFailingIsInput);
    EXPECT_TRUE(rc.note.empty());
    // A difference that comes in as an input: the first failing tensor is not the cause, and
    // a later op with agreeing inputs and a failing output is an independent cause.
    const std::vector<PairVerdict> entry{
        {0, true, false}, {0, false, false}, {1, true, true}, {1, false, false}};
    rc = findRootCause(entry, {"MatMul/0", "Add/0"}, {"MatMul/0/input/1", "x", "y", "z"});
    ASSERT_TRUE(rc.unit);
    EXPECT_EQ(*rc.unit, 1u);
    EXPECT_TRUE(rc.firstFailingIsInput);
    rc = findRootCause({{0, true, false}, {0, false, false}, {1, true, false}, {1, false, false}},
                       {"MatMul/0", "Add/0"}, {"MatMul/0/input/1", "x", "y", "z"});
    EXPECT_FALSE(rc.unit);
    EXPECT_NE(rc.note.find("MatMul/0/input/1, is an input of MatMul/0"), std::string::npos)
        << rc.note;
    // Output-only dumps cannot name a root cause; all-passing dumps have none and no note.
    rc = findRootCause({{0, false, true}, {1, false, false}});
    EXPECT_FALSE(rc.unit);
    EXPECT_FALSE(rc.anyInputs);
    EXPECT_NE(rc.note.find("no inputs"), std::string::npos);
    rc = findRootCause({{0, true, true}, {0, false, true}});
    EXPECT_FALSE(rc.unit);
    EXPECT_FALSE(rc.firstFailing);
    EXPECT_TRUE(rc.note.empty());
    // Two independent causes: the first is the root cause, the second is listed.
    rc = findRootCause({{0, true, true},
                        {0, false, false},
                        {1, true, true},
                        {1, false, true},
                        {2, true, true},
                        {2, false, false}});
    ASSERT_TRUE(rc.unit);
    EXPECT_EQ(*rc.unit, 0u);
    EXPECT_EQ(rc.others, std::vector<size_t>{2});
}

TEST(DumpRootCause, SharesWithinAndTheCombinedRule) {
    CompareAccumulator acc;
    const std::vector<double> b{1, 2, 4, 8, 0, 100, NAN};
    const std::vector<double> a{1.0005, 2.006, 4,  8.03,
                                0,      100.2, NAN};  // 0.05 %, 0.3 %, 0, 0.375 %, 0, 0.2 %
    acc.add(a.data(), b.data(), a.size());
    const CompareFigures f = acc.result();
    EXPECT_EQ(f.finitePairs, 6u);
    EXPECT_EQ(f.within1e3, 3u);  // 1.0005, 4, 0
    EXPECT_EQ(f.within5e3, 6u);
    EXPECT_DOUBLE_EQ(f.share1e3(), 0.5);
    EXPECT_FALSE(ratiosPass(f, "float32", "float32"));
    EXPECT_TRUE(ratiosPass(f, "float16", "float32"));  // half precision: within 0.5 %
    EXPECT_TRUE(isHalfPrecision("float32", "bfloat16"));
    PassRule r;
    EXPECT_TRUE(parsePassRule("combined", r));
    EXPECT_EQ(r, PassRule::Combined);
    EXPECT_FALSE(parsePassRule("strict", r));
    EXPECT_STREQ(passRuleName(PassRule::Cosine), "cosine");
}

TEST(DumpRootCause, ScopeLayersAcrossFrameworks) {
    EXPECT_EQ(scopeLayer("Default/network-WithLossCell/_backbone-MLP/fc1-Dense/MatMul-op1"), "fc1");
    EXPECT_EQ(scopeLayer("Default/network-WithLossCell/_backbone-MLP/relu2-ReLU/ReLU-op6"),
              "relu2");
    EXPECT_EQ(scopeLayer("Gradients/Default/network-WithLossCell/_backbone-MLP/fc3-Dense/"
                         "BiasAdd-op8/BiasAddGrad-op1"),
              "grad:fc3");
    EXPECT_EQ(scopeLayer("Net/fc1"), "fc1");
    EXPECT_EQ(scopeLayer("Net/layers.3.attn"), "layers.3.attn");
    EXPECT_EQ(scopeLayer("Default/ApplyMomentum-op10"), "");
    EXPECT_EQ(scopeLayer("Net"), "");
    EXPECT_EQ(scopeLayer(""), "");
}

TEST(DumpRootCause, AlignmentPairsEngineOpsWithTorchModules) {
    auto t = [](std::string op, int64_t seq, std::string io, int slot, std::string scope) {
        return DumpTensorRef{op + "/" + std::to_string(seq) + "/" + io + "/" + std::to_string(slot),
                             op,
                             seq,
                             io,
                             slot,
                             scope};
    };
    const std::string e = "Default/net-WithLossCell/_backbone-MLP/";
    const std::vector<DumpTensorRef> engine{
        t("MatMul", 0, "input", 0, e + "fc1-Dense/MatMul-op1"),
        t("MatMul", 0, "input", 1, e + "fc1-Dense/MatMul-op1"),
        t("MatMul", 0, "output", 0, e + "fc1-Dense/MatMul-op1"),
        t("BiasAdd", 0, "input", 0, e + "fc1-Dense/BiasAdd-op2"),
        t("BiasAdd", 0, "output", 0, e + "fc1-Dense/BiasAdd-op2"),
        t("ReLU", 0, "input", 0, e + "relu1-ReLU/ReLU-op3"),
        t("ReLU", 0, "output", 0, e + "relu1-ReLU/ReLU-op3"),
        t("ApplyMomentum", 0, "output", 0, "Default/ApplyMomentum-op4")};
    const std::vector<DumpTensorRef> torch{
        t("Linear", 0, "input", 0, "Net/fc1"), t("Linear", 0, "output", 0, "Net/fc1"),
        t("ReLU", 0, "input", 0, "Net/relu1"), t("ReLU", 0, "output", 0, "Net/relu1")};
    DumpAlignOptions o;
    o.key = DumpKey::Scope;
    TensorPairing p = pairByAlignment(engine, torch, o);
    ASSERT_EQ(p.pairs.size(), 4u);
    EXPECT_EQ(p.pairs[0], (std::pair<size_t, size_t>{0, 0}));  // fc1's input: MatMul's
    EXPECT_EQ(p.pairs[1], (std::pair<size_t, size_t>{4, 1}));  // fc1's output: BiasAdd's
    EXPECT_EQ(p.pairs[2], (std::pair<size_t, size_t>{5, 2}));
    EXPECT_EQ(p.unit[0], p.unit[1]);
    EXPECT_EQ(p.unitNamesA[p.unit[0]], "fc1 (MatMul/0 … BiasAdd/0)");
    EXPECT_EQ(p.unitNamesB[p.unit[0]], "Linear/0");
    EXPECT_EQ(p.units, 2);
    EXPECT_EQ(p.unmatchedA, (std::vector<size_t>{1, 2, 3, 7}));
    EXPECT_TRUE(p.unmatchedB.empty());
    // By op name nothing but ReLU pairs; a name map on the scopes pairs the layers again.
    o.key = DumpKey::Op;
    EXPECT_EQ(pairByAlignment(engine, torch, o).units, 1);
    auto map = ts::analysis::NameMap::parse("/(fc\\d+)-Dense/ -> $1\n^Net/(fc\\d+)$ -> $1\n");
    ASSERT_TRUE(map);
    o.map = map.value();
    p = pairByAlignment(engine, torch, o);
    EXPECT_EQ(p.units, 2);
    EXPECT_EQ(p.pairs.size(), 4u);
    // By path: identical paths only.
    p = pairByPath(engine, engine);
    EXPECT_EQ(p.pairs.size(), engine.size());
    EXPECT_EQ(p.unitNamesA[p.unit[3]], "BiasAdd/0");
}

TEST(DumpRootCause, RanksOrderedByTimeOriginAndCollectives) {
    EXPECT_EQ(rankFromPath("/x/rank_3/overflow_step2.h5"), 3);
    EXPECT_EQ(rankFromPath("dump-rank12.h5"), 12);
    EXPECT_EQ(rankFromPath("rank 0"), 0);
    EXPECT_EQ(rankFromPath("dump.h5"), -1);
    std::vector<RankFirstFinding> f(4);
    f[0] = {0, "r0", true, "AllReduce/0/output/0", "AllReduce", 1, 10.5, 1, 0, 0, true};
    f[1] = {1, "r1", true, "AllReduce/0/output/0", "AllReduce", 1, 10.6, 1, 0, 0, true};
    f[2] = {2, "r2", true, "MatMul/3/output/0", "MatMul", 1, 10.2, 1, 0, 0, false};
    f[3].rank = 3;
    f[3].source = "r3";
    const RankOverflowOrder o = orderRankFindings(f);
    ASSERT_EQ(o.ranks.size(), 3u);
    EXPECT_EQ(o.ranks[0].rank, 2);
    ASSERT_TRUE(o.origin);
    EXPECT_EQ(*o.origin, 0u);
    EXPECT_EQ(o.verdicts[1], "reached it through AllReduce");
    ASSERT_EQ(o.clean.size(), 1u);
    EXPECT_EQ(o.clean[0].rank, 3);
    EXPECT_TRUE(o.timed);
    EXPECT_NE(o.summary.find("rank 2 saw NaN/Inf first"), std::string::npos) << o.summary;
    // A rank whose own op overflowed later is not "through a collective".
    f[1].collective = false, f[1].op = "Add", f[1].path = "Add/0/output/0";
    EXPECT_NE(orderRankFindings(f).verdicts[2].find("its own NaN/Inf in Add"), std::string::npos);
    EXPECT_EQ(orderRankFindings({}).summary, "no rank saw NaN/Inf");
}

namespace {

std::string pythonWithH5py() {
    for (const char* cand : {"/usr/bin/python3", "python3"})
        if (std::system((std::string(cand) + " -c 'import h5py, numpy' >/dev/null 2>&1").c_str()) ==
            0)
            return cand;
    return {};
}

/// Runs make_dump_pair.py MODE into a fresh folder; "" when python with h5py is missing.
fs::path makeDumps(const std::string& mode) {
    const std::string py = pythonWithH5py();
    if (py.empty()) return {};
    const fs::path dir = ts::test::tempDir("dump_pair_" + mode);
    const auto r = ts::test::runProgram(
        py, {TRAINSCOPE_SOURCE_DIR "/tests/diff/make_dump_pair.py", mode, dir.string()});
    EXPECT_EQ(r.exitCode, 0) << r.err;
    return dir;
}

rapidjson::Document cliJson(const std::vector<std::string>& args) {
    const auto r = ts::test::runCli(args);
    EXPECT_EQ(r.exitCode, 0) << r.err << r.out;
    rapidjson::Document d;
    d.Parse(r.out.c_str());
    EXPECT_FALSE(d.HasParseError()) << r.out;
    return d;
}

const rapidjson::Value* pairNamed(const rapidjson::Document& d, const std::string& path) {
    for (const auto& p : d["pairs"].GetArray())
        if (path == p["path"].GetString()) return &p;
    return nullptr;
}

}  // namespace

TEST(DumpRootCauseCli, DivergenceStartsAtOneOpAndSpreads) {
    const fs::path dir = makeDumps("spread");
    if (dir.empty()) GTEST_SKIP() << "python3 with h5py and numpy not available";
    auto d =
        cliJson({"dump", "compare", (dir / "a.h5").string(), (dir / "b.h5").string(), "--json"});
    EXPECT_STREQ(d["first_divergent"].GetString(), "ReLU/1/output/0");
    ASSERT_TRUE(d["root_cause"].IsObject());
    EXPECT_STREQ(d["root_cause"]["op"].GetString(), "ReLU/1");
    ASSERT_EQ(d["root_cause"]["inputs"].Size(), 1u);
    EXPECT_TRUE(d["root_cause"]["inputs"][0]["pass"].GetBool());
    EXPECT_FALSE(d["root_cause"]["outputs"][0]["pass"].GetBool());
    EXPECT_TRUE(d["root_cause_note"].IsNull());
    EXPECT_EQ(d["root_cause_others"].Size(), 0u);  // everything after it only passed it on
    EXPECT_STREQ(d["rule"].GetString(), "cosine");
    EXPECT_STREQ(d["pairing"].GetString(), "path");
    const auto* relu = pairNamed(d, "ReLU/1/output/0");
    ASSERT_NE(relu, nullptr);
    EXPECT_LT((*relu)["share_1e-3"].GetDouble(), 0.9);
    EXPECT_FALSE((*relu)["pass_ratios"].GetBool());
    EXPECT_TRUE((*pairNamed(d, "MatMul/0/output/0"))["pass_ratios"].GetBool());
    const auto r =
        ts::test::runCli({"dump", "compare", (dir / "a.h5").string(), (dir / "b.h5").string()});
    EXPECT_NE(r.out.find("root cause: ReLU/1"), std::string::npos) << r.out;
}

TEST(DumpRootCauseCli, DifferenceEnteringAsAnInputHasNoRootCause) {
    const fs::path dir = makeDumps("entry");
    if (dir.empty()) GTEST_SKIP() << "python3 with h5py and numpy not available";
    const std::string a = (dir / "a.h5").string(), b = (dir / "b.h5").string();
    // fc1's weights are 1.5x too large: cosine cannot see a scale, the shares can.
    auto d = cliJson({"dump", "compare", a, b, "--json"});
    const auto* w = pairNamed(d, "MatMul/0/input/1");
    ASSERT_NE(w, nullptr);
    EXPECT_TRUE((*w)["pass"].GetBool());
    EXPECT_FALSE((*w)["pass_ratios"].GetBool());
    d = cliJson({"dump", "compare", a, b, "--rule", "combined", "--json"});
    EXPECT_STREQ(d["rule"].GetString(), "combined");
    EXPECT_STREQ(d["first_divergent"].GetString(), "MatMul/0/input/1");
    EXPECT_TRUE(d["root_cause"].IsNull());
    EXPECT_TRUE(d["first_failing_is_input"].GetBool());
    EXPECT_NE(std::string(d["root_cause_note"].GetString()).find("is an input of MatMul/0"),
              std::string::npos);
    const auto r = ts::test::runCli({"dump", "compare", a, b, "--rule", "bogus", "--json"});
    EXPECT_EQ(r.exitCode, 1);
}

TEST(DumpRootCauseCli, EngineAgainstTorchNamesByAlignment) {
    const fs::path dir = makeDumps("frameworks");
    if (dir.empty()) GTEST_SKIP() << "python3 with h5py and numpy not available";
    const std::string a = (dir / "engine.h5").string(), b = (dir / "torch.h5").string();
    auto d = cliJson({"dump", "compare", a, b, "--align-by", "scope", "--json"});
    EXPECT_STREQ(d["pairing"].GetString(), "aligned");
    EXPECT_STREQ(d["first_divergent"].GetString(), "ReLU/1/output/0");
    ASSERT_TRUE(d["root_cause"].IsObject());
    EXPECT_STREQ(d["root_cause"]["op"].GetString(), "ReLU/1");
    EXPECT_STREQ(d["root_cause"]["op_b"].GetString(), "ReLU/1");
    const auto* fc1 = pairNamed(d, "BiasAdd/0/output/0");
    ASSERT_NE(fc1, nullptr);
    EXPECT_STREQ((*fc1)["path_b"].GetString(), "Linear/0/output/0");
    EXPECT_STREQ((*fc1)["op"].GetString(), "fc1 (MatMul/0 … BiasAdd/0)");
    EXPECT_TRUE((*fc1)["pass"].GetBool());
    EXPECT_EQ(d["units"].GetInt(), 6);  // fc1 relu1 fc2 relu2 fc3 softmax
    // The same pairing from a name map over the scopes.
    const fs::path map = dir / "map.txt";
    std::ofstream(map) << "# engine scopes and PyTorch module paths to layer names\n"
                          "/(fc\\d+|relu\\d+|softmax)-[A-Za-z]+/ -> $1\n"
                          "^Net/(.+)$ -> $1\n";
    d = cliJson({"dump", "compare", a, b, "--op-map", map.string(), "--json"});
    EXPECT_STREQ(d["pairing"].GetString(), "aligned");
    ASSERT_TRUE(d["root_cause"].IsObject());
    EXPECT_STREQ(d["root_cause"]["op"].GetString(), "ReLU/1");
    EXPECT_EQ(d["units"].GetInt(), 6);
    // By path (msaccucmp's rule) the two frameworks share only ReLU and Softmax paths.
    d = cliJson({"dump", "compare", a, b, "--json"});
    EXPECT_EQ(d["units"].GetInt(), 3);
    EXPECT_GT(d["unmatched"].Size(), 10u);
}

TEST(DumpRootCauseCli, RanksFirstFindingsAndCollectives) {
    const fs::path dir = makeDumps("ranks");
    if (dir.empty()) GTEST_SKIP() << "python3 with h5py and numpy not available";
    std::vector<std::string> args{"dump", "ranks"};
    for (int k = 0; k < 4; ++k)
        args.push_back((dir / ("rank_" + std::to_string(k) + ".h5")).string());
    args.push_back("--json");
    auto d = cliJson(args);
    EXPECT_EQ(d["origin"].GetInt(), 2);
    ASSERT_EQ(d["ranks"].Size(), 3u);
    EXPECT_EQ(d["ranks"][0]["rank"].GetInt(), 2);
    EXPECT_STREQ(d["ranks"][0]["path"].GetString(), "MatMul/3/output/0");
    for (int i : {1, 2}) {
        EXPECT_TRUE(d["ranks"][i]["collective"].GetBool());
        EXPECT_STREQ(d["ranks"][i]["verdict"].GetString(), "reached it through AllReduce");
        EXPECT_GT(d["ranks"][i]["time"].GetDouble(), d["ranks"][0]["time"].GetDouble());
    }
    ASSERT_EQ(d["clean"].Size(), 1u);
    EXPECT_EQ(d["clean"][0]["rank"].GetInt(), 3);
    EXPECT_TRUE(d["timed"].GetBool());
    const auto r = ts::test::runCli({"dump", "ranks", (dir / "missing.h5").string(), "--json"});
    EXPECT_EQ(r.exitCode, 1);
}

TEST(DumpRootCauseCli, CorpusDumpsRootCause) {
    TS_REQUIRE_CORPUS();
    auto d =
        cliJson({"dump", "compare", ts::test::corpusFile("generated/hdf5/dump_npu.h5").string(),
                 ts::test::corpusFile("generated/hdf5/dump_gpu.h5").string(), "--json"});
    EXPECT_STREQ(d["first_divergent"].GetString(), "Conv2d/1/output/0");
    ASSERT_TRUE(d["root_cause"].IsObject());
    EXPECT_STREQ(d["root_cause"]["op"].GetString(), "Conv2d/1");
    EXPECT_EQ(d["root_cause"]["inputs"].Size(), 3u);
}
