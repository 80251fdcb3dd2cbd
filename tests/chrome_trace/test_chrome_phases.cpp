// Chrome JSON importer: the phases chrome://tracing keeps that the importer used to skip —
// X without dur (an unfinished slice), R (mark), p (async step past), c (clock sync), P and
// the top-level samples + stackFrames (a sample track with resolved stacks).
#include <gtest/gtest.h>

#include <fstream>

#include "chrome_test_util.h"
#include "tests/common/sql_rows.h"
#include "tests/common/test_support.h"

namespace ts::test {
namespace {

std::string writeTrace(const std::string& tag, const std::string& text) {
    const auto path = tempDir(tag) / "t.json";
    std::ofstream(path, std::ios::binary) << text;
    return path.string();
}

Imported importText(const std::string& tag, const std::string& text) {
    return importInto((tempDir(tag + "_s") / "a.tscope").string(), writeTrace(tag, text));
}

int64_t sliceInt(store::SqliteDb& db, const std::string& column, const std::string& name) {
    auto r = db.queryInt("SELECT " + column +
                             " FROM slices s JOIN strings n ON n.id = s.name_id WHERE n.str = '" +
                             name + "'",
                         -1);
    return r ? r.value() : -2;
}

TEST(ChromePhases, XWithoutDurIsAnUnfinishedSliceToTheEndOfItsThread) {
    auto got = importText("xnodur", R"([
      {"ph":"X","name":"cut","pid":1,"tid":1,"ts":10},
      {"ph":"X","name":"child","pid":1,"tid":1,"ts":12,"dur":3},
      {"ph":"X","name":"nulldur","pid":1,"tid":2,"ts":5,"dur":null},
      {"ph":"i","name":"last","pid":1,"tid":1,"ts":40},
      {"ph":"X","name":"textdur","pid":1,"tid":1,"ts":20,"dur":"soon"},
      {"ph":"X","name":"negative","pid":1,"tid":1,"ts":20,"dur":-1}
    ])");
    const auto& r = got.report;
    ASSERT_EQ(r.status, ts::store::SourceStatus::Complete) << r.error;
    EXPECT_EQ(r.slices, 3);
    EXPECT_EQ(r.skippedReasons.count("json_missing_dur"), 1u);  // "soon" is no duration
    EXPECT_EQ(r.skippedReasons.at("json_negative_dur"), 1);
    auto& db = got.store->db();
    EXPECT_EQ(sliceInt(db, "dur", "cut"), 30000);  // to the instant at 40 us
    EXPECT_EQ(sliceInt(db, "flags", "cut"), 1);
    EXPECT_EQ(sliceInt(db, "depth", "child"), 1);  // nests under the unfinished slice
    EXPECT_EQ(sliceInt(db, "flags", "child"), 0);
    EXPECT_EQ(sliceInt(db, "dur", "nulldur"), 0);  // nothing else on its thread
    EXPECT_EQ(sliceInt(db, "flags", "nulldur"), 1);
    EXPECT_EQ(r.tsMaxNs.value_or(0), 40000);
}

TEST(ChromePhases, MarksAreInstantsOnTheirThread) {
    auto got = importText("marks", R"([
      {"ph":"X","name":"work","pid":1,"tid":1,"ts":0,"dur":10},
      {"ph":"R","name":"navigationStart","cat":"blink.user_timing","pid":1,"tid":1,"ts":3},
      {"ph":"R","name":"global?","pid":1,"tid":2,"ts":4,"s":"g"}
    ])");
    ASSERT_EQ(got.report.status, ts::store::SourceStatus::Complete) << got.report.error;
    EXPECT_EQ(got.report.marks, 2);
    EXPECT_EQ(got.report.instants, 0);
    EXPECT_EQ(got.report.skipped, 0);
    auto& db = got.store->db();
    EXPECT_EQ(db.queryInt("SELECT count(*) FROM instants i JOIN tracks t ON t.id = i.track_id "
                          "WHERE i.scope = 'm' AND t.kind = 'thread' AND t.thread_id IS NOT NULL")
                  .value(),
              2);
}

TEST(ChromePhases, StepPastCoversTheStepBeforeIt) {
    auto got = importText("steppast", R"([
      {"ph":"S","name":"load","cat":"net","id":7,"pid":1,"tid":1,"ts":10},
      {"ph":"T","name":"load","cat":"net","id":7,"pid":1,"tid":1,"ts":20,"args":{"step":"a"}},
      {"ph":"p","name":"load","cat":"net","id":7,"pid":1,"tid":1,"ts":35,"args":{"step":"b"}},
      {"ph":"F","name":"load","cat":"net","id":7,"pid":1,"tid":1,"ts":40}
    ])");
    ASSERT_EQ(got.report.status, ts::store::SourceStatus::Complete) << got.report.error;
    EXPECT_EQ(got.report.asyncSlices, 3);
    EXPECT_EQ(got.report.skipped, 0);
    auto rows = got.store->db().prepare(
        "SELECT ts, dur, depth FROM slices s JOIN args a ON a.id = s.arg_set_id "
        "WHERE a.json LIKE '%\"b\"%'");
    ASSERT_TRUE(rows.step());
    EXPECT_EQ(rows.int64(0), 20000);  // from the step before (T at 20 us) ...
    EXPECT_EQ(rows.int64(1), 15000);  // ... to its own time (35 us)
    EXPECT_EQ(rows.int64(2), 1);      // inside the S..F slice
}

TEST(ChromePhases, PEventsAndGlobalSamplesResolveTheirStacks) {
    auto got = importText("samples", R"({"traceEvents":[
      {"ph":"X","name":"run","pid":5,"tid":9,"ts":0,"dur":100},
      {"ph":"P","name":"cpu","cat":"SAMPLE","pid":5,"tid":9,"ts":10,"sf":"3"},
      {"ph":"P","name":"cpu","pid":5,"tid":9,"ts":20,"stack":["main","loop","0x1f"]},
      {"ph":"P","name":"cpu","pid":5,"tid":9,"ts":30,"stack":["main","loop"]},
      {"ph":"P","name":"nostack","pid":5,"tid":9,"ts":40}
    ],
    "samples":[{"cpu":0,"tid":9,"ts":50.5,"name":"cycles:HG","sf":"2","weight":1},
               {"cpu":1,"tid":77,"ts":60,"name":"cycles:HG","sf":"9"}, 3, [1]],
    "stackFrames":{"1":{"category":"libc.so","name":"main"},
                   "2":{"category":"app","name":"loop","parent":"1"},
                   "3":{"name":"leaf","parent":2},
                   "8":{"name":"a","parent":"9"}, "9":{"name":"b","parent":"8"}, "x":7}})");
    const auto& r = got.report;
    ASSERT_EQ(r.status, ts::store::SourceStatus::Complete) << r.error;
    EXPECT_EQ(r.events, 5);  // the events array only
    EXPECT_EQ(r.samples, 6);
    EXPECT_EQ(r.skipped, 0);
    EXPECT_EQ(r.threads, 2);  // tid 77 is no thread of the events: a thread of its own
    EXPECT_EQ(r.tsMaxNs.value_or(0), 100000);
    auto& db = got.store->db();
    // every sample on its thread's samples track, as an instant of scope 's'
    EXPECT_EQ(db.queryInt("SELECT count(*) FROM instants i JOIN tracks t ON t.id = i.track_id "
                          "JOIN threads th ON th.id = t.thread_id WHERE t.kind = 'samples' AND "
                          "i.scope = 's' AND th.tid = '9'")
                  .value(),
              5);
    // stacks, leaf to root
    const auto stacks = sqlRows(
        db,
        "WITH RECURSIVE up(sample, frame, path) AS (SELECT id, frame_id, '' FROM instants "
        "WHERE scope = 's' UNION ALL SELECT up.sample, f.parent_id, up.path || '<' || n.str "
        "FROM up JOIN stack_frames f ON f.id = up.frame JOIN strings n ON n.id = f.name_id) "
        "SELECT i.ts, (SELECT path FROM up WHERE up.sample = i.id AND up.frame IS NULL) FROM "
        "instants i WHERE scope = 's' ORDER BY i.ts");
    EXPECT_EQ(stacks, (std::vector<std::string>{"10000|<leaf<loop<main|", "20000|<0x1f<loop<main|",
                                                "30000|<loop<main|", "40000||", "50500|<loop<main|",
                                                "60000|<b<a|"}));
    // shared stack prefixes are one frame each: main, loop, leaf, the stack array's main,
    // loop, 0x1f, and the cycle's two frames
    EXPECT_EQ(db.queryInt("SELECT count(*) FROM stack_frames").value(), 8);
    EXPECT_EQ(db.queryInt("SELECT count(*) FROM stack_frames f JOIN strings c ON c.id = f.cat_id "
                          "WHERE c.str = 'libc.so'")
                  .value(),
              1);
}

TEST(ChromePhases, ClockSyncsAreKeptAndAlignSourcesSharingAnId) {
    const auto dir = tempDir("clocksync");
    const std::string session = (dir / "s.tscope").string();
    // The issuer saw the sync between 100 and 110 us (its point: 105); the other agent
    // recorded it at 1005 us on its own clock: the second source moves by -900 us.
    const std::string a = writeTrace("clock_a", R"([
      {"ph":"X","name":"a","pid":1,"tid":1,"ts":100,"dur":20},
      {"ph":"c","name":"clock_sync","pid":1,"tid":1,"ts":110,"args":{"sync_id":"abc","issue_ts":100}}
    ])");
    const std::string b = writeTrace("clock_b", R"([
      {"ph":"X","name":"b","pid":2,"tid":2,"ts":1000,"dur":20},
      {"ph":"i","name":"bi","pid":2,"tid":2,"ts":1001},
      {"ph":"C","name":"bc","pid":2,"ts":1002,"args":{"v":1}},
      {"ph":"c","name":"clock_sync","pid":2,"tid":2,"ts":1005,"args":{"sync_id":"abc"}}
    ])");
    auto s = store::TraceStore::open(session, store::TraceStore::Mode::Create);
    ASSERT_TRUE(s) << s.error();
    JobControl control;
    const auto ra = importers::importFile(a, *s.value(), control);
    const auto rb = importers::importFile(b, *s.value(), control);
    ASSERT_EQ(ra.status, ts::store::SourceStatus::Complete) << ra.error;
    ASSERT_EQ(rb.status, ts::store::SourceStatus::Complete) << rb.error;
    EXPECT_EQ(rb.tsMinNs.value_or(0), 100000);
    auto& db = s.value()->db();
    EXPECT_EQ(sliceInt(db, "ts", "b"), 100000);
    EXPECT_EQ(db.queryInt("SELECT ts FROM instants WHERE scope = 't'").value(), 101000);
    EXPECT_EQ(db.queryInt("SELECT ts FROM counters").value(), 102000);
    EXPECT_EQ(db.queryInt("SELECT count(*) FROM clock_syncs WHERE sync_id = 'abc'").value(), 2);
    EXPECT_EQ(
        db.queryInt("SELECT ts FROM clock_syncs WHERE source_id = " + std::to_string(rb.sourceId))
            .value(),
        105000);
    EXPECT_EQ(db.queryInt("SELECT json_extract(stats, '$.extra.clock_alignment.offset_ns') FROM "
                          "sources WHERE id = " +
                          std::to_string(rb.sourceId))
                  .value(),
              -900000);
}

TEST(ChromePhases, StringCounterValuesThatAreNumbersCount) {
    auto got = importText("strcounter", R"([
      {"ph":"C","name":"c","pid":1,"ts":1,"args":{"a":".75","b":"246.","c":"+10.5","d":"1.5e",
       "e":".","f":"-","g":"x","h":3}}
    ])");
    ASSERT_EQ(got.report.status, ts::store::SourceStatus::Complete) << got.report.error;
    EXPECT_EQ(got.report.counterSamples, 4);
}

TEST(ChromePhases, MissingTidMeansTheMainThreadEvenWhenEventSlotsAreReused) {
    // More events than the pipe holds at once, so event slots are reused: an event without
    // a tid must not take the tid of an earlier event in the same slot.
    std::string json = "[";
    for (int i = 0; i < 6000; ++i)
        json += R"({"ph":"X","name":"a","pid":1,"tid":)" + std::to_string(100 + i % 3) +
                R"(,"ts":)" + std::to_string(i * 10) + R"(,"dur":1},)";
    json += R"({"ph":"X","name":"child","pid":1,"ts":70000,"dur":5},)";
    json += R"({"ph":"X","name":"parent","pid":1,"tid":1,"ts":70000,"dur":10}])";
    auto got = importText("notid", json);
    ASSERT_EQ(got.report.status, ts::store::SourceStatus::Complete) << got.report.error;
    EXPECT_EQ(got.report.threads, 4);
    auto& db = got.store->db();
    EXPECT_EQ(sliceInt(db, "depth", "child"), 1);
    EXPECT_EQ(sliceInt(db, "depth", "parent"), 0);
}

}  // namespace
}  // namespace ts::test
