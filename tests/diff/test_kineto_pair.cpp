// A Kineto trace against the same trace with one op made 3x slower and one op inserted in
// every step (tests/diff/make_kineto_pair.py writes both): the slowed op ranks first, the
// inserted op is "added" and shifts no aligned pair after it, nothing else changes. Run on a
// synthetic trace always and on the corpus' ResNet-50 trace when the corpus is there; the
// JSON contract of `trainscope-cli diff` is checked on the synthetic pair.
#include <gtest/gtest.h>

#include <rapidjson/document.h>

#include <cmath>
#include <cstdlib>
#include <fstream>

#include "core/analysis/diff/run_diff.h"
#include "core/analysis/profile/profile_data.h"
#include "core/store/trace_store.h"
#include "tests/common/test_support.h"

namespace fs = std::filesystem;
using namespace ts::analysis;

namespace {

struct Pair {
    fs::path session;
    std::string slowed, inserted;
    int steps = 0;
};

std::string python() {
    for (const char* cand : {"/usr/bin/python3", "python3"})
        if (std::system((std::string(cand) + " -c 'import json' >/dev/null 2>&1").c_str()) == 0)
            return cand;
    return {};
}

/// Writes the pair with the script and imports both traces into one session (A = base).
Pair makePair(const std::string& tag, const std::vector<std::string>& how) {
    Pair p;
    const std::string py = python();
    if (py.empty()) return p;
    const fs::path dir = ts::test::tempDir(tag);
    std::vector<std::string> args{TRAINSCOPE_SOURCE_DIR "/tests/diff/make_kineto_pair.py"};
    args.insert(args.end(), how.begin(), how.end());
    args.push_back(dir.string());
    auto r = ts::test::runProgram(py, args);
    if (r.exitCode != 0) {
        ADD_FAILURE() << "make_kineto_pair.py: " << r.err;
        return p;
    }
    rapidjson::Document d;
    d.Parse(r.out.c_str());
    p.slowed = d["slowed"].GetString();
    p.inserted = d["inserted"].GetString();
    p.steps = d["steps"].GetInt();
    p.session = dir / "pair.tscope";
    r = ts::test::runCli({"import", (dir / "base.json").string(), (dir / "variant.json").string(),
                          "-o", p.session.string(), "--json"});
    if (r.exitCode != 0) ADD_FAILURE() << "import: " << r.err << r.out;
    return p;
}

/// The two profile sources of the session, A (base, older) then B.
std::pair<DiffSideSpec, DiffSideSpec> sides(const fs::path& session) {
    auto st = ts::store::TraceStore::open(session.string(), ts::store::TraceStore::Mode::ReadOnly);
    EXPECT_TRUE(st);
    auto list = listProfileSources(*st.value());
    EXPECT_TRUE(list);
    EXPECT_EQ(list->size(), 2u);
    DiffSideSpec a, b;
    a.path = b.path = session.string();
    a.sourceId = list->back().id;
    b.sourceId = list->front().id;
    return {a, b};
}

void checkPair(const Pair& p) {
    auto [a, b] = sides(p.session);
    auto d = diffRuns(a, b, {});
    ASSERT_TRUE(d) << d.error();
    ASSERT_FALSE(d->ops.empty());
    // The slowed op ranks first, 3x slower (its self time per step).
    EXPECT_EQ(d->ops[0].name, p.slowed);
    EXPECT_EQ(d->ops[0].change, OpChange::Slower);
    EXPECT_NEAR(d->ops[0].ratio, 3.0, 1e-6);
    EXPECT_EQ(d->ops[0].calls[0], d->ops[0].calls[1]);
    // The inserted op is added, once per step; every other op is unchanged.
    const OpDiffRow* added = nullptr;
    for (const auto& r : d->ops) {
        if (r.name == p.inserted) {
            added = &r;
            continue;
        }
        if (r.name == p.slowed) continue;
        EXPECT_EQ(r.change, OpChange::Unchanged) << r.name;
        EXPECT_EQ(r.calls[0], r.calls[1]) << r.name;
    }
    ASSERT_NE(added, nullptr);
    EXPECT_EQ(added->change, OpChange::Added);
    EXPECT_DOUBLE_EQ(added->calls[1], 1.0);
    EXPECT_GT(d->b.stepNs, d->a.stepNs);
    EXPECT_EQ(d->a.steps.size(), static_cast<size_t>(p.steps));
    // One step aligned: the inserted op is the only unpaired op and shifts no pair after it.
    const auto& al = d->aligned;
    ASSERT_EQ(al.inserted.size(), 1u);
    EXPECT_TRUE(al.deleted.empty());
    EXPECT_EQ(al.names[al.ops[1][al.inserted[0]].name], p.inserted);
    EXPECT_EQ(al.pairs.size(), al.ops[0].size());
    const uint32_t at = al.inserted[0];
    for (const auto& [i, j] : al.pairs) {
        EXPECT_EQ(al.ops[0][i].name, al.ops[1][j].name);
        EXPECT_EQ(j, i < at ? i : i + 1) << "pair (" << i << ", " << j << ") shifted";
    }
    EXPECT_EQ(al.fuzzyPairs, 0);
    EXPECT_NE(d->explains.find(p.slowed), std::string::npos) << d->explains;
}

}  // namespace

TEST(KinetoPair, SyntheticSlowedOpFirstInsertedOpAdded) {
    const Pair p = makePair("kineto_pair_synth", {"synthetic"});
    if (p.session.empty()) GTEST_SKIP() << "no python3";
    EXPECT_EQ(p.slowed, "aten::mse_loss");
    checkPair(p);
}

TEST(KinetoPair, CorpusResNet50SlowedOpFirstInsertedOpAdded) {
    TS_REQUIRE_CORPUS();
    const fs::path trace =
        ts::test::corpusFile("real/kineto/worker0.1623143089861.pt.trace.json.gz");
    if (!fs::exists(trace)) GTEST_SKIP() << "corpus trace missing: " << trace;
    const Pair p = makePair("kineto_pair_corpus", {"from", trace.string()});
    if (p.session.empty()) GTEST_SKIP() << "no python3";
    checkPair(p);
}

TEST(KinetoPair, CliJsonContract) {
    const Pair p = makePair("kineto_pair_cli", {"synthetic"});
    if (p.session.empty()) GTEST_SKIP() << "no python3";
    // One session named once: its two newest profiles, the older as A.
    auto r = ts::test::runCli({"diff", p.session.string(), "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    rapidjson::Document d;
    ASSERT_FALSE(d.Parse(r.out.c_str()).HasParseError()) << r.out;
    for (const char* k : {"a", "b", "step_ms", "ops", "split", "aligned", "explains"})
        EXPECT_TRUE(d.HasMember(k)) << k;
    EXPECT_EQ(d["a"]["label"].GetString(), std::string("base"));
    ASSERT_EQ(d["step_ms"].Size(), 2u);
    EXPECT_GT(d["step_ms"][1].GetDouble(), d["step_ms"][0].GetDouble());
    const auto& ops = d["ops"];
    ASSERT_GT(ops.Size(), 2u);
    for (const auto& o : ops.GetArray()) {
        for (const char* k : {"name", "class", "calls", "total_ns", "self_ns", "delta_ns", "ratio"})
            ASSERT_TRUE(o.HasMember(k)) << k;
        for (const char* k : {"calls", "total_ns", "self_ns"}) EXPECT_EQ(o[k].Size(), 2u) << k;
    }
    EXPECT_STREQ(ops[0]["name"].GetString(), p.slowed.c_str());
    EXPECT_STREQ(ops[0]["class"].GetString(), "slower");
    EXPECT_NEAR(ops[0]["ratio"].GetDouble(), 3.0, 1e-9);
    EXPECT_STREQ(ops[1]["name"].GetString(), p.inserted.c_str());
    EXPECT_STREQ(ops[1]["class"].GetString(), "added");
    EXPECT_TRUE(ops[1]["ratio"].IsNull());  // infinite: A has none
    for (rapidjson::SizeType i = 1; i < ops.Size(); ++i)
        EXPECT_GE(std::fabs(ops[i - 1]["delta_ns"].GetDouble()),
                  std::fabs(ops[i]["delta_ns"].GetDouble()));
    EXPECT_EQ(d["aligned"]["inserted"].GetInt(), 1);
    EXPECT_EQ(d["aligned"]["deleted"].GetInt(), 0);
    EXPECT_GT(d["aligned"]["pairs"].GetInt(), 10);
    ASSERT_EQ(d["aligned"]["changes"].Size(), 1u);
    EXPECT_STREQ(d["aligned"]["changes"][0]["inserted"][0].GetString(), p.inserted.c_str());
    EXPECT_TRUE(d["split"]["parts"].IsArray());
    EXPECT_STREQ(d["split"]["explains"].GetString(), "cpu_ops");

    // Sides named explicitly, --top, --by shape, a name map.
    const std::string s = p.session.string();
    r = ts::test::runCli(
        {"diff", s + ":source=1", s + ":source=2", "--top", "3", "--by", "shape", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    ASSERT_FALSE(d.Parse(r.out.c_str()).HasParseError());
    EXPECT_EQ(d["ops"].Size(), 3u);
    EXPECT_TRUE(d["ops"][0].HasMember("shapes"));
    EXPECT_STREQ(d["by"].GetString(), "shape");
    const fs::path map = p.session.parent_path() / "map.txt";
    std::ofstream(map) << "^aten::mse_loss$ -> MSELoss\n";
    r = ts::test::runCli({"diff", s, "--op-map", map.string(), "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    ASSERT_FALSE(d.Parse(r.out.c_str()).HasParseError());
    EXPECT_STREQ(d["ops"][0]["name"].GetString(), "MSELoss");
    // The same profile over two of its steps; text output.
    r = ts::test::runCli({"diff", s + ":source=2", "--base-step", "2", "--step", "3"});
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    EXPECT_NE(r.out.find("within the noise band"), std::string::npos) << r.out;

    // Errors: a step that does not exist, a missing op map, bad options, one profile only.
    r = ts::test::runCli({"diff", s, "--step", "99", "--json"});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.out.find("B has no step 99"), std::string::npos) << r.out;
    r = ts::test::runCli({"diff", s, "--op-map", "/nonexistent/map.txt", "--json"});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.out.find("cannot read op map"), std::string::npos) << r.out;
    r = ts::test::runCli({"diff", s, "--by", "color", "--json"});
    EXPECT_EQ(r.exitCode, 1);
    r = ts::test::runCli({"diff", s + ":source=1", "--json"});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.out.find("same profile"), std::string::npos) << r.out;
    r = ts::test::runCli({"diff", s + ":run=x", s, "--json"});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.out.find("needs an integer"), std::string::npos) << r.out;
}
