// Every Chrome trace of the shared corpus imports, with counts equal to an independent
// count of its JSON (RapidJSON DOM walk) and to the rows in the store.
#include <gtest/gtest.h>

#include <filesystem>

#include "chrome_test_util.h"
#include "tests/common/test_support.h"

namespace ts::test {
namespace {

TEST(ChromeCorpus, EveryTraceImportsWithIndependentCounts) {
    TS_REQUIRE_CORPUS();
    const auto dir = tempDir("chrome_corpus");
    const auto files = corpusTraces();
    ASSERT_GE(files.size(), 30u);
    int i = 0;
    for (const auto& file : files) {
        SCOPED_TRACE(file.string());
        const ExpectedCounts want = countJson(readAll(file.string()));
        ASSERT_GT(want.events, 0);
        auto got =
            importInto((dir / ("s" + std::to_string(i++) + ".tscope")).string(), file.string());
        ASSERT_TRUE(got.store);
        const auto& r = got.report;
        EXPECT_EQ(r.status, ts::store::SourceStatus::Complete) << r.error;
        EXPECT_EQ(r.kind, "chrome_json");
        EXPECT_EQ(r.events, want.events);
        EXPECT_EQ(r.slices, want.slices);
        EXPECT_EQ(r.asyncSlices, want.asyncSlices);
        EXPECT_EQ(r.instants, want.instants);
        EXPECT_EQ(r.marks, want.marks);
        EXPECT_EQ(r.samples, want.samples);
        EXPECT_EQ(r.skippedReasons.count("json_missing_dur"), 0u);  // X without dur: kept
        EXPECT_EQ(r.counterSamples, want.counterSamples);
        EXPECT_EQ(r.flows, want.flows);
        EXPECT_LE(r.flows, want.flowPairs);
        EXPECT_EQ(r.processes, want.processes);
        EXPECT_EQ(r.threads, want.threads);
        if (want.tsMin <= want.tsMax) {
            EXPECT_EQ(r.tsMinNs.value_or(-1), want.tsMin);
            EXPECT_EQ(r.tsMaxNs.value_or(-1), want.tsMax);
        }
        auto& db = got.store->db();
        EXPECT_EQ(db.queryInt("SELECT count(*) FROM slices").value(), r.slices + r.asyncSlices);
        EXPECT_EQ(db.queryInt("SELECT count(*) FROM instants").value(),
                  r.instants + r.marks + r.samples);
        EXPECT_EQ(db.queryInt("SELECT count(*) FROM instants WHERE scope = 's'").value(),
                  r.samples);
        EXPECT_EQ(db.queryInt("SELECT count(*) FROM counters").value(), r.counterSamples);
        EXPECT_EQ(db.queryInt("SELECT count(*) FROM flows").value(), r.flows);
        EXPECT_EQ(db.queryInt("SELECT count(*) FROM import_log").value(), r.skipped);
        // depth is consistent: every slice at depth d > 0 lies inside one at depth d - 1
        // (checked on the smaller files: the query is quadratic per track)
        if (r.slices < 20000) {
            EXPECT_EQ(
                db.queryInt("SELECT count(*) FROM slices s WHERE depth > 0 AND NOT EXISTS ("
                            "SELECT 1 FROM slices p WHERE p.track_id = s.track_id AND "
                            "p.depth = s.depth - 1 AND p.ts <= s.ts AND p.ts + p.dur >= s.ts)")
                    .value(),
                0);
        }
    }
}

TEST(ChromeCorpus, AscendStringTimestampsAreExactToTheNanosecond) {
    TS_REQUIRE_CORPUS();
    const auto file = corpusFile("real/ascend/trace_view.json");
    rapidjson::Document d;
    const std::string text = readAll(file.string());
    d.Parse<rapidjson::kParseNumbersAsStringsFlag>(text.c_str());
    std::string firstTs;
    for (const auto& e : d.GetArray())
        if (e.HasMember("ph") && std::string(e["ph"].GetString()) == "X" && e["ts"].IsString()) {
            firstTs = e["ts"].GetString();
            break;
        }
    ASSERT_FALSE(firstTs.empty());
    // "1704161511420306.491" -> 1704161511420306491 by string surgery, not arithmetic
    const size_t dot = firstTs.find('.');
    std::string digits =
        firstTs.substr(0, dot) + (dot == std::string::npos ? "" : firstTs.substr(dot + 1));
    digits.append(3 - (dot == std::string::npos ? 0 : firstTs.size() - dot - 1), '0');
    const int64_t want = std::stoll(digits);
    auto got = importInto((tempDir("ascend") / "a.tscope").string(), file.string());
    ASSERT_EQ(got.report.status, ts::store::SourceStatus::Complete);
    EXPECT_EQ(got.store->db()
                  .queryInt("SELECT count(*) FROM slices WHERE ts = " + std::to_string(want))
                  .value(),
              1);
    EXPECT_NE(want % 1000, 0);  // the fraction really is there
}

TEST(ChromeCorpus, BareGzipAndObjectFormImport) {
    TS_REQUIRE_CORPUS();
    auto got = importInto((tempDir("baregz") / "a.tscope").string(),
                          corpusFile("real/catapult/simple_trace_gz.gz").string());
    EXPECT_EQ(got.report.status, ts::store::SourceStatus::Complete);
    EXPECT_EQ(got.report.events, 35);
    EXPECT_EQ(got.report.slices, 12);
    EXPECT_EQ(
        got.store->db()
            .queryInt("SELECT count(*) FROM sources WHERE stats LIKE '%\"wrapper\":\"gzip\"%'")
            .value(),
        1);
}

}  // namespace
}  // namespace ts::test
