// Checkpoint inspector: names, shapes, dtypes, counts and the trainable rule on
// checkpoints written by the protobuf library; packed dims; damaged and foreign files;
// `trainscope-cli ckpt`.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <sstream>

#include "core/checkpoint_info/checkpoint_info.h"
#include "core/checkpoint_info/proto_wire_reader.h"
#include "tests/checkpoint_info/ckpt_writer.h"
#include "tests/common/test_support.h"

using namespace ts::checkpoint_info;

namespace {

ts::Result<CheckpointInfo> parse(const std::string& bytes) {
    std::istringstream in(bytes);
    return parseCheckpoint(in, bytes.size());
}

// Hand-encoded helpers for shapes the library does not write (packed dims, damage).
std::string varint(uint64_t v) {
    std::string s;
    do {
        uint8_t b = v & 0x7f;
        v >>= 7;
        if (v) b |= 0x80;
        s += static_cast<char>(b);
    } while (v);
    return s;
}
std::string lenField(int field, const std::string& body) {
    return varint(static_cast<uint64_t>(field) << 3 | 2) + varint(body.size()) + body;
}

}  // namespace

TEST(CheckpointInfo, ListsLenetWithCountsAndTrainableRule) {
    const std::string bytes = ts::test::protobufCheckpoint(ts::test::lenetTensors());
    ASSERT_FALSE(bytes.empty());
    auto info = parse(bytes);
    ASSERT_TRUE(info.ok()) << info.error();
    ASSERT_EQ(info->params.size(), 12u);
    const auto& conv1 = info->params[0];
    EXPECT_EQ(conv1.name, "conv1.weight");
    EXPECT_EQ(conv1.dims, (std::vector<int64_t>{6, 1, 5, 5}));
    EXPECT_EQ(conv1.dtype, "Float32");
    EXPECT_EQ(conv1.elements, 150);
    EXPECT_EQ(conv1.contentBytes, 600);
    EXPECT_TRUE(conv1.trainable);
    EXPECT_FALSE(info->params[8].trainable);  // moments.conv1.weight
    EXPECT_TRUE(info->params[9].dims.empty());
    EXPECT_EQ(info->params[9].elements, 1);  // scalar learning_rate
    EXPECT_FALSE(info->params[9].trainable);
    EXPECT_EQ(info->params[11].dtype, "Int32");
    // LeNet-5 (no conv bias): 150 + 2400 + 48000 + 120 + 10080 + 84 + 840 + 10 = 61684.
    EXPECT_EQ(info->trainableElements, 61684);
    EXPECT_EQ(info->totalElements, 61684 + 150 + 3);
    EXPECT_TRUE(info->warnings.empty());
    EXPECT_EQ(info->fileBytes, bytes.size());
}

TEST(CheckpointInfo, TrainableRule) {
    EXPECT_TRUE(isTrainableName("fc1.weight"));
    EXPECT_TRUE(isTrainableName("backbone.bn1.gamma"));
    EXPECT_TRUE(isTrainableName("stepper.weight"));  // only whole names / prefixes with . or _
    for (const char* n : {"moments.fc1.weight",
                          "moment1.fc1.weight",
                          "moment2.fc1.bias",
                          "accum.fc1.weight",
                          "adam_m.fc1.weight",
                          "adam_v.fc1.weight",
                          "beta1_power",
                          "beta2_power",
                          "global_step",
                          "learning_rate",
                          "momentum",
                          "epoch_num",
                          "step_num",
                          "cur_step_num",
                          "loss_scale",
                          "scale_sense",
                          "bn1.moving_mean",
                          "bn1.moving_variance",
                          "bn.running_mean",
                          "bn.running_var",
                          "bn.num_batches_tracked",
                          ""})
        EXPECT_FALSE(isTrainableName(n)) << n;
}

TEST(CheckpointInfo, ReadsPackedDimsAndWarnsOnSizeMismatch) {
    std::string tensor = lenField(1, varint(3) + varint(4)) + lenField(2, "Float16") +
                         lenField(3, std::string(24, 'x'));
    std::string bad =
        lenField(1, varint(2)) + lenField(2, "Float32") + lenField(3, std::string(5, 'x'));
    std::string odd = lenField(2, "Complex64") + lenField(3, "12345678");
    const std::string bytes = lenField(1, lenField(1, "w") + lenField(2, tensor)) +
                              lenField(1, lenField(1, "b") + lenField(2, bad)) +
                              lenField(1, lenField(1, "c") + lenField(2, odd));
    auto info = parse(bytes);
    ASSERT_TRUE(info.ok()) << info.error();
    ASSERT_EQ(info->params.size(), 3u);
    EXPECT_EQ(info->params[0].dims, (std::vector<int64_t>{3, 4}));
    EXPECT_EQ(info->params[0].elements, 12);
    ASSERT_EQ(info->warnings.size(), 2u);
    EXPECT_NE(info->warnings[0].find("'b': 5 content bytes"), std::string::npos)
        << info->warnings[0];
    EXPECT_NE(info->warnings[1].find("unknown dtype 'Complex64'"), std::string::npos);
    EXPECT_EQ(dtypeSize("float16"), 2);
    EXPECT_EQ(dtypeSize("UInt8"), 1);
    EXPECT_EQ(dtypeSize("Int64"), 8);
}

TEST(CheckpointInfo, SkipsOtherTopLevelFields) {
    // The engine appends its train state as field 15; MindSpore readers ignore it, so do we.
    const std::string bytes = ts::test::protobufCheckpoint(ts::test::lenetTensors()) +
                              lenField(15, lenField(1, "sgd") + varint(2 << 3) + varint(7));
    auto info = parse(bytes);
    ASSERT_TRUE(info.ok()) << info.error();
    EXPECT_EQ(info->params.size(), 12u);
    auto onlyState = parse(lenField(15, "x"));
    ASSERT_FALSE(onlyState.ok());
    EXPECT_NE(onlyState.error().find("no tensor entries"), std::string::npos) << onlyState.error();
}

TEST(CheckpointInfo, RefusesDamagedAndForeignFiles) {
    const std::string good = ts::test::protobufCheckpoint(ts::test::lenetTensors());
    auto truncated = parse(good.substr(0, good.size() - 100));
    ASSERT_FALSE(truncated.ok());
    EXPECT_NE(truncated.error().find("damaged checkpoint"), std::string::npos) << truncated.error();
    EXPECT_NE(truncated.error().find("byte"), std::string::npos);

    auto text = parse("hello, this is not a checkpoint\n");
    ASSERT_FALSE(text.ok());
    EXPECT_NE(text.error().find("not a checkpoint"), std::string::npos) << text.error();

    EXPECT_FALSE(parse("").ok());
    EXPECT_FALSE(parse(std::string("\x0a\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff", 11)).ok());
    // Every prefix of a good file fails cleanly or parses (never crashes).
    for (size_t n = 0; n < 200; ++n) (void)parse(good.substr(0, n));

    auto missing = readCheckpointInfo("/nonexistent/lenet.ckpt");
    ASSERT_FALSE(missing.ok());
    EXPECT_NE(missing.error().find("cannot open checkpoint"), std::string::npos);
    EXPECT_FALSE(readCheckpointInfo(ts::test::tempDir("ckpt_dir").string()).ok());
}

TEST(CheckpointInfo, WireReaderBounds) {
    const std::string bytes = lenField(1, "abc") + varint(300);
    std::istringstream in(bytes);
    ProtoWireReader r(in, 0, bytes.size());
    auto tag = r.readTag();
    ASSERT_TRUE(tag.ok());
    EXPECT_EQ(tag->field, 1u);
    EXPECT_EQ(tag->type, WireType::LengthDelimited);
    auto n = r.readLength();
    ASSERT_TRUE(n.ok());
    EXPECT_EQ(r.readBytes(n.value()).value(), "abc");
    EXPECT_EQ(r.readVarint().value(), 300u);
    EXPECT_TRUE(r.atEnd());
    EXPECT_FALSE(r.readVarint().ok());
    EXPECT_FALSE(r.skip(1).ok());
}

TEST(CheckpointInfo, CliListsACheckpoint) {
    const std::string path = (ts::test::tempDir("ckpt_cli") / "lenet.ckpt").string();
    ts::test::writeFile(path, ts::test::protobufCheckpoint(ts::test::lenetTensors()));
    auto r = ts::test::runCli({"ckpt", path, "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    rapidjson::Document d;
    d.Parse(r.out.c_str());
    ASSERT_FALSE(d.HasParseError()) << r.out;
    EXPECT_EQ(d["tensors"].GetInt64(), 12);
    EXPECT_EQ(d["trainable_params"].GetInt64(), 61684);
    EXPECT_EQ(d["total_params"].GetInt64(), 61837);
    const auto& p = d["params"][2];
    EXPECT_STREQ(p["name"].GetString(), "fc1.weight");
    EXPECT_EQ(p["shape"].Size(), 2u);
    EXPECT_EQ(p["shape"][1].GetInt64(), 400);
    EXPECT_STREQ(p["dtype"].GetString(), "Float32");
    EXPECT_EQ(p["count"].GetInt64(), 48000);
    EXPECT_TRUE(p["trainable"].GetBool());
    EXPECT_EQ(d["warnings"].Size(), 0u);

    auto text = ts::test::runCli({"ckpt", path});
    ASSERT_EQ(text.exitCode, 0);
    EXPECT_NE(text.out.find("12 tensors, 61837 parameters, 61684 trainable"), std::string::npos)
        << text.out;

    const std::string junk = (ts::test::tempDir("ckpt_cli_bad") / "x.ckpt").string();
    ts::test::writeFile(junk, "not a checkpoint at all");
    auto bad = ts::test::runCli({"ckpt", junk, "--json"});
    EXPECT_EQ(bad.exitCode, 1);
    EXPECT_NE(bad.out.find("not a checkpoint"), std::string::npos) << bad.out;
}
