// The trace JSON tokenizer against the RapidJSON SAX reader the importer had before
// (rapidjson_reference.h): on every trace of the corpus and on thousands of mutated small
// traces (byte flips, insertions, deletions, truncations; fixed seed) both must give the same
// outcome (kind, error text, error offset, counts, top-level keys, display unit) and the same
// events, field by field. The tokenizer reads through chunks of varying sizes meanwhile.
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <map>
#include <random>

#include "chrome_test_util.h"
#include "rapidjson_reference.h"
#include "tests/common/test_support.h"
#include "tokenizer_test_util.h"

namespace ts::test {
namespace {

// Compares each event as the tokenizer delivers it with the reference's list, so that only
// one list of a big trace is held.
class ComparingSink : public EventSink {
public:
    explicit ComparingSink(const std::vector<EventRecord>& want) : m_want(want) {}
    ChromeEvent& slot() override { return m_event; }
    void commit() override {
        if (m_count < m_want.size() && !(recordOf(m_event) == m_want[m_count]) && mismatches++ < 3)
            ADD_FAILURE() << "event " << m_count << ":\n  reference " << m_want[m_count]
                          << "\n  tokenizer " << recordOf(m_event);
        ++m_count;
    }
    size_t count() const { return m_count; }
    int mismatches = 0;

private:
    const std::vector<EventRecord>& m_want;
    ChromeEvent m_event;
    size_t m_count = 0;
};

TEST(JsonTokenizerDifferential, CorpusTracesGiveTheReferenceEvents) {
    TS_REQUIRE_CORPUS();
    const auto files = corpusTraces();
    ASSERT_GE(files.size(), 30u);
    for (const auto& file : files) {
        SCOPED_TRACE(file.string());
        const std::string text = readAll(file.string());
        const Tokenized want = referenceOf(text);
        EXPECT_GT(want.events.size(), 0u);
        // the importer's chunk size, and an odd one that moves every boundary
        for (const size_t chunk : {importers::chrome::kTokenizerChunk, size_t{4093}}) {
            SCOPED_TRACE("chunk " + std::to_string(chunk));
            MemorySource source(text);
            JobControl control;
            ComparingSink sink(want.events);
            const ReadOutcome got =
                importers::chrome::tokenizeChromeJson(source, control, sink, chunk);
            EXPECT_EQ(describe(got), describe(want.outcome));
            EXPECT_EQ(sink.count(), want.events.size());
            EXPECT_EQ(sink.mismatches, 0);
        }
    }
}

// Small traces that hold every feature the tokenizer treats specially.
std::vector<std::string> handMadeSeeds() {
    return {
        R"({"displayTimeUnit":"ns","otherData":{"v":[1,2.5e3,-0.0,true,false,null,"s\"\\\/\b\f\n\r\t\u00e9\ud83d\ude00"]},
 "traceEvents":[
  {"ph":"M","name":"process_name","pid":1,"args":{"name":"Main \u4e2d"}},
  {"ph":"C","name":"mem","pid":1,"ts":1.5,"args":{"used":1e3,"free":-2,"note":"x","n":null,"nested":{"a":1},"arr":[1,"y"]}},
  {"args":{"k":12345678901234567890123,"s":"v"},"ph":"X","name":"a\u0062c","cat":"c","pid":"p","tid":2,"ts":"1704161511420306.491","dur":NaN},
  {"ph":"s","id":"0x1","cat":"flow","pid":1,"tid":1,"ts":3,"bp":"e"},
  {"ph":"X","bind_id":7,"flow_in":true,"flow_out":false,"pid":1,"tid":1,"ts":4,"dur":Infinity,"id2":{"local":"0x2"}},
  {"ph":"i","s":"g","name":"inst","ts":-Infinity,"pid":1,"tid":1, "unknown":{"deep":[[[{}]]]}, "long":"0123456789abcdef0123456789abcdef0123456789"},
  {"p\u0068":"B","n\u0061me":"esc keys","pid":1,"tid":1,"ts":5E+2,"flow_in":"true"},
  1, "str", null, -2.5e-3,
  {"ph":"E","pid":1,"tid":1,"ts":6, "args":[1,"two",{"x":3}]},
  {"ph":"X","pid":null,"tid":true,"name":false,"cat":123,"ts":null,"dur":{"x":1},"args":"scalar","id2":7}
 ],
 "stackFrames":{"1":{"name":"f","parent":"0"}}, "e":[ ], "o":{ }, "n":[[],{},[ {} ]],
 "systemTraceEvents":"line1\nline2",
 "displayTimeUnit":"ms"
})",
        "\xEF\xBB\xBF [ \n\t{ \"ph\" : \"X\" , \"name\" : \"n\" , \"pid\" : 1 , \"tid\" : 1 , "
        "\"ts\" : 0 , \"dur\" : 5 , \"args\" : { \"a\" : [ 1 , 2 ] } } ,\r\n { \"ph\":\"C\","
        "\"args\":{\"v\":0.5}} , ",
        R"([{"ph":"X","ts":1,"dur":2,"pid":1,"tid":1,"args":{"a":"\u0000\uDC00\\"}},{"ph":"B","ts":0.0015,"pid":1,"tid":1}])",
        R"({"traceEvents":[{"ph":"X","ts":1e2,"dur":2E-1}],"traceEvents":[{"ph":"i","ts":3}]})",
    };
}

std::vector<std::string> seeds() {
    std::vector<std::string> out = handMadeSeeds();
    if (corpusDir().empty()) return out;
    for (const char* rel :
         {"real/catapult/trivial_trace.json", "real/mindspore/gpu_timeline_display_0.json",
          "real/catapult/nanoseconds.json", "real/catapult/instance_counters.json",
          "real/catapult/instant_events.json", "real/catapult/flow_simple.json",
          "real/perfetto/flow_events_json_v1.json", "real/catapult/async_begin_end.json",
          "real/catapult/nestable_async.json", "real/hta/backward_thread.json"})
        out.push_back(readAll(corpusFile(rel).string()));
    // the start of bigger traces (Kineto's layout, Ascend's string timestamps)
    for (const char* rel :
         {"real/kineto/worker0.1623143089861.pt.trace.json.gz",
          "real/hta/rank-0.Apr_03_18_51_38.1102.pt.trace.json.gz", "real/ascend/trace_view.json"})
        out.push_back(readAll(corpusFile(rel).string()).substr(0, 6000));
    return out;
}

std::string mutate(std::string text, std::mt19937& rng) {
    static const std::vector<std::string> tokens = {"\"",
                                                    "\\",
                                                    "\\u",
                                                    "\\uD800",
                                                    "\\uDC00",
                                                    "\\ud83d\\ude00",
                                                    "{",
                                                    "}",
                                                    "[",
                                                    "]",
                                                    ",",
                                                    ":",
                                                    " ",
                                                    "\n",
                                                    "0",
                                                    "1",
                                                    "-",
                                                    ".",
                                                    "e",
                                                    "E+",
                                                    "NaN",
                                                    "Inf",
                                                    "Infinity",
                                                    "-Infinity",
                                                    "true",
                                                    "nul",
                                                    "fals",
                                                    std::string(1, '\0'),
                                                    "\x1F",
                                                    "\xEF\xBB\xBF",
                                                    "1e400",
                                                    "\"ph\":\"C\",",
                                                    "\"args\":{\"a\":1},",
                                                    "\"traceEvents\":",
                                                    "[[",
                                                    "0.",
                                                    "01",
                                                    "1e",
                                                    "\"\\x\"",
                                                    "\"\\u12G4\"",
                                                    "\"id2\":[1,{}],",
                                                    "\xC3\xA9"};
    auto pos = [&](size_t n) { return n == 0 ? size_t{0} : static_cast<size_t>(rng() % (n + 1)); };
    const int ops = 1 + static_cast<int>(rng() % 3);
    for (int k = 0; k < ops; ++k) {
        const size_t at = pos(text.size());
        switch (rng() % 6) {
            case 0:  // overwrite a byte with any byte
                if (at < text.size()) text[at] = static_cast<char>(rng() & 0xFF);
                break;
            case 1: {  // overwrite with a JSON token
                const std::string& t = tokens[rng() % tokens.size()];
                text.replace(std::min(at, text.size()), std::min(t.size(), text.size() - at), t);
                break;
            }
            case 2:  // insert a token
                text.insert(at, tokens[rng() % tokens.size()]);
                break;
            case 3:  // delete a few bytes
                text.erase(at, 1 + rng() % 8);
                break;
            case 4:  // truncate
                text.resize(at);
                break;
            default: {  // repeat a piece
                const size_t from = pos(text.size());
                text.insert(at, text.substr(from, 1 + rng() % 32));
                break;
            }
        }
    }
    return text;
}

TEST(JsonTokenizerDifferential, SeedsAndChunkSizesGiveTheReferenceEvents) {
    for (const std::string& seed : seeds())
        for (const size_t chunk : {size_t{1}, size_t{2}, size_t{3}, size_t{7}, size_t{64},
                                   importers::chrome::kTokenizerChunk})
            EXPECT_TRUE(sameAsReference(seed, chunk));
}

TEST(JsonTokenizerDifferential, MutatedTracesGiveTheReferenceOutcome) {
    const std::vector<std::string> base = seeds();
    std::mt19937 rng(20240611);
    const size_t chunks[] = {1, 2, 3, 5, 16, 64, 1000, importers::chrome::kTokenizerChunk};
    int failures = 0;
    std::map<ReadOutcome::Kind, int> kinds;
    constexpr int kInputs = 4000;
    for (int i = 0; i < kInputs && failures < 5; ++i) {
        const std::string text = mutate(base[rng() % base.size()], rng);
        const size_t chunk = chunks[rng() % std::size(chunks)];
        const size_t most = rng() % 4 == 0 ? 1 + rng() % 13 : SIZE_MAX;
        const auto r = sameAsReference(text, chunk, most);
        if (!r) {
            ++failures;
            ADD_FAILURE() << "mutant " << i << ": " << r.message();
        }
        ++kinds[referenceOf(text).outcome.kind];
    }
    // the mutants reach every outcome: still complete, cut after some events, not JSON
    for (const auto kind :
         {ReadOutcome::Kind::Complete, ReadOutcome::Kind::Truncated, ReadOutcome::Kind::NotJson})
        EXPECT_GT(kinds[kind], kInputs / 20) << kindName(kind);
    std::printf("mutants: %d complete, %d truncated, %d not JSON, %d not a trace\n",
                kinds[ReadOutcome::Kind::Complete], kinds[ReadOutcome::Kind::Truncated],
                kinds[ReadOutcome::Kind::NotJson], kinds[ReadOutcome::Kind::NotChromeTrace]);
}

}  // namespace
}  // namespace ts::test
