// Engine behaviour: memory pool, dispatcher + observers, data pipeline, metrics, checkpoints.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/engine/data/dataset.h"
#include "core/engine/model/models.h"
#include "core/engine/ops/ops.h"
#include "core/engine/tensor/dispatcher.h"
#include "core/engine/train/checkpoint.h"
#include "core/engine/train/metrics.h"
#include "tests/common/test_support.h"

using namespace ts::engine;

TEST(MemoryPool, ReusesBlocksAndTracksPeak) {
    MemoryPool pool(true);
    void* a = pool.allocate(1000);
    EXPECT_EQ(pool.bytesInUse(), 1024);
    pool.release(a, 1000);
    EXPECT_EQ(pool.bytesInUse(), 0);
    void* b = pool.allocate(1000);
    EXPECT_EQ(a, b);  // reused
    EXPECT_EQ(pool.peakBytes(), 1024);
    EXPECT_EQ(pool.reservedBytes(), 1024);
    pool.release(b, 1000);
    pool.setReuse(false);
    EXPECT_EQ(pool.reservedBytes(), 0);
    void* c = pool.allocate(64);
    pool.release(c, 64);
    EXPECT_EQ(pool.reservedBytes(), 0);
}

namespace {
struct Recorder : OpObserver {
    std::vector<std::string> names;
    std::vector<bool> backward;
    std::vector<int64_t> seq;
    void onOpBegin(OpEvent& ev) override {
        names.push_back(ev.scopeName);
        backward.push_back(ev.backward);
        seq.push_back(ev.seqId);
    }
};
struct EndAttrs : OpObserver {
    std::vector<std::string> seen;
    void onOpEnd(const OpEvent& ev) override { seen.emplace_back(ev.endAttrs); }
};
struct Loader : OpObserver {
    void onOpBegin(OpEvent& ev) override {
        if (ev.opType == "ReLU") (*ev.inputs)[0] = Tensor::full((*ev.inputs)[0].shape(), 2.f);
    }
};
}  // namespace

TEST(Dispatcher, ObserversSeeScopedForwardAndBackwardOps) {
    Dispatcher d;
    Recorder rec;
    d.addObserver(&rec);
    Dispatcher::install(&d);
    auto net = makeLeNet5(1);
    net->setName("_backbone");
    d.beginStep(1, 1);
    Tensor x = Tensor::full({2, 1, 28, 28}, 0.5f);
    Tensor labels = Tensor::zeros({2}, DType::Int32);
    Tensor loss;
    {
        ScopeGuard s("network-WithLossCell");
        loss = ops::softmaxCrossEntropy((*net)(x), labels);
    }
    loss.backward();
    Dispatcher::install(nullptr);
    ASSERT_FALSE(rec.names.empty());
    EXPECT_EQ(rec.names[0],
              "Default/network-WithLossCell/_backbone-LeNet5/conv1-Conv2d/Conv2D-op0");
    bool sawBackward = false;
    for (size_t i = 0; i < rec.names.size(); ++i) {
        EXPECT_EQ(rec.seq[i], static_cast<int64_t>(i));
        if (rec.backward[i]) {
            sawBackward = true;
            EXPECT_EQ(rec.names[i].rfind("Gradients/Default/network-WithLossCell/", 0), 0u)
                << rec.names[i];
        }
    }
    EXPECT_TRUE(sawBackward);
    EXPECT_GT(net->parameters()[0].tensor.grad().numel(), 0);
}

TEST(Dispatcher, LoadModeSubstitutesInputs) {
    Dispatcher d;
    Loader loader;
    d.addObserver(&loader);
    Dispatcher::install(&d);
    Tensor y = ops::relu(Tensor::full({3}, -1.f));
    Dispatcher::install(nullptr);
    EXPECT_FLOAT_EQ(y.item(0), 2.f);
}

// A kernel's end attributes reach onOpEnd of its own op only: the next op sees none, and one
// set while nothing observes is dropped rather than given to a later op.
TEST(Dispatcher, EndAttributesBelongToTheOpThatSetThem) {
    Dispatcher d;
    auto kernel = [&](const std::string& attrs) {
        return [&d, attrs](const std::vector<Tensor>& in) {
            if (!attrs.empty()) d.setEndAttrs(attrs);
            return in;
        };
    };
    const Tensor x = Tensor::full({2}, 1.f);
    d.run("Unobserved", {x}, kernel("\"comm_ns\":1"));
    EndAttrs obs;
    d.addObserver(&obs);
    d.run("AllReduce", {x}, kernel("\"comm_ns\":42"));
    d.run("Plain", {x}, kernel(""));
    ASSERT_EQ(obs.seen.size(), 2u);
    EXPECT_EQ(obs.seen[0], "\"comm_ns\":42");
    EXPECT_EQ(obs.seen[1], "");
}

TEST(Models, ParameterCounts) {
    auto mlp = makeMlp(1);
    EXPECT_EQ(mlp->parameterCount(true), 784 * 256 + 256 + 256 * 128 + 128 + 128 * 10 + 10);
    auto lenet = makeLeNet5(1);
    EXPECT_EQ(lenet->parameterCount(true),
              6 * 25 + 16 * 6 * 25 + 400 * 120 + 120 + 120 * 84 + 84 + 84 * 10 + 10);
    EXPECT_EQ(lenet->parameters()[0].name, "conv1.weight");
    EXPECT_NE(lenet->describe().find("fc3: Dense"), std::string::npos);
}

TEST(Dataset, ColumnAndLengthErrorsAreClear) {
    Tensor a = Tensor::zeros({4, 2});
    auto bad = ArrayDataset::create({"data", "label"}, {a});
    ASSERT_FALSE(bad.ok());
    EXPECT_EQ(bad.error(),
              "Invalid Python function, the 'source' of 'GeneratorDataset' should return same "
              "number of NumPy arrays as specified in column_names, the size of column_names is:2 "
              "and number of returned NumPy array is:1");
    auto len = ArrayDataset::create({"data"}, {a}, 10);
    ASSERT_FALSE(len.ok());
    EXPECT_EQ(len.error(),
              "The actual amount of data read from generator 4 is different from generator.len "
              "10, you should adjust generator.len to make them match");
    EXPECT_FALSE(ArrayDataset::create({"data"}, {a}, 3).ok());
    EXPECT_TRUE(ArrayDataset::create({"data"}, {a}, 4).ok());
    auto mismatch = ArrayDataset::create({"a", "b"}, {a, Tensor::zeros({3})});
    ASSERT_FALSE(mismatch.ok());
    EXPECT_NE(mismatch.error().find("disagree"), std::string::npos);
}

TEST(Dataset, GeneratorSourceGetsTheSeedsErrors) {
    // __getitem__ has 5 samples but __len__ says 7: MindSpore's message, with both counts.
    auto getItem = [](int64_t i, std::vector<Tensor>& out) {
        if (i >= 5) return false;
        out = {Tensor::full({2}, static_cast<float>(i)), Tensor::full({1}, 1.f)};
        return true;
    };
    auto shortData = ArrayDataset::fromGenerator({"data", "label"}, 7, getItem);
    ASSERT_FALSE(shortData.ok());
    EXPECT_EQ(shortData.error(),
              "The actual amount of data read from generator 5 is different from generator.len "
              "7, you should adjust generator.len to make them match");
    auto threeColumns = ArrayDataset::fromGenerator({"data", "label", "weight"}, 5, getItem);
    ASSERT_FALSE(threeColumns.ok());
    EXPECT_NE(threeColumns.error().find(
                  "the size of column_names is:3 and number of returned NumPy array is:2"),
              std::string::npos);
    auto ok = ArrayDataset::fromGenerator({"data", "label"}, 5, getItem);
    ASSERT_TRUE(ok.ok()) << ok.error();
    EXPECT_EQ(ok.value().size(), 5);
    EXPECT_EQ(ok.value().columns()[0].data.shape(), (Shape{5, 2}));
    EXPECT_FLOAT_EQ(ok.value().columns()[0].data.f32()[2 * 3], 3.f);
}

TEST(Dataset, ShuffleBatchShardDeterministic) {
    Tensor v = Tensor::empty({10, 1});
    for (int i = 0; i < 10; ++i) v.f32()[i] = static_cast<float>(i);
    auto make = [&] {
        DataPipeline p(ArrayDataset::create({"x"}, {v}).value());
        p.shuffle(5).batch(3, true);
        EXPECT_TRUE(p.shard(2, 1).ok());
        return p;
    };
    DataPipeline p1 = make(), p2 = make();
    EXPECT_EQ(p1.samplesPerEpoch(), 5);
    EXPECT_EQ(p1.batchesPerEpoch(), 1);
    p1.startEpoch(1);
    p2.startEpoch(1);
    std::vector<Tensor> b1, b2;
    ASSERT_TRUE(p1.next(b1));
    ASSERT_TRUE(p2.next(b2));
    for (int i = 0; i < 3; ++i) {
        EXPECT_EQ(b1[0].f32()[i], b2[0].f32()[i]);
        EXPECT_EQ(static_cast<int>(b1[0].f32()[i]) % 2, 1);  // shard 1 of 2: odd indices
    }
    EXPECT_FALSE(p1.next(b1));  // drop_remainder
    DataPipeline p3(ArrayDataset::create({"x"}, {v}).value());
    EXPECT_FALSE(p3.shard(2, 2).ok());
}

TEST(Dataset, IdxReaderRejectsGarbageAndReadsFashionMnist) {
    const auto dir = ts::test::tempDir("engine_idx");
    const std::string junk = (dir / "junk.gz").string();
    FILE* f = fopen(junk.c_str(), "wb");
    fputs("not idx", f);
    fclose(f);
    auto r = readIdx(junk, junk);
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("IDX"), std::string::npos);
    if (fashionMnistDir().empty()) GTEST_SKIP() << "dataset-fashion-mnist not installed";
    auto test = loadFashionMnist("test");
    ASSERT_TRUE(test.ok()) << test.error();
    EXPECT_EQ(test.value().size(), 10000);
    EXPECT_EQ(test.value().columns()[0].data.shape(), (Shape{10000, 1, 28, 28}));
}

TEST(Dataset, CsvReader) {
    const auto dir = ts::test::tempDir("engine_csv");
    const std::string path = (dir / "d.csv").string();
    FILE* f = fopen(path.c_str(), "w");
    fputs("a,b,label\n1,2,0\n3,4,1\n", f);
    fclose(f);
    auto ds = readCsv(path, "label");
    ASSERT_TRUE(ds.ok()) << ds.error();
    EXPECT_EQ(ds.value().columns()[0].data.shape(), (Shape{2, 2}));
    EXPECT_EQ(ds.value().columns()[1].data.i32()[1], 1);
    f = fopen(path.c_str(), "w");
    fputs("a,label\n1,x\n", f);
    fclose(f);
    EXPECT_FALSE(readCsv(path, "label").ok());
}

TEST(Metrics, ConfusionPrecisionRecallF1) {
    Tensor logits = Tensor::fromVector({4, 2}, {1, 0, 0, 1, 1, 0, 0, 1});  // predictions 0 1 0 1
    Tensor labels = Tensor::empty({4}, DType::Int32);
    labels.i32()[0] = 0, labels.i32()[1] = 1, labels.i32()[2] = 1, labels.i32()[3] = 1;
    auto ms = defaultMetrics(2);
    std::map<std::string, double> all;
    for (auto& m : ms) {
        m->clear();
        m->update(logits, labels, 0.5);
        for (auto& [k, v] : m->eval()) all[k] = v;
    }
    EXPECT_DOUBLE_EQ(all["accuracy"], 0.75);
    EXPECT_DOUBLE_EQ(all["precision/0"], 0.5);
    EXPECT_DOUBLE_EQ(all["recall/1"], 2.0 / 3.0);
    EXPECT_DOUBLE_EQ(all["loss"], 0.5);
    EXPECT_NEAR(all["f1"], (2 * 0.5 * 1 / 1.5 + 2 * 1 * (2.0 / 3) / (1 + 2.0 / 3)) / 2, 1e-12);
    ConfusionMatrix cm(2);
    cm.update(logits, labels, 0);
    EXPECT_EQ(cm.at(1, 0), 1);
    cm.clear();
    EXPECT_EQ(cm.total(), 0);
}

TEST(Checkpoint, RoundTripAndMismatchWarnings) {
    const auto dir = ts::test::tempDir("engine_ckpt");
    auto net = makeMlp(3);
    Sgd opt(net->parameters(), {0.9, false, 0});
    TrainState st;
    st.epoch = 2;
    st.step = 17;
    st.optimizer = "sgd";
    const std::string path = (dir / "a.ckpt").string();
    ASSERT_TRUE(writeCheckpoint(path, makeCheckpoint(*net, &opt, st)).ok());
    auto other = makeMlp(4);
    auto rep = loadCheckpoint(path, *other, nullptr);
    ASSERT_TRUE(rep.ok()) << rep.error();
    EXPECT_EQ(rep.value().loaded, 6);
    EXPECT_EQ(rep.value().state.step, 17);
    EXPECT_EQ(other->parameters()[0].tensor.item(5), net->parameters()[0].tensor.item(5));
    // A network whose shapes differ: warnings, no crash.
    auto lenet = makeLeNet5(1);
    auto rep2 = loadCheckpoint(path, *lenet, nullptr);
    ASSERT_TRUE(rep2.ok());
    bool shapeWarning = false, missing = false;
    for (const auto& w : rep2.value().warnings) {
        shapeWarning |= w.find("fc1.weight") != std::string::npos &&
                        w.find("in the network") != std::string::npos;
        missing |= w.find("conv1.weight: not in the checkpoint") != std::string::npos;
    }
    EXPECT_TRUE(shapeWarning);
    EXPECT_TRUE(missing);
    // Garbage is an error, not a crash.
    EXPECT_FALSE(decodeCheckpoint(std::string("\x0a\xff\xff\xff", 4)).ok());
}
