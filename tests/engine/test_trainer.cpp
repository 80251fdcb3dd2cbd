// Trainer: determinism, resume continuing the same curve, callbacks, stop/pause from another
// thread, loss scaling, NaN stop, run recording and the CLI.
#include <gtest/gtest.h>

#include <rapidjson/document.h>

#include <thread>

#include "core/engine/train/callbacks.h"
#include "core/engine/train/trainer.h"
#include "core/store/trace_store.h"
#include "tests/common/test_support.h"

using namespace ts::engine;

namespace {
TrainConfig small(const std::string& model = "mlp") {
    TrainConfig c;
    c.model = model;
    c.dataset = "synthetic";
    c.syntheticSamples = 256;
    c.batchSize = 32;
    c.epochs = 2;
    c.lr = 0.01;
    c.seed = 7;
    c.evalLimit = 64;
    return c;
}

struct LossCurve : Callback {
    std::vector<double> losses;
    std::vector<std::string> events;
    void begin(RunContext&) override { events.push_back("begin"); }
    void epochBegin(RunContext&) override { events.push_back("epoch_begin"); }
    void epochEnd(RunContext&) override { events.push_back("epoch_end"); }
    void stepEnd(RunContext& ctx) override { losses.push_back(ctx.originalArgs().net_outputs); }
    void end(RunContext&) override { events.push_back("end"); }
};
}  // namespace

TEST(Trainer, SameSeedSameLossCurveBitForBit) {
    std::vector<double> curves[2];
    for (auto& curve : curves) {
        Trainer t(small("lenet5"));
        auto cb = std::make_shared<LossCurve>();
        t.addCallback(cb);
        auto r = t.run();
        ASSERT_EQ(r.status, "completed") << r.reason;
        curve = cb->losses;
        EXPECT_EQ(cb->events.front(), "begin");
        EXPECT_EQ(cb->events.back(), "end");
        EXPECT_EQ(r.steps, 16);
        EXPECT_TRUE(r.eval.count("accuracy"));
    }
    EXPECT_EQ(curves[0], curves[1]);
    EXPECT_LT(curves[0].back(), curves[0].front());
}

TEST(Trainer, ResumeContinuesTheSameCurve) {
    const auto dir = ts::test::tempDir("engine_resume");
    TrainConfig c = small();
    c.optimizer = "adam";
    c.lr = 0.001;
    Trainer full(c);
    auto fullCurve = std::make_shared<LossCurve>();
    full.addCallback(fullCurve);
    ASSERT_EQ(full.run().status, "completed");

    TrainConfig first = c;
    first.limitSteps = 11;  // stop mid-epoch 2
    Trainer a(first);
    auto ckpt = std::make_shared<ModelCheckpoint>(dir.string(), "r", 0, 0, 2);
    a.addCallback(ckpt);
    auto ra = a.run();
    ASSERT_EQ(ra.steps, 11);
    ASSERT_FALSE(ckpt->saved().empty()) << ckpt->lastError();

    TrainConfig second = c;
    second.resumeFrom = ckpt->saved().back();
    Trainer b(second);
    auto rest = std::make_shared<LossCurve>();
    b.addCallback(rest);
    auto rb = b.run();
    ASSERT_EQ(rb.status, "completed") << rb.reason;
    ASSERT_EQ(rest->losses.size(), 5u);
    for (size_t i = 0; i < rest->losses.size(); ++i)
        EXPECT_EQ(rest->losses[i], fullCurve->losses[11 + i]) << i;
}

TEST(Trainer, StopAndPauseFromAnotherThread) {
    TrainConfig c = small();
    c.epochs = 1000;
    Trainer t(c);
    std::thread worker([&] {
        while (t.progress().step < 3) std::this_thread::sleep_for(std::chrono::milliseconds(1));
        t.pause();
        // The pause takes effect between steps: wait until the training thread holds.
        for (int i = 0; i < 2000 && !t.progress().holding; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(5));
        EXPECT_TRUE(t.progress().holding);
        const int64_t at = t.progress().step;
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
        EXPECT_EQ(t.progress().step, at);
        EXPECT_TRUE(t.progress().paused);
        t.resume();
        t.requestStop("user pressed Stop");
    });
    auto r = t.run();
    worker.join();
    EXPECT_EQ(r.status, "stopped");
    EXPECT_EQ(r.reason, "user pressed Stop");
}

TEST(Trainer, NanLossStopsWithClearMessage) {
    TrainConfig c = small();
    c.lr = 1e12;
    c.momentum = 0.9;
    Trainer t(c);
    t.addCallback(std::make_shared<LossMonitor>());
    auto r = t.run();
    EXPECT_EQ(r.status, "failed");
    EXPECT_TRUE(r.reason.find("NaN") != std::string::npos ||
                r.reason.find("Inf") != std::string::npos)
        << r.reason;
}

TEST(Trainer, DynamicLossScaleSkipsOverflowedSteps) {
    struct Obs : OpObserver {
        int overflows = 0;
        double lastScale = 0;
        void onOverflow(const StepInfo&, double s) override {
            ++overflows;
            lastScale = s;
        }
    } obs;
    TrainConfig c = small();
    c.amp = "O2";
    c.lossScale = "dynamic";  // 65536 overflows float16 activations' gradients at first
    c.limitSteps = 12;
    Trainer t(c);
    t.dispatcher().addObserver(&obs);
    auto r = t.run();
    EXPECT_EQ(r.status, "completed") << r.reason;
    EXPECT_EQ(r.overflowSteps, obs.overflows);
    if (obs.overflows > 0) {
        EXPECT_LT(obs.lastScale, 65536.0);
    }
    EXPECT_LE(t.lossScale(), 65536.0);
}

TEST(Trainer, SummaryCollectorRecordsRunAndTensorBoardFile) {
    const auto dir = ts::test::tempDir("engine_summary");
    const std::string session = (dir / "s.tsdb").string();
    TrainConfig c = small();
    c.evalEachEpoch = true;
    auto rec = RunRecorder::open(session, "test run", c.toJson());
    ASSERT_TRUE(rec.ok()) << rec.error();
    Trainer t(c);
    auto sc = std::make_shared<SummaryCollector>(rec.value().get(), (dir / "tb").string());
    t.addCallback(sc);
    auto r = t.run();
    ASSERT_TRUE(rec.value()->finish(r.status, r.reason).ok());
    auto store = ts::store::TraceStore::open(session, ts::store::TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(store.ok());
    auto runs = store.value()->runs();
    ASSERT_TRUE(runs.ok());
    ASSERT_EQ(runs.value().size(), 1u);
    EXPECT_EQ(runs.value()[0].status, ts::store::RunStatus::Completed);
    auto q = store.value()->db().prepare(
        "SELECT count(*) FROM scalars JOIN strings ON strings.id = tag_id WHERE str = "
        "'train/loss'");
    ASSERT_TRUE(q.step());
    EXPECT_EQ(q.int64(0), 16);
    auto e = store.value()->db().prepare(
        "SELECT count(*) FROM scalars JOIN strings ON strings.id = tag_id WHERE str = "
        "'eval/accuracy'");
    ASSERT_TRUE(e.step());
    EXPECT_EQ(e.int64(0), 2);
    EXPECT_TRUE(std::filesystem::exists(sc->eventFile()));
}

TEST(TrainCli, JsonOutputHasTheIssueFields) {
    const auto dir = ts::test::tempDir("engine_cli");
    auto res = ts::test::runCli({"train",
                                 "--model",
                                 "mlp",
                                 "--dataset",
                                 "synthetic",
                                 "--epochs",
                                 "1",
                                 "--batch-size",
                                 "32",
                                 "--optimizer",
                                 "sgd",
                                 "--lr",
                                 "0.01",
                                 "--seed",
                                 "1",
                                 "-o",
                                 (dir / "s.tsdb").string(),
                                 "--limit-steps",
                                 "5",
                                 "--synthetic-samples",
                                 "256",
                                 "--checkpoint-dir",
                                 (dir / "ck").string(),
                                 "--json"});
    ASSERT_EQ(res.exitCode, 0) << res.out << res.err;
    rapidjson::Document d;
    d.Parse(res.out.c_str());
    ASSERT_TRUE(d.IsObject()) << res.out;
    EXPECT_STREQ(d["status"].GetString(), "completed");
    EXPECT_EQ(d["steps"].GetInt64(), 5);
    for (const char* k : {"reason", "epochs", "samples_per_s", "train_seconds", "final", "eval"})
        EXPECT_TRUE(d.HasMember(k)) << k;
    for (const char* k : {"accuracy", "loss", "precision", "recall", "f1"})
        EXPECT_TRUE(d["eval"][k].IsNumber()) << k;
    EXPECT_TRUE(d["final"]["loss"].IsNumber());
    EXPECT_FALSE(std::filesystem::is_empty(dir / "ck"));

    auto bad = ts::test::runCli({"train", "--model", "resnet", "--dataset", "synthetic", "-o",
                                 (dir / "s.tsdb").string(), "--json"});
    EXPECT_EQ(bad.exitCode, 1);
    rapidjson::Document b;
    b.Parse(bad.out.c_str());
    ASSERT_TRUE(b.IsObject()) << bad.out;
    EXPECT_STREQ(b["status"].GetString(), "failed");
    EXPECT_NE(std::string(b["reason"].GetString()).find("unknown model"), std::string::npos);

    // Resuming from a checkpoint the first run saved continues its step count.
    std::string ckpt;
    for (const auto& e : std::filesystem::directory_iterator(dir / "ck")) ckpt = e.path().string();
    auto resumed = ts::test::runCli({"train",
                                     "--model",
                                     "mlp",
                                     "--dataset",
                                     "synthetic",
                                     "--epochs",
                                     "1",
                                     "--batch-size",
                                     "32",
                                     "--lr",
                                     "0.01",
                                     "--seed",
                                     "1",
                                     "--synthetic-samples",
                                     "256",
                                     "-o",
                                     (dir / "s.tsdb").string(),
                                     "--resume",
                                     ckpt,
                                     "--json"});
    ASSERT_EQ(resumed.exitCode, 0) << resumed.out << resumed.err;
    rapidjson::Document r;
    r.Parse(resumed.out.c_str());
    ASSERT_TRUE(r.IsObject());
    EXPECT_EQ(r["steps"].GetInt64(), 8);   // 256 / 32 steps in the epoch, 5 done before
    EXPECT_EQ(r["run_id"].GetInt64(), 2);  // the run that could not start has no row
}
