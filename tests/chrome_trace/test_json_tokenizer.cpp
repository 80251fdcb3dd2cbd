// The trace JSON tokenizer on hand-made inputs: escapes, numbers, exact args, chunk
// boundaries at every split, huge skipped values, BOM, whitespace, truncation at every
// offset, invalid JSON (each form with RapidJSON's error text and offset), cancel.
#include <gtest/gtest.h>

#include <cstring>
#include <random>
#include <tuple>

#include "importers/chrome_trace/chrome_event.h"
#include "rapidjson_reference.h"
#include "tokenizer_test_util.h"

namespace ts::test {
namespace {

using Kind = ReadOutcome::Kind;
using importers::chrome::kTokenizerChunk;
using importers::chrome::microsToNs;
using importers::chrome::tokenizeChromeJson;

// The one event of `[event]`, which must parse.
EventRecord only(const std::string& event) {
    const Tokenized t = tokenize("[" + event + "]");
    EXPECT_EQ(t.outcome.kind, Kind::Complete) << t.outcome.error << "\n" << event;
    EXPECT_EQ(t.events.size(), 1u) << event;
    return t.events.empty() ? EventRecord{} : t.events[0];
}

TEST(JsonTokenizer, EscapesInValuesAndKeysAreDecoded) {
    const EventRecord e = only(
        R"({"ph":"X","name":"a\"b\\c\/d\b\f\n\r\te\u00e9\u4E2D\ud83d\ude00\u0000z","p\u0069d":"x","\u0074s":"1"})");
    EXPECT_EQ(e.name, std::string("a\"b\\c/d\b\f\n\r\te\xC3\xA9\xE4\xB8\xAD\xF0\x9F\x98\x80") +
                          std::string(1, '\0') + "z");
    EXPECT_TRUE(e.hasPid);  // a key written with escapes still matches
    EXPECT_EQ(e.pid, "x");
    EXPECT_EQ(e.ts, "1");
    EXPECT_EQ(e.tsNs, 1000);
    // bytes above 0x7F are copied as they are
    EXPECT_EQ(only("{\"name\":\"\xC3\xA9\xFF\"}").name, "\xC3\xA9\xFF");
}

TEST(JsonTokenizer, SurrogatesFollowRapidJson) {
    // A high surrogate needs a low one after it; a lone low one is encoded as it stands
    // (RapidJSON 1.1 does the same, and Python writes such escapes for undecodable bytes).
    EXPECT_EQ(only(R"({"name":"\udc80"})").name, "\xED\xB2\x80");
    for (const std::string bad :
         {R"(\ud800")", R"(\ud800\u0041")", R"(\uDBFF\uDBFF")", R"(\ud800x")", R"(\ud800\x")"}) {
        const std::string doc = R"([{"ph":"X","name":")" + bad + "}]";
        const Tokenized t = tokenize(doc);
        EXPECT_EQ(t.outcome.kind, Kind::Truncated) << bad;
        EXPECT_EQ(t.outcome.error,
                  "JSON damaged at byte 19: The surrogate pair in string is "
                  "invalid.")
            << bad;
        EXPECT_EQ(t.outcome.errorOffset, 19) << bad;
    }
}

TEST(JsonTokenizer, NumbersKeepTheirSpellingInEveryForm) {
    for (const std::string n :
         {"0",
          "-0",
          "12",
          "-12",
          "1.5",
          "0.000001",
          "1e3",
          "1E+3",
          "1e-3",
          "-1.25E-2",
          "2e308",
          "1.5e309" /* RapidJSON allows a digit of exponent per fraction digit */,
          "1e-99999",
          "123456789012345678901234567890",
          "1704161511420306.491",
          "NaN",
          "-NaN",
          "Inf",
          "-Inf",
          "Infinity",
          "-Infinity"}) {
        const EventRecord e = only(R"({"ph":"X","ts":)" + n + R"(,"dur":)" + n + "}");
        EXPECT_TRUE(e.hasTs && e.hasDur) << n;
        EXPECT_EQ(e.ts, n);
        EXPECT_EQ(e.dur, n);
        EXPECT_EQ(e.tsNs, microsToNs(n)) << n;
        const EventRecord c = only(R"({"ph":"C","args":{"v":)" + n + "}}");
        ASSERT_EQ(c.argNumbers.size(), 1u) << n;
        EXPECT_EQ(c.argNumbers[0], std::make_pair(std::string("v"), n));
    }
    EXPECT_EQ(only(R"({"ts":1.5,"dur":30.125})").durNs, 30125);
    EXPECT_FALSE(only(R"({"ts":NaN})").tsNs);
}

// ts/dur ns are computed from the digits as they are scanned; they must be microsToNs's.
TEST(JsonTokenizer, TimestampNanosecondsAreMicrosToNs) {
    std::vector<std::string> numbers = {"0",
                                        "-0",
                                        "0.0004",
                                        "0.0005",
                                        "-0.0005",
                                        "1.9999",
                                        "999.9995",
                                        "1234567.1234567",
                                        "922337203685477",
                                        "9223372036854774.999",
                                        "-9223372036854774.9995",
                                        "9223372036854775",
                                        "9223372036854779",
                                        "9223372036854780",
                                        "99999999999999999",
                                        "12345678901234567890.5",
                                        "1.5e3",
                                        "-2E-3",
                                        "NaN",
                                        "-Infinity"};
    std::mt19937 rng(7);
    auto digits = [&](int n, bool leading) {
        std::string d;
        for (int i = 0; i < n; ++i)
            d += static_cast<char>('0' + (i == 0 && leading && n > 1 ? 1 + rng() % 9 : rng() % 10));
        return d;
    };
    for (int i = 0; i < 20000; ++i) {
        std::string n =
            (rng() % 4 == 0 ? "-" : "") + digits(1 + static_cast<int>(rng() % 18), true);
        if (rng() % 3) n += "." + digits(1 + static_cast<int>(rng() % 9), false);
        numbers.push_back(n);
    }
    std::string doc = "[";
    for (const std::string& n : numbers)
        doc +=
            (doc.size() > 1 ? "," : "") + std::string(R"({"ts":)") + n + R"(,"dur":")" + n + "\"}";
    const Tokenized t = tokenize(doc + "]");
    ASSERT_EQ(t.events.size(), numbers.size()) << t.outcome.error;
    for (size_t i = 0; i < numbers.size(); ++i) {
        EXPECT_EQ(t.events[i].tsNs, microsToNs(numbers[i])) << numbers[i];
        EXPECT_EQ(t.events[i].durNs, microsToNs(numbers[i])) << numbers[i];  // (as a string)
    }
    // microsToNs itself: the largest whole part that fits, and the first that does not
    EXPECT_EQ(microsToNs("9223372036854774.999"), INT64_C(9223372036854774999));
    EXPECT_FALSE(microsToNs("9223372036854775"));
}

TEST(JsonTokenizer, TimestampsMayBeStringsButNotLiterals) {
    const EventRecord e = only(R"({"ph":"X","ts":"1704161511420306.491","dur":"0.5"})");
    EXPECT_EQ(e.ts, "1704161511420306.491");
    EXPECT_EQ(e.tsNs, 1704161511420306491);
    EXPECT_EQ(e.durNs, 500);
    for (const std::string v : {"true", "false", "null", R"({"a":1})", "[1]"}) {
        const EventRecord x = only(R"({"ph":"X","ts":)" + v + "}");
        EXPECT_FALSE(x.hasTs) << v;
        EXPECT_FALSE(x.tsNs) << v;
    }
    // other fields take any scalar as its text
    const EventRecord m = only(R"({"pid":null,"tid":true,"name":false,"cat":12.50,"id":"7"})");
    EXPECT_EQ(std::tie(m.pid, m.tid, m.name, m.cat, m.id),
              std::make_tuple("null", "true", "false", "12.50", "7"));
}

TEST(JsonTokenizer, ArgsAndId2AreKeptAsWritten) {
    const std::string args =
        R"({ "a" : [1, 2.50, {"b": "\u00e9"}], "n": 123456789012345678901234567890 , "s" : "x\"y" })";
    const EventRecord e = only(R"({"ph":"X","args":)" + args + R"(,"id2":{"local": "0x1"}})");
    EXPECT_EQ(e.args, args);
    EXPECT_TRUE(e.hasId);
    EXPECT_EQ(e.id, R"({"local": "0x1"})");
    EXPECT_EQ(only(R"({"ph":"X","id2":[1, 2]})").id, "[1, 2]");
    EXPECT_EQ(only(R"({"ph":"X","args":[]})").args, "[]");
    EXPECT_EQ(only(R"({"ph":"X","args":"text"})").args, "");
    EXPECT_FALSE(only(R"({"ph":"X","id2":"text"})").hasId);
    EXPECT_TRUE(only(R"({"ph":"s","bind_id":"0x2","flow_in":true,"flow_out":false})").flowIn);
    EXPECT_FALSE(only(R"({"ph":"s","flow_in":"true","flow_out":1})").flowIn);
    EXPECT_EQ(only(R"({"ph":"s","bind_id":"0x2"})").bindId, "0x2");
}

TEST(JsonTokenizer, ArgsMembersAreCollectedForCountersAndMetadata) {
    using KV = std::vector<std::pair<std::string, std::string>>;
    const EventRecord c = only(
        R"({"ph":"C","args":{"used":1.5,"free":2,"note":"x","n":null,"t":true,"nested":{"a":1},"arr":[1,"y"],"k\u0065y":"v\n"}})");
    EXPECT_EQ(c.argNumbers, (KV{{"used", "1.5"}, {"free", "2"}}));
    EXPECT_EQ(c.argStrings, (KV{{"note", "x"}, {"key", "v\n"}}));
    const EventRecord x = only(R"({"ph":"X","args":{"a":1,"s":"t"}})");
    EXPECT_TRUE(x.argNumbers.empty() && x.argStrings.empty());
    // when "ph" comes after "args" they are collected anyway (its phase is not known yet)
    EXPECT_EQ(only(R"({"args":{"a":1},"ph":"X"})").argNumbers, (KV{{"a", "1"}}));
    // an array's members have no key
    const EventRecord m = only(R"({"ph":"M","args":[3,"z",[4]]})");
    EXPECT_EQ(m.argNumbers, (KV{{"", "3"}}));
    EXPECT_EQ(m.argStrings, (KV{{"", "z"}}));
}

TEST(JsonTokenizer, UnknownKeysAreIgnoredWhateverTheirValue) {
    const std::string longText(300000, 'L');
    const EventRecord e = only(R"({"x":{"a":[1,{"b":"c"}],"ph":"B"},"y":[[],{}],"z":")" + longText +
                               R"(","w":null,"v":-1e5,"ph":"X","name":"n","u":true})");
    EXPECT_EQ(e.ph, "X");
    EXPECT_EQ(e.name, "n");
}

const std::string kSample =
    R"({"displayTimeUnit":"ns","otherData":{"v":[1,"s\"x",true]},"traceEvents":[)"
    R"({"ph":"M","name":"process_name","pid":1,"args":{"name":"Main \u4e2d"}},)"
    R"({"ph":"C","name":"mem","pid":1,"ts":1.5,"args":{"used":1e3,"note":"x"}},)"
    R"({"args":{"k":123456789012345678901234567890},"ph":"X","name":"a\u0062c","pid":"p","tid":2,"ts":"1704161511420306.491","dur":NaN},)"
    R"(7,{"ph":"X","bind_id":7,"flow_in":true,"pid":1,"tid":1,"ts":4,"dur":2,"id2":{"local":"0x2"}}],)"
    R"("empty":[ ],"none":{ },"nested":[[],{ },[ [ ] ]],"stackFrames":{"1":{"name":"f"}},)"
    R"("systemTraceEvents":"a\nb"})";

void expectSameRun(const Tokenized& got, const Tokenized& want, const std::string& label) {
    EXPECT_EQ(describe(got.outcome), describe(want.outcome)) << label;
    EXPECT_EQ(got.events, want.events) << label;
}

// The same outcome and events whatever the chunks: the first read ending at every byte of
// the document, every chunk size up to 40, and reads shorter than asked for.
void expectSameAtEverySplit(const std::string& doc, const Tokenized& whole) {
    for (size_t split = 1; split < doc.size(); ++split) {
        MemorySource source(doc, SIZE_MAX, split);
        JobControl control;
        RecordingSink sink;
        Tokenized t{tokenizeChromeJson(source, control, sink), std::move(sink.events)};
        expectSameRun(t, whole, doc + "\nsplit at " + std::to_string(split));
    }
    for (size_t chunk = 1; chunk <= 40; ++chunk) {
        expectSameRun(tokenize(doc, chunk), whole, doc + "\nchunk " + std::to_string(chunk));
        expectSameRun(tokenize(doc, chunk, 3), whole, doc + "\nchunk " + std::to_string(chunk));
    }
}

TEST(JsonTokenizer, EventsAcrossChunkBoundariesAtEverySplit) {
    const Tokenized whole = tokenize(kSample);
    ASSERT_EQ(whole.outcome.kind, Kind::Complete) << whole.outcome.error;
    ASSERT_EQ(whole.events.size(), 5u);  // 4 events, then the stack frame "1"
    EXPECT_EQ(whole.outcome.eventObjects, 4);
    EXPECT_EQ(whole.events[4].kind, static_cast<int>(ChromeEvent::Kind::StackFrame));
    EXPECT_EQ(whole.events[4].id, "1");
    EXPECT_EQ(whole.events[4].name, "f");
    EXPECT_EQ(whole.outcome.nonObjectEvents, 1);
    EXPECT_EQ(whole.outcome.displayTimeUnit, "ns");
    expectSameAtEverySplit(kSample, whole);
    // empty containers and whitespace, where the byte after a split decides the state
    for (const auto& [doc, kind] : std::vector<std::pair<std::string, Kind>>{
             {"[ ]", Kind::Complete},
             {"[ 1 , { } ]", Kind::Complete},
             {R"( { "traceEvents" : [ ] , "a" : { } , "b" : [ ] , "c" : "" } )", Kind::Complete},
             {R"({"a":{ },"traceEvents":[ {"args":{ },"id2":[ ]} ]})", Kind::Complete},
             {"{ }", Kind::NotChromeTrace},
             {R"({"a" : [ ] })", Kind::NotChromeTrace},
             {"-Infinity ", Kind::NotChromeTrace},
             {R"([{"ph":"X","ts":1.5e+3}, 2e-1 ,"\u00e9\n"  ,  null ,{}])", Kind::Complete}}) {
        const Tokenized t = tokenize(doc);
        EXPECT_EQ(t.outcome.kind, kind) << doc << ": " << t.outcome.error;
        expectSameAtEverySplit(doc, t);
    }
}

TEST(JsonTokenizer, AnEventBiggerThanTheChunkGrowsTheWindow) {
    const std::string args = R"({"big":")" + std::string(200000, 'b') + R"(","n":1})";
    const std::string doc = R"([{"ph":"X","name":"small"},{"ph":"X","args":)" + args + "}]";
    MemorySource source(doc);
    JobControl control;
    RecordingSink sink;
    const ReadOutcome out = tokenizeChromeJson(source, control, sink, 4096);
    EXPECT_EQ(out.kind, Kind::Complete) << out.error;
    ASSERT_EQ(sink.events.size(), 2u);
    EXPECT_EQ(sink.events[1].args, args);
    EXPECT_EQ(sink.events[1].offset, static_cast<int64_t>(doc.find(R"({"ph":"X","args")")));
    EXPECT_GT(source.largestRequest, 4096u);
}

// Other values are stepped over; stackFrames and samples are read member by member: none
// is ever held whole.
TEST(JsonTokenizer, HugeTopLevelValuesAreSteppedOverWithoutBeingHeld) {
    std::string doc = R"({"systemTraceEvents":")";
    for (int i = 0; i < 300000; ++i) doc += "line \\\"quoted\\\" \\u00e9\\n";
    doc += R"(","stackFrames":{)";
    for (int i = 0; i < 200000; ++i)
        doc += (i ? "," : "") + std::string("\"") + std::to_string(i) +
               R"(":{"name":"frame","parent":")" + std::to_string(i / 2) + "\"}";
    doc += R"(},"traceEvents":[{"ph":"X","ts":1,"dur":2},{"ph":"i","ts":3}],"samples":[)";
    for (int i = 0; i < 200000; ++i) doc += (i ? "," : "") + std::string("[1.5e3,true,null]");
    doc += "]}";
    ASSERT_GT(doc.size(), 16u << 20);
    MemorySource source(doc);
    JobControl control;
    RecordingSink sink;
    const ReadOutcome out = tokenizeChromeJson(source, control, sink, 65536);
    EXPECT_EQ(out.kind, Kind::Complete) << out.error;
    ASSERT_EQ(sink.events.size(), 200002u);  // the frames, then the events (no sample)
    EXPECT_EQ(out.eventObjects, 2);
    EXPECT_EQ(sink.events[199999].id, "199999");
    EXPECT_EQ(sink.events[199999].parent, "99999");
    EXPECT_EQ(sink.events[200001].ph, "i");
    EXPECT_EQ(out.topLevelKeys, (std::vector<std::string>{"systemTraceEvents", "stackFrames",
                                                          "traceEvents", "samples"}));
    EXPECT_EQ(source.largestRequest, 65536u);  // never more than a chunk kept
}

TEST(JsonTokenizer, ALeadingByteOrderMarkIsAccepted) {
    const std::string doc = "\xEF\xBB\xBF [{\"ph\":\"X\"}]";
    for (const size_t chunk : {size_t{1}, size_t{2}, kTokenizerChunk}) {
        const Tokenized t = tokenize(doc, chunk);
        EXPECT_EQ(t.outcome.kind, Kind::Complete) << t.outcome.error;
        ASSERT_EQ(t.events.size(), 1u);
        EXPECT_EQ(t.events[0].offset, 5);  // offsets count the BOM's bytes
    }
    EXPECT_EQ(tokenize("[\xEF\xBB\xBF{\"ph\":\"X\"}]").outcome.kind, Kind::NotJson);
    EXPECT_EQ(tokenize("\xEF\xBB").outcome.error, "not JSON: Invalid value. at byte 0");
}

// Adds whitespace of every kind after every structural byte and string (not inside numbers
// and literals, where it would split them).
std::string spaced(const std::string& compact) {
    std::string out;
    bool inString = false, escaped = false;
    for (const char c : compact) {
        out += c;
        if (inString) {
            if (escaped)
                escaped = false;
            else if (c == '\\')
                escaped = true;
            else if (c == '"')
                inString = false, out += " \t\r\n";
            continue;
        }
        if (c == '"')
            inString = true;
        else if (std::strchr("{}[],:", c))
            out += "\n\t \r";
    }
    return " \r\n\t" + out;
}

TEST(JsonTokenizer, WhitespaceMayStandBetweenAnyTokens) {
    const std::string compact =
        R"({"traceEvents":[{"ph":"X","name":"a b","ts":1.5,"dur":-2,"flow_in":true,"pid":null},3,{"ph":"i"}],"x":[{}]})";
    const Tokenized a = tokenize(compact), b = tokenize(spaced(compact));
    EXPECT_EQ(b.outcome.kind, Kind::Complete) << b.outcome.error;
    ASSERT_EQ(a.events.size(), 2u);
    ASSERT_EQ(b.events.size(), 2u);
    EXPECT_EQ(b.outcome.nonObjectEvents, 1);
    for (size_t i = 0; i < 2; ++i) {
        EventRecord x = a.events[i], y = b.events[i];
        x.offset = y.offset = 0;
        EXPECT_EQ(x, y);
    }
}

TEST(JsonTokenizer, TheEventsArrayMayLackItsClosingBracket) {
    for (const std::string doc :
         {R"([{"ph":"X"},{"ph":"B"})", R"([{"ph":"X"},{"ph":"B"},)",
          "[{\"ph\":\"X\"},{\"ph\":\"B\"}\n", R"({"traceEvents":[{"ph":"X"},{"ph":"B"})",
          R"([{"ph":"X"},{"ph":"B"},"tr)"}) {
        const Tokenized t = tokenize(doc);
        EXPECT_EQ(t.outcome.kind, Kind::Complete) << doc << ": " << t.outcome.error;
        EXPECT_EQ(t.events.size(), 2u) << doc;
    }
    const Tokenized damaged = tokenize(R"([{"ph":"X"}x)");
    EXPECT_EQ(damaged.outcome.error,
              "JSON damaged at byte 11: Missing a comma or ']' after an array element.");
}

TEST(JsonTokenizer, TruncationAtEveryOffsetKeepsTheEventsBeforeTheCut) {
    const Tokenized whole = tokenize(kSample);
    ASSERT_EQ(whole.events.size(), 5u);  // the stack frame after the events array
    const size_t open = kSample.find(R"("traceEvents":[)") + 14;  // the events array
    const size_t close = kSample.find("}],") + 1;
    std::vector<std::pair<size_t, size_t>> spans;  // [first, last] byte of each event
    for (const auto& e : whole.events) {
        size_t depth = 0, i = static_cast<size_t>(e.offset);
        bool inString = false;
        for (;; ++i) {
            const char c = kSample[i];
            if (inString) {
                if (c == '\\')
                    ++i;
                else if (c == '"')
                    inString = false;
            } else if (c == '"') {
                inString = true;
            } else if (c == '{') {
                ++depth;
            } else if (c == '}' && --depth == 0) {
                break;
            }
        }
        spans.emplace_back(static_cast<size_t>(e.offset), i);
    }
    for (size_t cut = 0; cut < kSample.size(); ++cut) {
        SCOPED_TRACE("cut at " + std::to_string(cut));
        const Tokenized t = tokenize(kSample.substr(0, cut), cut % 2 ? 5 : kTokenizerChunk);
        size_t done = 0;
        bool inside = false;
        for (const auto& [first, last] : spans) {
            done += last < cut;
            inside |= first < cut && cut <= last;
        }
        ASSERT_EQ(t.events.size(), done);
        for (size_t i = 0; i < done; ++i) EXPECT_EQ(t.events[i], whole.events[i]);
        EXPECT_LE(t.outcome.errorOffset, static_cast<int64_t>(cut));
        if (cut <= open) {
            EXPECT_EQ(t.outcome.kind, Kind::NotJson) << t.outcome.error;
        } else if (inside || cut > close) {
            EXPECT_EQ(t.outcome.kind, Kind::Truncated);
            EXPECT_EQ(t.outcome.error.rfind("JSON ends early at byte ", 0), 0u) << t.outcome.error;
        } else {  // between events: the array may end there
            EXPECT_EQ(t.outcome.kind, Kind::Complete) << t.outcome.error;
        }
    }
}

TEST(JsonTokenizer, InvalidJsonIsRefusedWhereRapidJsonRefusedIt) {
    // Each value stands as the "ts" of the second event; `at` is the error's offset in it.
    struct Case {
        std::string value;
        std::string error;
        size_t at;
    };
    const std::vector<Case> cases = {
        {"tru}", "Invalid value.", 3},
        {"nul}", "Invalid value.", 3},
        {"falsy", "Invalid value.", 4},
        {"True", "Invalid value.", 0},
        {"01", "Missing a comma or '}' after an object member.", 1},
        {"1.}", "Miss fraction part in number.", 2},
        {"1.e3", "Miss fraction part in number.", 2},
        {"-}", "Invalid value.", 1},
        {"- 1", "Invalid value.", 1},
        {"1e}", "Miss exponent in number.", 2},
        {"1e+}", "Miss exponent in number.", 3},
        {".5", "Invalid value.", 0},
        {"+1", "Invalid value.", 0},
        {"0x10", "Missing a comma or '}' after an object member.", 1},
        {"NaX", "Invalid value.", 2},
        {"Infinit}", "Invalid value.", 7},
        {"1e400", "Number too big to be stored in double.", 0},
        {"1e309", "Number too big to be stored in double.", 0},
        {"0.1e310", "Number too big to be stored in double.", 0},
        {"NaNe999", "Number too big to be stored in double.", 0},
        {"-" + std::string(400, '9'), "Number too big to be stored in double.", 0},
        {"\"a\x01z\"", "Invalid escape character in string.", 2},
        {"\"a\tz\"", "Invalid escape character in string.", 2},
        {std::string("\"a\0z\"", 5), "Missing a closing quotation mark in string.", 2},
        {R"("\x")", "Invalid escape character in string.", 1},
        {R"("\U0041")", "Invalid escape character in string.", 1},
        {R"("\u12G4")", "Incorrect hex digit after \\u escape in string.", 1},
        {"'x'", "Invalid value.", 0},
        {"[1,,]", "Invalid value.", 3},  // (one trailing comma is accepted, see below)
        {"[1 2]", "Missing a comma or ']' after an array element.", 3},
        {R"({"a":1,,})", "Missing a name for object member.", 7},
        {"{a:1}", "Missing a name for object member.", 1},
        {R"({"a" 1})", "Missing a colon after a name of object member.", 5},
        {R"({"a":1]})", "Missing a comma or '}' after an object member.", 6},
        {"// c\n1", "Invalid value.", 0},
        {"}", "Invalid value.", 0},
    };
    const std::string head = R"([{"ph":"X","ts":1},{"ph":"X","ts":)";
    for (const Case& c : cases) {
        const std::string doc = head + c.value + "}]";
        const Tokenized t = tokenize(doc);
        EXPECT_EQ(t.outcome.kind, Kind::Truncated) << c.value;
        EXPECT_EQ(t.outcome.error,
                  "JSON damaged at byte " + std::to_string(head.size() + c.at) + ": " + c.error)
            << c.value;
        EXPECT_EQ(t.events.size(), 1u) << c.value;
        EXPECT_TRUE(sameAsReference(doc, kTokenizerChunk));
        EXPECT_TRUE(sameAsReference(doc, 3));
    }
    // structure around the events
    for (const auto& [doc, error] : std::vector<std::pair<std::string, std::string>>{
             {R"([{"ph":"X",,}])", "Missing a name for object member."},
             {R"([{"ph":"X"},,])", "Invalid value."},
             {R"([{"ph" "X"}])", "Missing a colon after a name of object member."},
             {R"([{ph:"X"}])", "Missing a name for object member."},
             {R"([{"ph":"X"} {"ph":"X"}])", "Missing a comma or ']' after an array element."},
             {R"({"traceEvents":[{"ph":"X"}] "x":1})",
              "Missing a comma or '}' after an object member."}}) {
        const Tokenized t = tokenize(doc);
        EXPECT_NE(t.outcome.kind, Kind::Complete) << doc;
        EXPECT_NE(t.outcome.error.find(error), std::string::npos) << doc << ": " << t.outcome.error;
        EXPECT_TRUE(sameAsReference(doc, 2));
    }
}

// A comma before a closing bracket is accepted at every level, as Perfetto reads JSON traces
// (and RapidJSON with kParseTrailingCommasFlag): the events keep their args as written, and
// say that they hold a trailing comma (the importer stores them without it).
TEST(JsonTokenizer, TrailingCommasAreAccepted) {
    for (const std::string doc :
         {R"([{"ph":"X","ts":1,},{"ph":"X","ts":2},])",
          R"({"traceEvents":[{"ph":"X",},],"otherData":{"a":[1,2,],"b":{"c":1,},},})",
          R"({"stackFrames":{"1":{"name":"f",},},"samples":[{"ts":1,},],"traceEvents":[],})",
          R"([{"ph":"C","args":{"a":1,"b":[1,{"x":[],},],},}])"}) {
        const Tokenized t = tokenize(doc);
        EXPECT_EQ(t.outcome.kind, Kind::Complete) << doc << ": " << t.outcome.error;
        expectSameAtEverySplit(doc, t);
        EXPECT_TRUE(sameAsReference(doc, 1));
    }
    JobControl control;
    MemorySource source(R"([{"ph":"X","args":{"a":[1,],}},{"ph":"X","args":{"b":[1]}}])");
    class Watch : public EventSink {
    public:
        ChromeEvent& slot() override { return e; }
        void commit() override { flags.push_back(e.argsTrailingCommas), args.push_back(e.args); }
        ChromeEvent e;
        std::vector<bool> flags;
        std::vector<std::string> args;
    } watch;
    EXPECT_EQ(tokenizeChromeJson(source, control, watch).kind, Kind::Complete);
    EXPECT_EQ(watch.flags, (std::vector<bool>{true, false}));
    EXPECT_EQ(watch.args[0], R"({"a":[1,],})");
    EXPECT_EQ(importers::chrome::withoutTrailingCommas(R"({"a":[1, ],"s":",}" ,})"),
              R"({"a":[1 ],"s":",}" })");
}

TEST(JsonTokenizer, JsonThatIsNotATraceIsRefused) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"123 x", "not a Chrome trace: the JSON document is a single value"},
        {R"("text")", "not a Chrome trace: the JSON document is a single value"},
        {R"({"a":1,"b\"c":[{}]})",
         R"(not a Chrome trace: JSON object without "traceEvents" (keys: a, b"c))"},
        {R"({"traceEvents":{"ph":"X"}})",
         R"(not a Chrome trace: JSON object without "traceEvents" (keys: traceEvents))"},
        {"[[1,2],[3,4]]", "not a Chrome trace: the events array holds arrays (a list of lists)"},
        {R"([{"ph":"X"},[)", "not a Chrome trace: the events array holds arrays (a list of lists)"},
        {"", "not JSON: The document is empty. at byte 0"},
        {" \n ", "not JSON: The document is empty. at byte 3"},
        {"this is not json", "not JSON: Invalid value. at byte 1"},  // 't' of "true"?
        {R"({"traceEvents":[)" + std::string("\x01"), "not JSON: Invalid value. at byte 16"},
    };
    for (const auto& [doc, error] : cases) {
        const Tokenized t = tokenize(doc);
        EXPECT_EQ(t.outcome.error, error) << doc;
        EXPECT_TRUE(sameAsReference(doc, 1));
    }
}

TEST(JsonTokenizer, AReadErrorOfTheSourceNamesTheCut) {
    const std::string cut = kSample.substr(0, 200);
    MemorySource source(cut, SIZE_MAX, 0, "gzip stream ends early");
    JobControl control;
    RecordingSink sink;
    const ReadOutcome out = tokenizeChromeJson(source, control, sink);
    EXPECT_EQ(out.kind, Kind::Truncated);
    EXPECT_EQ(out.error, "gzip stream ends early; JSON cut at byte 200");
    EXPECT_EQ(out.errorOffset, 200);
    EXPECT_EQ(sink.events.size(), 1u);
}

TEST(JsonTokenizer, CancelStopsAtTheNextChunk) {
    std::string doc = "[";
    for (int i = 0; i < 20000; ++i)
        doc += (i ? "," : "") + std::string(R"({"ph":"X","ts":)") + std::to_string(i) + "}";
    doc += "]";
    class CancellingSink : public RecordingSink {
    public:
        explicit CancellingSink(JobControl& c) : m_control(c) {}
        void commit() override {
            RecordingSink::commit();
            m_control.cancel();
        }

    private:
        JobControl& m_control;
    };
    MemorySource source(doc);
    JobControl control;
    CancellingSink sink(control);
    const ReadOutcome out = tokenizeChromeJson(source, control, sink, 4096);
    EXPECT_EQ(out.kind, Kind::Cancelled);
    EXPECT_LE(source.progress(), 2u * 4096);  // the chunk it was in, and the one it asked for
    EXPECT_LT(sink.events.size(), 500u);
    EXPECT_EQ(control.done(), source.progress());
}

TEST(JsonTokenizer, DeepNestingNeverCrashes) {
    const std::string deep = std::string(1000000, '[') + std::string(1000000, ']');
    const Tokenized inEvent = tokenize(R"([{"ph":"X","x":)" + deep + "}]", 65536);
    EXPECT_EQ(inEvent.outcome.kind, Kind::Complete) << inEvent.outcome.error;
    EXPECT_EQ(inEvent.events.size(), 1u);
    const Tokenized top = tokenize(R"({"a":)" + deep + R"(,"traceEvents":[{"ph":"X"}]})", 4096);
    EXPECT_EQ(top.outcome.kind, Kind::Complete) << top.outcome.error;
    const Tokenized cut = tokenize(R"([{"ph":"X"},{"x":)" + std::string(1000000, '['), 4096);
    EXPECT_EQ(cut.outcome.error.rfind("JSON ends early", 0), 0u) << cut.outcome.error;
    EXPECT_EQ(cut.events.size(), 1u);
}

}  // namespace
}  // namespace ts::test
