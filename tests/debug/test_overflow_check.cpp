// The overflow check: NaN/Inf counting, findings with op/seqid/tensor, the offending op
// dumped, stop at the first finding, loss-scale overflows in the same list, the session's
// overflow_findings table filled by a real run.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <cmath>
#include <limits>

#include "core/debug/dataset_stats.h"
#include "core/debug/nonfinite.h"
#include "core/debug/overflow_observer.h"
#include "core/debug/overflow_store.h"
#include "core/engine/ops/ops.h"
#include "core/engine/tensor/dispatcher.h"
#include "core/hdf5/h5_read.h"
#include "core/run/training_job.h"
#include "core/store/trace_store.h"
#include "tests/common/test_support.h"

namespace {

using namespace ts::engine;
namespace fs = std::filesystem;

struct Collect : ts::debug::OverflowSink {
    std::vector<ts::debug::OverflowRecord> rows;
    std::vector<std::pair<std::string, int64_t>> files;
    int flushes = 0;
    void add(const ts::debug::OverflowRecord& r) override { rows.push_back(r); }
    void flush() override { ++flushes; }
    void dumpFile(const std::string& p, int64_t step) override { files.emplace_back(p, step); }
};

TEST(NonFinite, CountsMatchClassification) {
    const float inf = std::numeric_limits<float>::infinity();
    std::vector<float> v(10000, 1.5f);
    v[0] = std::nanf("");
    v[17] = inf;
    v[4095] = -inf;
    v[4096] = -std::nanf("");
    v[9999] = inf;
    v[5000] = std::numeric_limits<float>::denorm_min();
    v[6000] = std::numeric_limits<float>::max();
    auto c = ts::debug::countNonFiniteF32(v.data(), v.size());
    EXPECT_EQ(c.nan, 2u);
    EXPECT_EQ(c.posinf, 2u);
    EXPECT_EQ(c.neginf, 1u);
    for (size_t n : {size_t{0}, size_t{1}, size_t{15}, size_t{16}, size_t{17}})
        EXPECT_EQ(ts::debug::countNonFiniteF32(v.data() + 1, n).total(), n > 16 ? 1u : 0u) << n;
    const uint16_t h[6] = {0x3c00, 0x7c00, 0xfc00,
                           0x7e00, 0x7bff, 0x0001};  // 1, +inf, -inf, nan, max, denorm
    auto hc = ts::debug::countNonFiniteF16(h, 6);
    EXPECT_EQ(hc.posinf, 1u);
    EXPECT_EQ(hc.neginf, 1u);
    EXPECT_EQ(hc.nan, 1u);
}

TEST(OverflowObserver, FindsDumpsAndStops) {
    auto dir = ts::test::tempDir("overflowobs");
    Dispatcher d;
    Dispatcher::install(&d);
    Collect sink;
    std::string stopReason;
    ts::debug::OverflowOptions opt;
    opt.stopOnFirst = true;
    opt.dumpDir = dir.string();
    ts::debug::OverflowObserver obs(opt, &sink, [&](const std::string& why) { stopReason = why; });
    d.addObserver(&obs);
    StepInfo step{1, 5, 5, 0, 1, false};
    d.beginStep(1, 5);
    obs.onStepBegin(step);
    Tensor a = Tensor::fromVector({2, 2}, {1, 2, 3, 4});
    Tensor b = Tensor::fromVector({2, 2}, {1, 1, 1, 1});
    Tensor ok = ops::add(a, b);  // Add/0: finite
    Tensor big = Tensor::fromVector({2, 2}, {3e38f, -3e38f, 1, 2});
    Tensor bad = ops::add(big, big);    // Add/1: +inf, -inf
    Tensor worse = ops::sub(bad, bad);  // Sub/0: inf - inf = nan (x2)
    obs.onStepEnd(step);
    Dispatcher::install(nullptr);

    ASSERT_EQ(sink.rows.size(), 2u);
    EXPECT_EQ(sink.rows[0].op, "Add");
    EXPECT_EQ(sink.rows[0].seqid, 1);
    EXPECT_EQ(sink.rows[0].tensor, "output/0");
    EXPECT_EQ(sink.rows[0].step, 5);
    EXPECT_EQ(sink.rows[0].posinf, 1u);
    EXPECT_EQ(sink.rows[0].neginf, 1u);
    EXPECT_EQ(sink.rows[0].origin, "op");
    EXPECT_EQ(sink.rows[1].op, "Sub");
    EXPECT_EQ(sink.rows[1].nan, 2u);
    EXPECT_NE(stopReason.find("Add/1"), std::string::npos) << stopReason;
    EXPECT_GE(sink.flushes, 1);
    EXPECT_EQ(obs.summary().findings, 2u);
    EXPECT_EQ(obs.summary().checkedTensors, 3u);
    // The offending ops' inputs and outputs were dumped under their seqids.
    ASSERT_EQ(sink.files.size(), 1u);
    EXPECT_EQ(sink.files[0].second, 5);
    auto f = ts::h5::File::open(sink.files[0].first);
    ASSERT_TRUE(f.ok()) << f.error();
    for (const char* p : {"Add/1/input/0", "Add/1/input/1", "Add/1/output/0", "Sub/0/output/0"})
        EXPECT_TRUE(f->datasetInfo(p).ok()) << p;
    EXPECT_FALSE(f->datasetInfo("Add/0/output/0").ok());  // the finite op is not dumped
    auto s = ts::debug::datasetStats(f.value(), sink.rows[0].datasetPath());
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(s->posinf, 1u);
}

TEST(OverflowObserver, LossScaleOverflowIsAFinding) {
    Collect sink;
    ts::debug::OverflowObserver obs({}, &sink);
    StepInfo step{1, 3, 3, 0, 32768, true};
    obs.onStepBegin(step);
    obs.onOverflow(step, 32768);
    obs.onStepEnd(step);
    ASSERT_EQ(sink.rows.size(), 1u);
    EXPECT_EQ(sink.rows[0].origin, "loss_scale");
    EXPECT_EQ(sink.rows[0].step, 3);
    EXPECT_EQ(sink.rows[0].datasetPath(), "");
    EXPECT_EQ(obs.summary().lossScaleSteps, 1u);
}

TEST(OverflowCheck, DivergingRunRecordsFindingsInTheSession) {
    auto dir = ts::test::tempDir("overflowrun");
    ts::run::JobOptions o;
    o.train.model = "mlp";
    o.train.dataset = "synthetic";
    o.train.syntheticSamples = 512;
    o.train.batchSize = 32;
    o.train.limitSteps = 15;
    o.train.lr = 50;  // diverges within a few steps
    o.train.evalAtEnd = false;
    o.sessionPath = (dir / "s.tscope").string();
    o.overflowCheck = true;
    ts::run::TrainingJob job(o);
    ASSERT_TRUE(job.prepare().ok());
    auto r = job.run();
    const std::string summary = job.summaryJson(r);
    EXPECT_NE(summary.find("\"overflow\":{"), std::string::npos) << summary;

    auto st = ts::store::TraceStore::open(o.sessionPath, ts::store::TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(st.ok()) << st.error();
    auto rows = ts::debug::readOverflowFindings(*st.value(), job.runId());
    ASSERT_TRUE(rows.ok()) << rows.error();
    ASSERT_FALSE(rows->empty()) << summary;
    const auto& first = rows->front();
    EXPECT_GT(first.step, 0);
    EXPECT_FALSE(first.op.empty());
    EXPECT_GT(first.nan + first.posinf + first.neginf, 0u);
    EXPECT_NE(first.scope.find(first.op), std::string::npos) << first.scope;
    // The first finding's tensors are in the overflow dump recorded for its step.
    auto files = ts::debug::readDumpFiles(*st.value(), job.runId());
    ASSERT_TRUE(files.ok());
    std::string dumpPath;
    for (const auto& f : files.value())
        if (f.step == first.step) dumpPath = f.path;
    ASSERT_FALSE(dumpPath.empty());
    auto f = ts::h5::File::open(dumpPath);
    ASSERT_TRUE(f.ok()) << f.error();
    auto s = ts::debug::datasetStats(f.value(), first.datasetPath());
    ASSERT_TRUE(s.ok()) << first.datasetPath() << ": " << s.error();
    EXPECT_EQ(s->nan, first.nan);
    EXPECT_EQ(s->posinf, first.posinf);
    EXPECT_EQ(s->neginf, first.neginf);
    EXPECT_TRUE(f->datasetInfo(first.op + "/" + std::to_string(first.seqid) + "/input/0").ok());

    // The CLI lists the same findings from the session, the first one first.
    auto cli = ts::test::runCli({"dump", "overflow", o.sessionPath, "--json"});
    ASSERT_EQ(cli.exitCode, 0) << cli.err;
    rapidjson::Document d;
    d.Parse(cli.out.c_str());
    ASSERT_TRUE(d.IsObject() && d.HasMember("findings")) << cli.out;
    EXPECT_EQ(d["findings"].Size(), rows->size());
    EXPECT_EQ(std::string(d["first"].GetString()), first.datasetPath());
    EXPECT_EQ(std::string(d["findings"][0]["dump_file"].GetString()), dumpPath);
    EXPECT_EQ(d["findings"][0]["step"].GetInt64(), first.step);
}

TEST(OverflowCheck, StopOnOverflowEndsTheRunEarly) {
    auto dir = ts::test::tempDir("overflowstop");
    ts::run::JobOptions o;
    o.train.model = "mlp";
    o.train.dataset = "synthetic";
    o.train.syntheticSamples = 512;
    o.train.batchSize = 32;
    o.train.limitSteps = 15;
    o.train.lr = 50;
    o.train.evalAtEnd = false;
    o.sessionPath = (dir / "s.tscope").string();
    o.stopOnOverflow = true;
    o.overflowCheck = true;
    ts::run::TrainingJob job(o);
    ASSERT_TRUE(job.prepare().ok());
    auto r = job.run();
    EXPECT_NE(r.status, "completed");
    EXPECT_LT(r.steps, 15);
}

}  // namespace
