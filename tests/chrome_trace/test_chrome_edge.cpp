// Chrome JSON importer on hand-made inputs: exact numbers, nesting, bad input, zip, cancel.
#include <gtest/gtest.h>
#include <zlib.h>

#include <fstream>
#include <thread>

#include "chrome_test_util.h"
#include "importers/chrome_trace/chrome_event.h"
#include "tests/common/test_support.h"

namespace ts::test {
namespace {

std::string writeFile(const std::string& tag, const std::string& name, const std::string& text) {
    const auto path = tempDir(tag) / name;
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
}

TEST(ChromeEdge, MicrosToNsIsExact) {
    using importers::chrome::microsToNs;
    EXPECT_EQ(microsToNs("1704161511420306.491"), 1704161511420306491);
    EXPECT_EQ(microsToNs("12"), 12000);
    EXPECT_EQ(microsToNs("1.5"), 1500);
    EXPECT_EQ(microsToNs("0.0015"), 2);
    EXPECT_EQ(microsToNs("-3.25"), -3250);
    EXPECT_EQ(microsToNs("1e3"), 1000000);
    EXPECT_FALSE(microsToNs("abc"));
    EXPECT_FALSE(microsToNs(""));
}

TEST(ChromeEdge, BigIntegerArgsAndNestingAndUnfinished) {
    const std::string json = R"({"traceEvents":[
      {"ph":"X","name":"inner","pid":1,"tid":"a","ts":2,"dur":1,"args":{"Comms Id":123456789012345678901234567890}},
      {"ph":"X","name":"outer","pid":1,"tid":"a","ts":1,"dur":5},
      {"ph":"B","name":"open","pid":"p","tid":2,"ts":10},
      {"ph":"X","name":"late","pid":"p","tid":2,"ts":11,"dur":4},
      {"ph":"E","pid":"p","tid":3,"ts":12},
      {"ph":"C","name":"mem","pid":1,"ts":3,"args":{"used":1.5,"free":2,"note":"x"}},
      {"ph":"X","name":"nots","pid":1,"tid":"a","dur":4},
      {"ph":"M","name":"process_name","pid":1,"args":{"name":"Main"}},
      {"ph":"i","name":"g","s":"g","pid":1,"tid":1,"ts":4}
    ],"deviceProperties":[{"id":0}]})";
    auto got =
        importInto((tempDir("edge") / "a.tscope").string(), writeFile("edgein", "t.json", json));
    const auto& r = got.report;
    ASSERT_EQ(r.status, ts::store::SourceStatus::Complete) << r.error;
    EXPECT_EQ(r.slices, 4);
    EXPECT_EQ(r.counterSamples, 2);
    EXPECT_EQ(r.instants, 1);
    EXPECT_EQ(r.skippedReasons.at("json_missing_ts"), 1);
    EXPECT_EQ(r.skippedReasons.at("json_unmatched_end"), 1);
    auto& db = got.store->db();
    // args kept whole and exact: numbers stay numbers (not strings), digits untouched
    EXPECT_EQ(db.queryInt("SELECT count(*) FROM args WHERE json = "
                          "'{\"Comms Id\":123456789012345678901234567890}'")
                  .value(),
              1);
    EXPECT_EQ(db.queryInt("SELECT json_type(json, '$.\"Comms Id\"') = 'integer' FROM args").value(),
              1);
    EXPECT_EQ(
        db.queryInt(
              "SELECT depth FROM slices s JOIN strings n ON n.id = s.name_id WHERE n.str = 'inner'")
            .value(),
        1);
    // B without E runs to the end of its thread's data (15 us) and is marked unfinished
    EXPECT_EQ(
        db.queryInt(
              "SELECT dur FROM slices s JOIN strings n ON n.id = s.name_id WHERE n.str = 'open'")
            .value(),
        5000);
    EXPECT_EQ(
        db.queryInt(
              "SELECT flags FROM slices s JOIN strings n ON n.id = s.name_id WHERE n.str = 'open'")
            .value(),
        1);
    EXPECT_EQ(db.queryInt("SELECT count(*) FROM processes WHERE name = 'Main'").value(), 1);
    EXPECT_EQ(db.queryInt("SELECT count(*) FROM import_log WHERE key = 'json_missing_ts'").value(),
              1);
}

TEST(ChromeEdge, TruncatedFileImportsWhatCameBeforeTheCut) {
    std::string json = "[";
    for (int i = 0; i < 100; ++i)
        json += (i ? "," : "") + std::string(R"({"ph":"X","name":"n","pid":1,"tid":1,"ts":)") +
                std::to_string(i * 10) + R"(,"dur":5})";
    json += "]";
    const std::string cut = json.substr(0, json.size() / 2);
    auto got =
        importInto((tempDir("trunc") / "a.tscope").string(), writeFile("truncin", "t.json", cut));
    EXPECT_EQ(got.report.status, ts::store::SourceStatus::Partial);
    EXPECT_NE(got.report.error.find(std::to_string(cut.size())), std::string::npos)
        << got.report.error;
    EXPECT_GT(got.report.slices, 40);
    auto sources = got.store->sources();
    ASSERT_TRUE(sources);
    EXPECT_EQ(sources.value().back().status, ts::store::SourceStatus::Partial);
    // the array form may omit its closing bracket: that is complete
    auto open = importInto((tempDir("noclose") / "a.tscope").string(),
                           writeFile("nocl", "t.json", json.substr(0, json.size() - 1)));
    EXPECT_EQ(open.report.status, ts::store::SourceStatus::Complete) << open.report.error;
    EXPECT_EQ(open.report.slices, 100);
}

TEST(ChromeEdge, GarbageAndNonTraceJsonAreRefused) {
    auto garbage = importInto((tempDir("garb") / "a.tscope").string(),
                              writeFile("garbin", "g.json", "this is not json at all"));
    EXPECT_EQ(garbage.report.status, ts::store::SourceStatus::Failed);
    EXPECT_NE(garbage.report.error.find("not JSON"), std::string::npos) << garbage.report.error;
    for (const std::string& text :
         {std::string(R"({"schema":"1.0","nodes":[{"id":1,"name":"aten::add"}]})"),
          std::string("[[1,2],[3,4]]"), std::string(R"({"spans":[{"spanId":"1","name":"x"}]})")}) {
        auto r = importInto((tempDir("notct") / "a.tscope").string(),
                            writeFile("notctin", "n.json", text));
        EXPECT_EQ(r.report.status, ts::store::SourceStatus::Failed) << text;
        EXPECT_NE(r.report.error.find("not a Chrome trace"), std::string::npos) << r.report.error;
        EXPECT_EQ(r.store->db().queryInt("SELECT count(*) FROM slices").value(), 0);
    }
}

// A one-member zip written by hand (deflate through zlib raw, crc32 by zlib).
std::string makeZip(const std::string& member, const std::string& data) {
    std::string comp(compressBound(data.size()) + 64, '\0');
    z_stream z{};
    deflateInit2(&z, 6, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
    z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(data.data()));
    z.avail_in = static_cast<uInt>(data.size());
    z.next_out = reinterpret_cast<Bytef*>(comp.data());
    z.avail_out = static_cast<uInt>(comp.size());
    deflate(&z, Z_FINISH);
    comp.resize(z.total_out);
    deflateEnd(&z);
    const uint32_t crc = static_cast<uint32_t>(
        crc32(0, reinterpret_cast<const Bytef*>(data.data()), static_cast<uInt>(data.size())));
    auto u16 = [](std::string& s, uint32_t v) {
        s += char(v & 0xff);
        s += char((v >> 8) & 0xff);
    };
    auto u32 = [&](std::string& s, uint32_t v) {
        u16(s, v & 0xffff);
        u16(s, v >> 16);
    };
    std::string out;
    u32(out, 0x04034b50);
    u16(out, 20);
    u16(out, 0);
    u16(out, 8);
    u16(out, 0);
    u16(out, 0);
    u32(out, crc);
    u32(out, static_cast<uint32_t>(comp.size()));
    u32(out, static_cast<uint32_t>(data.size()));
    u16(out, static_cast<uint32_t>(member.size()));
    u16(out, 0);
    out += member + comp;
    const auto cdOff = static_cast<uint32_t>(out.size());
    std::string cd;
    u32(cd, 0x02014b50);
    u16(cd, 20);
    u16(cd, 20);
    u16(cd, 0);
    u16(cd, 8);
    u16(cd, 0);
    u16(cd, 0);
    u32(cd, crc);
    u32(cd, static_cast<uint32_t>(comp.size()));
    u32(cd, static_cast<uint32_t>(data.size()));
    u16(cd, static_cast<uint32_t>(member.size()));
    u16(cd, 0);
    u16(cd, 0);
    u16(cd, 0);
    u16(cd, 0);
    u32(cd, 0);
    u32(cd, 0);
    cd += member;
    out += cd;
    u32(out, 0x06054b50);
    u16(out, 0);
    u16(out, 0);
    u16(out, 1);
    u16(out, 1);
    u32(out, static_cast<uint32_t>(cd.size()));
    u32(out, cdOff);
    u16(out, 0);
    return out;
}

TEST(ChromeEdge, ZipArchiveImportsItsTrace) {
    TS_REQUIRE_CORPUS();
    const std::string json = readAll(corpusFile("real/catapult/x_event_trace.json").string());
    const ExpectedCounts want = countJson(json);
    auto got = importInto((tempDir("zip") / "a.tscope").string(),
                          writeFile("zipin", "trace.zip", makeZip("dir/trace.json", json)));
    EXPECT_EQ(got.report.status, ts::store::SourceStatus::Complete) << got.report.error;
    EXPECT_EQ(got.report.events, want.events);
    EXPECT_EQ(got.report.slices, want.slices);
}

TEST(ChromeEdge, CancelLeavesTheSessionAsItWas) {
    TS_REQUIRE_CORPUS();
    const auto session = (tempDir("cancel") / "a.tscope").string();
    auto first = importInto(session, corpusFile("real/catapult/big_trace.json").string());
    ASSERT_EQ(first.report.status, ts::store::SourceStatus::Complete);
    auto& db = first.store->db();
    const int64_t slicesBefore = db.queryInt("SELECT count(*) FROM slices").value();
    const int64_t stringsBefore = db.queryInt("SELECT count(*) FROM strings").value();
    const int64_t argsBefore = db.queryInt("SELECT count(*) FROM args").value();
    // Cancelled midway: after the first chunk has been read and its events written.
    JobControl control;
    control.setDone(0);
    std::thread canceller([&] {
        while (control.done() == 0) std::this_thread::yield();
        control.cancel();
    });
    auto r = importers::importFile(corpusFile("generated/torch/torch_lenet5_medium.json").string(),
                                   *first.store, control);
    canceller.join();
    EXPECT_EQ(r.status, ts::store::SourceStatus::Cancelled);
    EXPECT_EQ(db.queryInt("SELECT count(*) FROM sources").value(), 1);
    EXPECT_EQ(db.queryInt("SELECT count(*) FROM slices").value(), slicesBefore);
    EXPECT_EQ(db.queryInt("SELECT count(*) FROM strings").value(), stringsBefore);
    EXPECT_EQ(db.queryInt("SELECT count(*) FROM args").value(), argsBefore);
    EXPECT_EQ(db.queryInt("SELECT count(*) FROM processes").value(),
              db.queryInt("SELECT count(*) FROM processes WHERE source_id = 1").value());
}

}  // namespace
}  // namespace ts::test

namespace ts::test {
namespace {

// args are stored as the file wrote them, also when they straddle the reader's 1 MiB
// chunks: an args object whose '{' is the last byte of a chunk, one whose '}' is, and many
// crossing boundaries at arbitrary places.
TEST(ChromeEdge, ArgsAcrossChunkBoundariesAreKeptExactly) {
    constexpr size_t kChunk = 1 << 20;
    std::vector<std::string> expected;
    std::string json = "[";
    auto event = [&](int i, const std::string& args) {
        std::string e = R"({"ph":"X","name":"n)" + std::to_string(i) +
                        R"(","pid":1,"tid":1,"ts":)" + std::to_string(i) + R"(,"dur":1,"args":)" +
                        args + "}";
        if (json.size() > 1) json += ",";
        json += e;
        expected.push_back(args);
    };
    // Pad with a filler so that the next event's args '{' lands on byte `at`.
    auto placeArgsAt = [&](size_t at, int i, const std::string& args) {
        const std::string head = R"({"ph":"X","name":"n)" + std::to_string(i) +
                                 R"(","pid":1,"tid":1,"ts":)" + std::to_string(i) +
                                 R"(,"dur":1,"args":)";
        const size_t fillerFixed =
            std::string(R"(,{"ph":"i","name":"","pid":1,"tid":1,"ts":0})").size();
        const size_t need = at - json.size() - 1 - head.size() - fillerFixed;
        json += R"(,{"ph":"i","name":")" + std::string(need, 'f') + R"(","pid":1,"tid":1,"ts":0})";
        event(i, args);
        EXPECT_EQ(json.find(args, at), at);
    };
    event(0, R"({"a":1})");
    placeArgsAt(kChunk - 1, 1, R"({"open":"at the end of chunk 1","n":12345678901234567890123})");
    const std::string closing = R"({"close":"}","x":[1,2,{"y":null}]})";
    placeArgsAt(2 * kChunk - closing.size(), 2, closing);  // its '}' is the chunk's last byte
    for (int i = 3; json.size() < 5 * kChunk; ++i)
        event(i, R"({ "k" : )" + std::to_string(i) + R"(, "pad": ")" +
                     std::string(static_cast<size_t>(i * 37 % 900), 'p') + R"(" })");
    json += "]";
    auto got = importInto((tempDir("chunks") / "a.tscope").string(),
                          writeFile("chunksin", "c.json", json));
    ASSERT_EQ(got.report.status, ts::store::SourceStatus::Complete) << got.report.error;
    std::vector<std::string> stored;
    store::Statement st = got.store->db().prepare("SELECT json FROM args ORDER BY id");
    while (st.step()) stored.push_back(st.text(0));
    EXPECT_EQ(stored, expected);
}

// A top-level key holding a quote, a backslash and a control character (a tab escaped in the
// file) is kept in sources.stats as valid JSON that decodes back to the key.
TEST(ChromeEdge, TopLevelKeysAreEscapedInTheSourceStats) {
    const std::string json =
        R"({"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1}],)"
        R"("say \"hi\"":1,"back\\slash":2,"tab\there":3})";
    auto got =
        importInto((tempDir("keys") / "a.tscope").string(), writeFile("keysin", "k.json", json));
    ASSERT_EQ(got.report.status, ts::store::SourceStatus::Complete) << got.report.error;
    auto& db = got.store->db();
    EXPECT_EQ(db.queryInt("SELECT json_valid(stats) FROM sources").value(), 1);
    EXPECT_EQ(db.queryInt("SELECT json_array_length(stats, '$.extra.top_level_keys') "
                          "FROM sources")
                  .value(),
              4);
    for (const char* key : {"say \"hi\"", "back\\slash", "tab\there"}) {
        auto st = db.prepare(
            "SELECT count(*) FROM sources, json_each(sources.stats, '$.extra.top_level_keys') "
            "WHERE json_each.value = ?");
        ASSERT_TRUE(st.ok()) << st.error();
        st.bind(1, key);
        ASSERT_TRUE(st.step()) << st.error();
        EXPECT_EQ(st.int64(0), 1) << key;
    }
}

}  // namespace
}  // namespace ts::test
