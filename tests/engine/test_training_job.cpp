// TrainingJob, the one way the CLI and the studio start a run: what it records in the
// session (config, status, summary with per-class metrics, scalars, loss-scale overflows), the
// checkpoints it keeps and resumes from, the TensorBoard file, and the RunContext callbacks see.
#include <gtest/gtest.h>

#include <rapidjson/document.h>

#include "core/engine/model/models.h"
#include "core/engine/train/callbacks.h"
#include "core/run/training_job.h"
#include "core/store/trace_store.h"
#include "importers/tfevents/tfevents_importer.h"
#include "tests/common/test_support.h"

using namespace ts::engine;

namespace {

ts::run::JobOptions smallJob(const std::filesystem::path& dir) {
    ts::run::JobOptions o;
    o.train.model = "mlp";
    o.train.dataset = "synthetic";
    o.train.syntheticSamples = 256;
    o.train.batchSize = 32;
    o.train.epochs = 2;
    o.train.lr = 0.01;
    o.train.seed = 3;
    o.train.evalLimit = 64;
    o.sessionPath = (dir / "s.tscope").string();
    return o;
}

int64_t count(ts::store::TraceStore& st, const std::string& sql) {
    auto q = st.db().prepare(sql);
    EXPECT_TRUE(q.step()) << sql;
    return q.int64(0);
}

}  // namespace

TEST(TrainingJob, RecordsConfigStatusAndSummaryInTheSession) {
    const auto dir = ts::test::tempDir("job_record");
    auto o = smallJob(dir);
    o.train.evalEachEpoch = true;
    o.runName = "first";
    ts::run::TrainingJob job(o);
    ASSERT_TRUE(job.prepare().ok());
    const TrainResult r = job.run();
    ASSERT_EQ(r.status, "completed") << r.reason;
    EXPECT_GT(r.peakBytes, 0);

    auto st = ts::store::TraceStore::open(o.sessionPath, ts::store::TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(st.ok());
    auto runs = st.value()->runs();
    ASSERT_TRUE(runs.ok());
    ASSERT_EQ(runs.value().size(), 1u);
    const auto& run = runs.value()[0];
    EXPECT_EQ(run.name, "first");
    EXPECT_EQ(run.status, ts::store::RunStatus::Completed);
    auto cfg = TrainConfig::fromJson(run.config);
    ASSERT_TRUE(cfg.ok());
    EXPECT_EQ(cfg.value().model, "mlp");
    EXPECT_EQ(cfg.value().batchSize, 32);
    EXPECT_TRUE(cfg.value().evalEachEpoch);
    EXPECT_EQ(cfg.value().toJson(), o.train.toJson());

    auto q = st.value()->db().prepare("SELECT summary FROM runs WHERE id = ?");
    q.bind(1, run.id);
    ASSERT_TRUE(q.step());
    rapidjson::Document d;
    d.Parse(q.text(0).c_str());
    ASSERT_TRUE(d.IsObject());
    EXPECT_STREQ(d["status"].GetString(), "completed");
    ASSERT_EQ(d["per_class"]["f1"].Size(), 10u);
    ASSERT_EQ(d["confusion_matrix"].Size(), 10u);
    int64_t total = 0;
    for (const auto& row : d["confusion_matrix"].GetArray())
        for (const auto& v : row.GetArray()) total += v.GetInt64();
    EXPECT_EQ(total, 64);  // evalLimit samples, each counted once
    EXPECT_GT(d["memory"]["peak_bytes"].GetInt64(), 0);

    EXPECT_EQ(count(*st.value(),
                    "SELECT count(*) FROM scalars JOIN strings ON strings.id = tag_id "
                    "WHERE str = 'train/loss'"),
              r.steps);
    EXPECT_EQ(count(*st.value(),
                    "SELECT count(*) FROM scalars JOIN strings ON strings.id = tag_id "
                    "WHERE str = 'eval/accuracy'"),
              2);
}

TEST(TrainingJob, OverflowingStepsAreSkippedAndRecorded) {
    const auto dir = ts::test::tempDir("job_overflow");
    auto o = smallJob(dir);
    o.train.amp = "O2";
    o.train.lossScale = "static:1e9";  // every scaled gradient overflows float16
    o.train.limitSteps = 5;
    ts::run::TrainingJob job(o);
    ASSERT_TRUE(job.prepare().ok());
    const TrainResult r = job.run();
    ASSERT_EQ(r.status, "completed") << r.reason;
    EXPECT_EQ(r.overflowSteps, 5);
    // No update happened: the weights are still the seed's initial ones.
    auto fresh = makeMlp(o.train.seed);
    const auto trained = job.trainer().network()->parameters();
    const auto initial = fresh->parameters();
    ASSERT_EQ(trained.size(), initial.size());
    for (size_t i = 0; i < trained.size(); ++i)
        for (int64_t k = 0; k < trained[i].tensor.numel(); ++k)
            ASSERT_EQ(trained[i].tensor.f32()[k], initial[i].tensor.f32()[k]) << trained[i].name;

    auto st = ts::store::TraceStore::open(o.sessionPath, ts::store::TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(st.ok());
    EXPECT_EQ(
        count(*st.value(), "SELECT count(*) FROM overflow_findings WHERE origin = 'loss_scale'"),
        5);
}

TEST(TrainingJob, DynamicScaleHalvesOnOverflowAndTrainsOn) {
    const auto dir = ts::test::tempDir("job_dynamic");
    auto o = smallJob(dir);
    o.train.amp = "O2";
    o.train.lossScale = "dynamic:1e9";
    o.train.limitSteps = 40;
    ts::run::TrainingJob job(o);
    ASSERT_TRUE(job.prepare().ok());
    const TrainResult r = job.run();
    ASSERT_EQ(r.status, "completed") << r.reason;
    ASSERT_GE(r.overflowSteps, 1);
    EXPECT_LT(r.overflowSteps, 40);
    EXPECT_EQ(job.trainer().lossScale(), 1e9 / std::pow(2.0, static_cast<double>(r.overflowSteps)));
}

TEST(TrainingJob, StoppedRunSavesACheckpointThatResumes) {
    const auto dir = ts::test::tempDir("job_stop");
    auto o = smallJob(dir);
    o.train.epochs = 50;
    o.saveOnStop = true;
    struct StopAt : Callback {
        void stepEnd(RunContext& ctx) override {
            if (ctx.originalArgs().cur_step_num == 11)
                ctx.originalArgs().trainer->requestStop("user");
        }
    };
    ts::run::TrainingJob job(o);
    ASSERT_TRUE(job.prepare().ok());
    job.trainer().addCallback(std::make_shared<StopAt>());
    const TrainResult r = job.run();
    EXPECT_EQ(r.status, "stopped");
    EXPECT_EQ(r.steps, 11);
    ASSERT_EQ(job.checkpoints().size(), 1u);
    const std::string ckpt = job.checkpoints()[0];
    EXPECT_NE(ckpt.find("s-checkpoints/run-1/"), std::string::npos) << ckpt;
    EXPECT_TRUE(std::filesystem::exists(ckpt));

    auto o2 = smallJob(dir);
    o2.train.epochs = 2;
    o2.train.resumeFrom = ckpt;
    ts::run::TrainingJob resumed(o2);
    ASSERT_TRUE(resumed.prepare().ok());
    const TrainResult r2 = resumed.run();
    EXPECT_EQ(r2.status, "completed") << r2.reason;
    EXPECT_EQ(r2.steps, 16);  // 8 steps per epoch: continues at step 12
    EXPECT_EQ(resumed.runId(), 2);
}

TEST(TrainingJob, TensorBoardFileReadsBack) {
    const auto dir = ts::test::tempDir("job_tb");
    auto o = smallJob(dir);
    o.tensorboardDir = (dir / "tb").string();
    o.train.limitSteps = 6;
    ts::run::TrainingJob job(o);
    ASSERT_TRUE(job.prepare().ok());
    ASSERT_EQ(job.run().status, "completed");
    std::string file;
    for (const auto& e : std::filesystem::directory_iterator(dir / "tb")) file = e.path().string();
    ASSERT_NE(file.find("events.out.tfevents."), std::string::npos) << file;
    auto ev = ts::importers::tfevents::readEventFile(file);
    ASSERT_TRUE(ev.ok()) << ev.error();
    EXPECT_EQ(ev.value().badRecords, 0);
    int losses = 0;
    for (const auto& p : ev.value().scalars) losses += p.tag == "train/loss";
    EXPECT_EQ(losses, 6);
}

TEST(TrainingJob, CallbacksSeeTheRunContextFieldsOfTheSeeds) {
    const auto dir = ts::test::tempDir("job_ctx");
    auto o = smallJob(dir);
    o.train.limitSteps = 3;
    struct Check : Callback {
        int steps = 0;
        void begin(RunContext& ctx) override { ctx.originalArgs().user["init_time"] = 42; }
        void stepEnd(RunContext& ctx) override {
            const RunArgs& a = ctx.originalArgs();
            ++steps;
            EXPECT_EQ(a.epoch_num, 2);
            EXPECT_EQ(a.batch_num, 8);
            EXPECT_EQ(a.cur_epoch_num, 1);
            EXPECT_EQ(a.cur_step_num, steps);
            EXPECT_NE(a.optimizer, nullptr);
            EXPECT_NE(a.train_network, nullptr);
            EXPECT_NE(a.train_dataset, nullptr);
            EXPECT_EQ(a.loss_fn, "SoftmaxCrossEntropyWithLogits");
            EXPECT_EQ(a.parallel_mode, "stand_alone");
            EXPECT_GE(a.list_callback.size(), 3u);  // LossMonitor, SummaryCollector, this one
            EXPECT_GT(a.net_outputs, 0);
            EXPECT_EQ(a.user.at("init_time"), 42);
        }
    };
    auto check = std::make_shared<Check>();
    ts::run::TrainingJob job(o);
    ASSERT_TRUE(job.prepare().ok());
    job.trainer().addCallback(check);
    ASSERT_EQ(job.run().status, "completed");
    EXPECT_EQ(check->steps, 3);
}
