// Dumps taken from the engine: layout, attributes and values read back by our reader, by
// h5py and by h5dump; dump.json filters; load mode feeding recorded inputs.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <fstream>

#include "core/debug/dataset_stats.h"
#include "core/debug/dump_config.h"
#include "core/debug/dump_scan.h"
#include "core/hdf5/h5_read.h"
#include "core/run/training_job.h"
#include "tests/common/test_support.h"

namespace {

namespace fs = std::filesystem;

ts::run::JobOptions smallRun(const fs::path& dir, uint64_t seed, const std::string& dumpJson) {
    ts::run::JobOptions o;
    o.train.model = "mlp";
    o.train.dataset = "synthetic";
    o.train.syntheticSamples = 128;
    o.train.batchSize = 16;
    o.train.limitSteps = 2;
    o.train.evalAtEnd = false;
    o.train.seed = seed;
    o.sessionPath = (dir / "s.tscope").string();
    o.dumpConfigJson = dumpJson;
    return o;
}

std::string runJob(ts::run::JobOptions o) {
    ts::run::TrainingJob job(std::move(o));
    EXPECT_TRUE(job.prepare().ok());
    auto r = job.run();
    EXPECT_EQ(r.status, "completed") << r.reason;
    for (const auto& w : r.warnings) ADD_FAILURE() << w;
    return job.summaryJson(r);
}

std::string python() {
    for (const char* cand : {"/usr/bin/python3", "python3"})
        if (std::system((std::string(cand) + " -c 'import h5py, numpy' >/dev/null 2>&1").c_str()) ==
            0)
            return cand;
    return {};
}

std::string slurp(const fs::path& p) {
    std::ifstream in(p);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(DumpObserver, EngineDumpHasLayoutAttributesAndOrder) {
    auto dir = ts::test::tempDir("dumpobs");
    const std::string cfg = "{\"dump_path\": \"" + (dir / "d").string() + "\", \"steps\": [2]}";
    runJob(smallRun(dir, 1, cfg));
    ASSERT_FALSE(fs::exists(dir / "d" / "step_1.h5"));  // step 1 not asked for
    const auto path = (dir / "d" / "step_2.h5").string();
    auto f = ts::h5::File::open(path);
    ASSERT_TRUE(f.ok()) << f.error();
    ts::debug::OrderSource order;
    auto ts_ = ts::debug::orderedTensors(f.value(), &order);
    ASSERT_TRUE(ts_.ok());
    EXPECT_EQ(order, ts::debug::OrderSource::Sequence);
    ASSERT_GT(ts_->size(), 20u);
    // Forward first (Reshape/MatMul...), backward ops (*Grad) later, each op's inputs first.
    EXPECT_EQ((*ts_)[0].path, "Reshape/0/input/0");
    bool sawGrad = false;
    for (const auto& t : ts_.value()) sawGrad |= t.op == "MatMulGrad";
    EXPECT_TRUE(sawGrad);
    auto attrs = f->attributes("MatMul/0/output/0");
    ASSERT_TRUE(attrs.ok());
    std::map<std::string, std::string> a;
    for (const auto& x : attrs.value()) a[x.name] = x.value;
    EXPECT_EQ(a["op_type"], "\"MatMul\"");
    EXPECT_NE(a["scope"].find("MatMul-op"), std::string::npos) << a["scope"];
    EXPECT_EQ(a["step"], "2");
    EXPECT_EQ(a["dtype"], "\"float32\"");
    EXPECT_EQ(a["direction"], "\"forward\"");
    EXPECT_TRUE(a.count("wall_time") && a.count("global_seq") && a.count("shape"));
    auto g = f->attributes("MatMulGrad/0/output/0");
    ASSERT_TRUE(g.ok());
    bool backward = false;
    for (const auto& x : g.value()) backward |= x.name == "direction" && x.value == "\"backward\"";
    EXPECT_TRUE(backward);
}

TEST(DumpObserver, FiltersModeListAndRegex) {
    auto dir = ts::test::tempDir("dumpfilter");
    const std::string cfg = "{\"dump\": {\"dump_path\": \"" + (dir / "run.h5").string() +
                            "\", \"file_per\": \"run\", \"dump_mode\": \"output\", "
                            "\"dump_list\": [\"MatMul\", \"ReLU\"], \"op_filter\": \"fc[12]\"}}";
    runJob(smallRun(dir, 1, cfg));
    auto f = ts::h5::File::open((dir / "run.h5").string());
    ASSERT_TRUE(f.ok()) << f.error();
    auto all = f->allDatasets();
    ASSERT_TRUE(all.ok());
    ASSERT_FALSE(all->empty());
    std::set<std::string> seqOfMatMul;
    for (const auto& p : all.value()) {
        std::string op, io;
        int64_t seq = 0;
        int slot = 0;
        ASSERT_TRUE(ts::debug::parseDumpPath(p, op, seq, io, slot)) << p;
        EXPECT_EQ(io, "output") << p;
        EXPECT_TRUE(op == "MatMul" || op == "ReLU") << p;
        if (op == "MatMul") seqOfMatMul.insert(std::to_string(seq));
    }
    // fc3's MatMul is filtered out, yet seqids keep counting every MatMul: two steps in one
    // file give MatMul/0,1 (step 1) and 3,4 (step 2).
    EXPECT_EQ(seqOfMatMul, (std::set<std::string>{"0", "1", "3", "4"}));
}

TEST(DumpObserver, H5pyAndH5dumpReadEngineDump) {
    auto dir = ts::test::tempDir("dumppy");
    const std::string cfg = "{\"dump_path\": \"" + (dir / "d").string() + "\", \"steps\": \"1\"}";
    runJob(smallRun(dir, 3, cfg));
    const auto path = (dir / "d" / "step_1.h5").string();
    ASSERT_TRUE(fs::exists(path));
    // Our reader's statistics for a dataset, to compare with numpy's.
    auto f = ts::h5::File::open(path);
    ASSERT_TRUE(f.ok());
    auto st = ts::debug::datasetStats(f.value(), "MatMul/1/output/0");
    ASSERT_TRUE(st.ok());

    if (std::system("h5dump --version >/dev/null 2>&1") == 0) {
        const std::string cmd =
            "h5dump -H " + path + " > " + (dir / "h5dump.txt").string() + " 2>&1";
        EXPECT_EQ(std::system(cmd.c_str()), 0);
        const std::string out = slurp(dir / "h5dump.txt");
        EXPECT_NE(out.find("GROUP \"MatMul\""), std::string::npos) << out.substr(0, 500);
        EXPECT_NE(out.find("DATASET \"0\""), std::string::npos);
        EXPECT_NE(out.find("ATTRIBUTE \"op_type\""), std::string::npos);
    } else {
        std::fprintf(stderr, "h5dump not installed: its half of the check is skipped\n");
    }

    const std::string py = python();
    if (py.empty()) GTEST_SKIP() << "python3 with h5py and numpy not available";
    const auto script = dir / "check.py";
    std::ofstream(script) << R"(import sys, h5py, numpy as np
f = h5py.File(sys.argv[1], 'r')
assert f.attrs['dump_format'] == 'op/seqid/{input,output}/i'
n = 0
def visit(name, obj):
    global n
    if not isinstance(obj, h5py.Dataset):
        return
    parts = name.split('/')
    assert len(parts) == 4 and parts[2] in ('input', 'output') and parts[1].isdigit(), name
    a = obj.attrs
    assert a['op_type'] == parts[0], (name, a['op_type'])
    assert int(a['step']) == 1
    assert a['dtype'] == str(obj.dtype), (name, a['dtype'], obj.dtype)
    assert list(a['shape']) == list(obj.shape), name
    assert a['direction'] in ('forward', 'backward')
    assert 'scope' in a and 'wall_time' in a and 'global_seq' in a
    n += 1
f.visititems(visit)
x = f['MatMul/1/output/0'][()].astype(np.float64)
print(n, x.size, repr(x.min()), repr(x.max()), repr(x.mean()), repr(x.std()))
)";
    const std::string cmd =
        py + " " + script.string() + " " + path + " > " + (dir / "py.txt").string() + " 2>&1";
    const int rc = std::system(cmd.c_str());
    const std::string out = slurp(dir / "py.txt");
    ASSERT_EQ(rc, 0) << out;
    size_t n = 0, count = 0;
    double mn = 0, mx = 0, mean = 0, sd = 0;
    ASSERT_EQ(std::sscanf(out.c_str(), "%zu %zu %lf %lf %lf %lf", &n, &count, &mn, &mx, &mean, &sd),
              6)
        << out;
    EXPECT_GT(n, 20u);
    EXPECT_EQ(count, st->count);
    EXPECT_DOUBLE_EQ(mn, st->min);
    EXPECT_DOUBLE_EQ(mx, st->max);
    EXPECT_NEAR(mean, st->mean, 1e-9 * std::max(1.0, std::fabs(mean)));
    EXPECT_NEAR(sd, st->std, 1e-9 * std::max(1.0, sd));
}

TEST(DumpObserver, LoadModeFeedsRecordedInputs) {
    auto dir = ts::test::tempDir("dumpload");
    auto cfg = [&](const std::string& name, const std::string& load) {
        std::string s = "{\"dump_path\": \"" + (dir / name).string() +
                        "\", \"file_per\": \"run\", \"steps\": [1]";
        if (!load.empty()) s += ", \"load_file_path\": \"" + (dir / load).string() + "\"";
        return s + "}";
    };
    runJob(smallRun(dir, 1, cfg("ref.h5", "")));
    const std::string loaded = runJob(smallRun(dir, 2, cfg("loaded.h5", "ref.h5")));
    EXPECT_NE(loaded.find("\"loaded_inputs\":"), std::string::npos);
    EXPECT_EQ(loaded.find("\"loaded_inputs\":0"), std::string::npos) << loaded;
    runJob(smallRun(dir, 2, cfg("live.h5", "")));
    auto ref = ts::h5::File::open((dir / "ref.h5").string());
    auto withLoad = ts::h5::File::open((dir / "loaded.h5").string());
    auto live = ts::h5::File::open((dir / "live.h5").string());
    ASSERT_TRUE(ref.ok() && withLoad.ok() && live.ok());
    // Another seed, but every op ran on the recorded inputs: every output agrees.
    auto same = ts::debug::compareDumps(withLoad.value(), ref.value(), {});
    ASSERT_TRUE(same.ok());
    EXPECT_FALSE(same->firstDivergent.has_value())
        << same->pairs[*same->firstDivergent].tensor.path;
    EXPECT_TRUE(same->unmatchedA.empty() && same->unmatchedB.empty());
    // Without load mode the other seed diverges from the first op on.
    auto diff = ts::debug::compareDumps(live.value(), ref.value(), {});
    ASSERT_TRUE(diff.ok());
    ASSERT_TRUE(diff->firstDivergent.has_value());
}

TEST(DumpObserver, BadConfigAndMissingLoadFileAreErrors) {
    auto dir = ts::test::tempDir("dumpbad");
    for (const std::string& cfg :
         {std::string("{\"dump_mode\": \"sideways\"}"), std::string("not json"),
          "{\"load_file_path\": \"" + (dir / "missing.h5").string() + "\"}"}) {
        ts::run::TrainingJob job(smallRun(dir, 1, cfg));
        auto s = job.prepare();
        EXPECT_FALSE(s.ok()) << cfg;
    }
}

}  // namespace
