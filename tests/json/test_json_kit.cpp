// The JSON kit (core/common/json.h): escaping by hand agrees with RapidJSON's reading of it,
// NaN/Inf are written as null, optional values as null, args objects stay valid JSON.
#include <gtest/gtest.h>

#include <rapidjson/document.h>

#include <cmath>
#include <limits>
#include <string>

#include "core/common/json.h"

namespace ts::json {
namespace {

std::string parsedString(const std::string& text) {
    rapidjson::Document d;
    d.Parse(text.c_str(), text.size());
    EXPECT_FALSE(d.HasParseError()) << text;
    if (d.HasParseError() || !d.IsString()) return "<not a string>";
    return std::string(d.GetString(), d.GetStringLength());
}

TEST(JsonKit, QuotedStringsReadBackAsTheyWere) {
    std::string every;
    for (int c = 1; c < 128; ++c) every += static_cast<char>(c);
    every += "\xc3\xa9 \xe4\xb8\xad";  // UTF-8 passes through untouched
    for (const std::string& s : {std::string(), std::string("plain"), std::string("a\"b\\c"),
                                 std::string("line\nnext\ttab\rret"), every})
        EXPECT_EQ(parsedString(quote(s)), s);
}

TEST(JsonKit, EscapesAsDocumented) {
    EXPECT_EQ(quote("a\"b\\c"), R"("a\"b\\c")");
    EXPECT_EQ(quote("x\ny\tz\r"), R"("x\ny\tz\r")");
    EXPECT_EQ(quote(std::string("\x01\x1f", 2)), R"("\u0001\u001f")");
    EXPECT_EQ(quote("/<>'"), R"("/<>'")");
    char out[6];
    EXPECT_EQ(escapeByte('a', out), 1u);
    EXPECT_EQ(escapeByte('"', out), 2u);
    EXPECT_EQ(escapeByte(0x00, out), 6u);
    EXPECT_EQ(std::string(out, 6), "\\u0000");
}

TEST(JsonKit, WriterHelpersWriteNullForNonFiniteAndEmpty) {
    rapidjson::StringBuffer buf;
    Writer w(buf);
    w.StartObject();
    kv(w, "s", std::string("a\0b", 3));
    kv(w, "i", int64_t{-3});
    kv(w, "d", 1.5);
    kv(w, "nan", std::nan(""));
    kv(w, "inf", std::numeric_limits<double>::infinity());
    kv(w, "some", std::optional<int64_t>(7));
    kv(w, "none", std::optional<int64_t>());
    w.EndObject();
    EXPECT_EQ(std::string(buf.GetString()),
              std::string(R"({"s":"a\u0000b","i":-3,"d":1.5,"nan":null,"inf":null,)"
                          R"("some":7,"none":null})"));
}

TEST(JsonKit, ArgsObjectsAreValidJson) {
    EXPECT_EQ(ArgsJson().done(), "{}");
    ArgsJson a;
    a.num("n", 3).real("r", 0.5).real("bad", std::nan("")).str("q\"k", "v\n").dims("g", 1, 2, 3);
    EXPECT_EQ(a.done(), R"({"n":3,"r":0.5,"bad":null,"q\"k":"v\n","g":[1,2,3]})");
    rapidjson::Document d;
    d.Parse(a.done().c_str());
    EXPECT_FALSE(d.HasParseError());
}

}  // namespace
}  // namespace ts::json
