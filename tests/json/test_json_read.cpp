// Reading JSON (core/common/json_read.h): nesting is bounded and never recursive, so a
// document nested 200,000 deep is an error, not a stack overflow, in every reader (issue 25,
// case 4: `import` of a sample's stack, `analyze`, `diff --by shape` and `cluster` on deep
// args or distributedInfo, a child's event line, an RDR index). And text that is not UTF-8
// comes out of the writers as valid UTF-8 (case 15).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "core/common/json.h"
#include "core/common/json_read.h"
#include "core/debug/dump_config.h"
#include "core/engine/train/trainer.h"
#include "core/run/hook_events.h"
#include "core/run/launch_spec.h"
#include "core/run/run_summary.h"
#include "core/timeline/op_stats.h"
#include "core/timeline/slice_details.h"
#include "tests/common/test_support.h"

namespace fs = std::filesystem;

namespace {

std::string nested(size_t depth, const std::string& inner = "1") {
    return std::string(depth, '[') + inner + std::string(depth, ']');
}

struct CountingHandler : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, CountingHandler> {
    int values = 0;
    bool Default() {
        ++values;
        return true;
    }
};

}  // namespace

TEST(JsonRead, NestingIsBoundedAndNotRecursive) {
    rapidjson::Document d;
    EXPECT_TRUE(ts::json::parse(d, nested(ts::json::kMaxDepth)).ok);
    EXPECT_TRUE(d.IsArray());
    const auto deeper = ts::json::parse(d, nested(ts::json::kMaxDepth + 1));
    EXPECT_FALSE(deeper.ok);
    EXPECT_TRUE(d.IsNull());
    EXPECT_NE(deeper.error.find("nested deeper than 512 levels"), std::string::npos)
        << deeper.error;
    // 200,000 levels once overflowed the stack of RapidJSON's recursive reader.
    const auto deep = ts::json::parse(d, nested(200000));
    EXPECT_FALSE(deep.ok);
    EXPECT_LE(deep.offset, ts::json::kMaxDepth + 1);
    CountingHandler h;
    EXPECT_FALSE(ts::json::parseSax(std::string(200000, '['), h).ok);
    // Syntax errors say what and where, as RapidJSON does.
    const auto bad = ts::json::parse(d, "{\"a\": tru}");
    EXPECT_FALSE(bad.ok);
    EXPECT_NE(bad.message().find("at offset"), std::string::npos) << bad.message();
    // Flags pass through (numbers as strings, trailing commas).
    ASSERT_TRUE((ts::json::parse<rapidjson::kParseNumbersAsStringsFlag |
                                 rapidjson::kParseTrailingCommasFlag>(d, "[1.50,]"))
                    .ok);
    EXPECT_STREQ(d[0].GetString(), "1.50");
}

TEST(JsonRead, EveryDocumentReaderRefusesDeepNesting) {
    for (const std::string& deep : {nested(200000), std::string(200000, '[')}) {
        EXPECT_FALSE(ts::run::parseHookEvent(deep).has_value());
        EXPECT_FALSE(ts::run::parseHookEvent("{\"type\":\"step\",\"step\":1,\"x\":" + deep + "}")
                         .has_value());
        EXPECT_FALSE(ts::run::launchSpecFromJson(deep).ok());
        ts::run::RunSummary s;
        EXPECT_FALSE(ts::run::parseRunSummary(deep, s));
        EXPECT_FALSE(ts::engine::TrainConfig::fromJson(deep).ok());
        EXPECT_FALSE(ts::debug::parseDumpConfig(deep).ok());
        EXPECT_EQ(ts::timeline::inputShapesOf("{\"Input Dims\":" + deep + "}"), "");
        EXPECT_EQ(ts::timeline::prettyJson(deep).size(), deep.size());
    }
}

// A trace with a 200,000-deep value at every place a command parses one: a sample's stack,
// an op's "Input Dims", a [memory] event's args and distributedInfo. Each command ends by
// itself (exit code, not a signal), and the session it leaves is read by the next.
TEST(JsonRead, CommandsReadDeepTracesAndSessionsWithoutCrashing) {
    const fs::path dir = ts::test::tempDir("json_deep");
    const std::string deep = nested(200000);
    const fs::path trace = dir / "rank0.json";
    std::ofstream(trace)
        << R"({"distributedInfo":)" << deep << R"(,"traceEvents":[)"
        << R"({"ph":"X","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},)"
        << R"({"ph":"X","name":"aten::mm","pid":1,"tid":1,"ts":1,"dur":5,)"
        << R"("args":{"Input Dims":)" << deep << "}},"
        << R"({"ph":"P","name":"s","pid":1,"tid":1,"ts":2,"stack":)" << deep << "},"
        << R"({"ph":"i","s":"t","name":"[memory]","pid":1,"tid":1,"ts":3,)"
        << R"("args":{"Device Id":0,"Bytes":8,"x":)" << deep << "}}]}";
    const std::string session = (dir / "s.tscope").string();
    auto imp = ts::test::runCli({"import", trace.string(), "-o", session, "--json"});
    ASSERT_EQ(imp.exitCode, 0) << imp.out << imp.err.substr(0, 2000);
    for (const std::vector<std::string>& args :
         {std::vector<std::string>{"analyze", session, "--json"},
          {"stats", session, "--group-by-input-shape", "--json"},
          {"diff", session + ":source=1", session + ":source=1", "--by", "shape", "--json"},
          {"cluster", trace.string(), "--json"},
          {"query", session, "SELECT count(*) FROM args", "--json"}}) {
        auto r = ts::test::runCli(args);
        EXPECT_LT(r.exitCode, 128) << args[0] << " ended by a signal: " << r.err.substr(0, 2000);
    }
}

TEST(JsonWrite, TextThatIsNotUtf8IsWrittenAsValidUtf8) {
    std::string scratch;
    EXPECT_EQ(ts::json::validUtf8("plain \xc3\xa9 \xf0\x9f\x98\x80", scratch),
              "plain \xc3\xa9 \xf0\x9f\x98\x80");
    EXPECT_EQ(ts::json::validUtf8(std::string("\xff\x00\xfe"
                                              "A",
                                              4),
                                  scratch),
              std::string("\xef\xbf\xbd\x00\xef\xbf\xbd"
                          "A",
                          8));
    // Overlong forms, surrogates, past U+10FFFF, a cut sequence: each byte replaced.
    EXPECT_EQ(ts::json::validUtf8("\xc0\xaf|\xed\xa0\x80|\xf4\x90\x80\x80|\xe4\xb8", scratch),
              "\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbd\xef"
              "\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd");
    rapidjson::StringBuffer buf;
    ts::json::Writer w(buf);
    w.StartArray();
    w.String("\xff", 1);
    ts::json::str(w, "\xfe");
    w.EndArray();
    EXPECT_STREQ(buf.GetString(), "[\"\xef\xbf\xbd\",\"\xef\xbf\xbd\"]");
    EXPECT_EQ(ts::json::quote("\x80"), "\"\xef\xbf\xbd\"");
}

// `query --json` of a BLOB cast to TEXT printed the raw bytes: invalid JSON.
TEST(JsonWrite, QueryJsonIsValidUtf8WhateverTheCellsHold) {
    const fs::path dir = ts::test::tempDir("json_utf8");
    std::ofstream(dir / "t.json") << R"({"traceEvents":[{"ph":"i","name":"a","ts":1}]})";
    const std::string session = (dir / "s.tscope").string();
    ASSERT_EQ(ts::test::runCli({"import", (dir / "t.json").string(), "-o", session}).exitCode, 0);
    auto r = ts::test::runCli(
        {"query", session, "SELECT CAST(x'ff00fe41' AS TEXT) AS t, x'c3' AS b", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    std::string scratch;
    EXPECT_EQ(ts::json::validUtf8(r.out, scratch).size(), r.out.size())
        << "not valid UTF-8: " << r.out;
    rapidjson::Document d;
    ASSERT_TRUE(ts::json::parse<rapidjson::kParseValidateEncodingFlag>(d, r.out).ok) << r.out;
    EXPECT_EQ(std::string(d["rows"][0][0].GetString(), d["rows"][0][0].GetStringLength()),
              std::string("\xef\xbf\xbd\x00\xef\xbf\xbd"
                          "A",
                          8));
}
