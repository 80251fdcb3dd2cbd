// ONNX export: every model the engine trains is exported, passes ONNX's checker with full
// shape inference (python3-onnx, run through tests/onnx/onnx_check.py), and the exported
// graph, evaluated by the script's numpy evaluator on a batch of another size than the
// trace's, gives the engine's outputs. The CLI path (a checkpoint from `train`) and its
// errors are checked too. The Python checks skip, saying why, without python3-onnx.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <cstdio>
#include <fstream>
#include <random>
#include <set>

#include "core/engine/model/models.h"
#include "core/engine/tensor/dispatcher.h"
#include "core/export/onnx/onnx_export.h"
#include "onnx/onnx.pb.h"
#include "tests/common/test_support.h"

using namespace ts::engine;
namespace fs = std::filesystem;

namespace {

const char* kPython = "/usr/bin/python3";

std::string checkScript() {
    return std::string(TRAINSCOPE_SOURCE_DIR) + "/tests/onnx/onnx_check.py";
}

/// Runs the check script; rc 77 = onnx not importable.
ts::test::CommandResult check(const std::vector<std::string>& args) {
    std::vector<std::string> a{checkScript()};
    a.insert(a.end(), args.begin(), args.end());
    return ts::test::runProgram(kPython, a);
}

bool pythonOnnxMissing(std::string* why) {
    const auto r = ts::test::runProgram(kPython, {"-c", "import onnx, numpy"});
    if (r.exitCode == 0) return false;
    *why =
        "python3-onnx (and numpy) not importable by /usr/bin/python3: apt-get install python3-onnx";
    return true;
}

void writeRaw(const fs::path& p, const Tensor& t) {
    std::ofstream out(p, std::ios::binary);
    out.write(static_cast<const char*>(t.raw()), static_cast<std::streamsize>(t.nbytes()));
}

/// Random batch-norm statistics and affine parameters, so evaluation mode is not the identity.
void randomizeNorms(Cell& net, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::uniform_real_distribution<float> u(0.f, 1.f);
    for (auto& p : net.parameters()) {
        const std::string& n = p.name;
        auto ends = [&](const char* s) {
            const std::string suf(s);
            return n.size() >= suf.size() && n.compare(n.size() - suf.size(), suf.size(), suf) == 0;
        };
        for (int64_t i = 0; i < p.tensor.numel(); ++i) {
            if (ends("moving_mean") || ends("beta")) p.tensor.f32()[i] = (u(rng) - 0.5f) * 0.2f;
            if (ends("moving_variance")) p.tensor.f32()[i] = 0.5f + u(rng);
            if (ends("gamma")) p.tensor.f32()[i] = 0.5f + u(rng);
        }
    }
}

rapidjson::Document lastJsonLine(const std::string& out) {
    rapidjson::Document d;
    const size_t start = out.rfind('{');
    d.Parse(start == std::string::npos ? "" : out.c_str() + start);
    return d;
}

}  // namespace

class OnnxModels : public ::testing::TestWithParam<std::string> {};

TEST_P(OnnxModels, ExportPassesCheckerAndMatchesTheEngine) {
    const std::string name = GetParam();
    const auto dir = ts::test::tempDir("onnx_" + name);
    auto net = makeModel(name, 7);
    ASSERT_TRUE(net);
    randomizeNorms(*net, 8);
    const bool images = modelTakesImages(name);
    const Shape traceShape = images ? Shape{2, 1, 28, 28} : Shape{2, 784};
    const fs::path file = dir / (name + ".onnx");
    auto rep = ts::onnx_export::exportModelToFile(*net, traceShape, file.string());
    ASSERT_TRUE(rep.ok()) << rep.error();
    EXPECT_EQ(rep->opset, 13);
    EXPECT_GT(rep->nodes, 5);
    EXPECT_EQ(rep->parameters, net->parameterCount(false));
    EXPECT_TRUE(net->training());  // put back after the trace

    // The file reads back as a ModelProto with the parameters under their checkpoint names.
    onnx::ModelProto m;
    {
        std::ifstream in(file, std::ios::binary);
        ASSERT_TRUE(m.ParseFromIstream(&in));
    }
    EXPECT_EQ(m.opset_import(0).version(), 13);
    EXPECT_EQ(m.graph().input(0).name(), "input");
    EXPECT_EQ(m.graph().output(0).name(), "output");
    EXPECT_EQ(m.graph().input(0).type().tensor_type().shape().dim(0).dim_param(), "batch_size");
    std::set<std::string> inits;
    for (const auto& i : m.graph().initializer()) inits.insert(i.name());
    for (const auto& p : net->parameters()) EXPECT_TRUE(inits.count(p.name)) << p.name;

    // The engine's outputs on a batch of 5 (the trace used 2: the batch is symbolic).
    const Shape evalShape = images ? Shape{5, 1, 28, 28} : Shape{5, 784};
    Tensor x = Tensor::empty(evalShape);
    std::mt19937_64 rng(9);
    std::uniform_real_distribution<float> u(0.f, 1.f);
    for (int64_t i = 0; i < x.numel(); ++i) x.f32()[i] = u(rng);
    net->setTraining(false);
    Tensor y;
    {
        NoGradGuard ng;
        y = (*net)(x);
    }
    ASSERT_EQ(y.shape(), (Shape{5, 10}));
    writeRaw(dir / "input.bin", x);
    writeRaw(dir / "expected.bin", y);

    std::string why;
    if (pythonOnnxMissing(&why)) GTEST_SKIP() << why;
    std::string shape;
    for (int64_t d : evalShape) shape += (shape.empty() ? "" : ",") + std::to_string(d);
    const auto r = check(
        {file.string(), (dir / "input.bin").string(), (dir / "expected.bin").string(), shape});
    std::printf("%s: %s", name.c_str(), r.out.c_str());
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    const auto d = lastJsonLine(r.out);
    ASSERT_TRUE(d.IsObject()) << r.out;
    EXPECT_STREQ(d["checker"].GetString(), "ok");
    ASSERT_TRUE(d["output_shape"].IsArray());
    EXPECT_STREQ(d["output_shape"][0].GetString(), "batch_size");
    EXPECT_EQ(d["output_shape"][1].GetInt(), 10);
    EXPECT_LT(d["max_abs_diff"].GetDouble(), 1e-4) << r.out;
    EXPECT_EQ(d["argmax_agree"].GetDouble(), 1.0);
}

INSTANTIATE_TEST_SUITE_P(Engine, OnnxModels,
                         ::testing::Values("mlp", "lenet5", "resnet8", "shufflenetv2"),
                         [](const auto& info) { return info.param; });

TEST(OnnxExport, CliExportsATrainedCheckpoint) {
    const auto dir = ts::test::tempDir("onnx_cli");
    const auto ckptDir = dir / "ckpt";
    auto t = ts::test::runCli({"train", "--model", "shufflenetv2", "--dataset", "synthetic",
                               "--synthetic-samples", "64", "--batch-size", "16", "--limit-steps",
                               "2", "--eval-limit", "16", "--checkpoint-dir", ckptDir.string(),
                               "-o", (dir / "s.tscope").string(), "--json"});
    ASSERT_EQ(t.exitCode, 0) << t.out << t.err;
    std::string ckpt;
    for (const auto& e : fs::directory_iterator(ckptDir))
        if (e.path().extension() == ".ckpt") ckpt = e.path().string();
    ASSERT_FALSE(ckpt.empty());
    const auto out = dir / "model.onnx";
    // No --model: the checkpoint's train state names it.
    auto r = ts::test::runCli({"export-onnx", ckpt, "-o", out.string(), "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    rapidjson::Document d;
    d.Parse(r.out.c_str());
    ASSERT_TRUE(d.IsObject()) << r.out;
    EXPECT_STREQ(d["model"].GetString(), "ShuffleNetV2");
    EXPECT_EQ(d["opset"].GetInt(), 13);
    EXPECT_STREQ(d["input"].GetString(), "[batch_size, 1, 28, 28]");
    bool hasDepthwise = false;
    for (const auto& op : d["op_types"].GetArray())
        hasDepthwise |= std::string(op.GetString()) == "Conv";
    EXPECT_TRUE(hasDepthwise);
    EXPECT_TRUE(fs::exists(out));

    // The wrong model is refused with the parameters that do not fit; opset 17 and a fixed
    // batch work.
    auto bad = ts::test::runCli(
        {"export-onnx", ckpt, "--model", "resnet8", "-o", (dir / "bad.onnx").string(), "--json"});
    EXPECT_EQ(bad.exitCode, 1);
    EXPECT_NE(bad.out.find("is not a resnet8 checkpoint: missing"), std::string::npos) << bad.out;
    EXPECT_FALSE(fs::exists(dir / "bad.onnx"));
    auto o17 = ts::test::runCli({"export-onnx", ckpt, "--model", "shufflenetv2", "--opset", "17",
                                 "--batch", "4", "-o", (dir / "m17.onnx").string()});
    ASSERT_EQ(o17.exitCode, 0) << o17.out << o17.err;
    EXPECT_NE(o17.out.find("input [4, 1, 28, 28]"), std::string::npos) << o17.out;
    auto missing =
        ts::test::runCli({"export-onnx", (dir / "none.ckpt").string(), "-o", out.string()});
    EXPECT_NE(missing.exitCode, 0);

    std::string why;
    if (pythonOnnxMissing(&why)) GTEST_SKIP() << why;
    for (const auto& f : {out, dir / "m17.onnx"}) {
        const auto c = check({f.string()});
        EXPECT_EQ(c.exitCode, 0) << c.out << c.err;
        EXPECT_NE(c.out.find("\"checker\": \"ok\""), std::string::npos) << c.out;
    }
}

TEST(OnnxExport, UnsupportedOpsAndTrainingModeAreErrors) {
    // A cell whose forward uses an op with no mapping is refused, naming the op.
    class Scaled : public Cell {
    public:
        Scaled() : Cell("Scaled") {}
        Tensor forward(const Tensor& x) override {
            return ops::dropout(ops::scale(x, 2.f), 0.f, false, 0);
        }
    } scaled;
    auto r = ts::onnx_export::exportModel(scaled, {2, 3}, {});
    ASSERT_FALSE(r.ok());
    EXPECT_NE(r.error().find("Mul of a constant"), std::string::npos) << r.error();
    auto net = makeModel("lenet5", 1);
    ts::onnx_export::ExportOptions o;
    o.opset = 11;
    EXPECT_FALSE(ts::onnx_export::exportModel(*net, {2, 1, 28, 28}, o).ok());
}
