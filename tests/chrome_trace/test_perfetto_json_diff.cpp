// Perfetto's trace_processor diff tests for JSON traces (test/trace_processor/diff_tests/
// parser/json/tests.py in Perfetto's public sources, Apache-2.0; the small JSON inputs below
// are adapted from them): the same slices, names, durations and depths they expect, where
// our model has the concept. Where we differ on purpose the test says so and checks what we
// do instead (docs/IMPORT.md, "Where we differ from Perfetto").
#include <gtest/gtest.h>

#include <fstream>

#include "chrome_test_util.h"
#include "tests/common/sql_rows.h"
#include "tests/common/test_support.h"

namespace ts::test {
namespace {

Imported importJson(const std::string& tag, const std::string& text) {
    const auto dir = tempDir("perfetto_" + tag);
    const auto path = dir / "trace.json";
    std::ofstream(path, std::ios::binary) << text;
    return importInto((dir / "s.tscope").string(), path.string());
}

// ts|dur|name|depth|flags| per slice, in (ts, depth) order.
const char* const kSlices =
    "SELECT s.ts, s.dur, n.str, s.depth, s.flags FROM slices s JOIN strings n ON "
    "n.id = s.name_id ORDER BY s.ts, s.depth";

using Rows = std::vector<std::string>;

TEST(PerfettoJsonDiff, StringPidTid) {
    // ph "XXX" reads as X; pid and tid may be strings
    auto got = importJson("string_pid_tid", R"({"traceEvents":[{"pid":"foo","tid":"bar",
        "ts":5.1,"dur":500.1,"name":"name.exec","ph":"XXX","cat":"aaa"}]})");
    ASSERT_EQ(got.report.status, ts::store::SourceStatus::Complete) << got.report.error;
    EXPECT_EQ(sqlRows(got.store->db(),
                      "SELECT s.ts, s.dur, n.str, p.pid, th.tid FROM slices s JOIN strings n ON "
                      "n.id = s.name_id JOIN tracks t ON t.id = s.track_id JOIN threads th ON "
                      "th.id = t.thread_id JOIN processes p ON p.id = th.process_id"),
              Rows{"5100|500100|name.exec|foo|bar|"});
}

TEST(PerfettoJsonDiff, ArgsOrderedWithTrailingCommas) {
    // Perfetto accepts trailing commas; so do we, and store the args as strict JSON, in
    // the order the file wrote them
    auto got = importJson("args_ordered", R"([
      {"name":"Event1","cat":"C","ph":"b","ts":40000,"pid":1,"id":1,"args":{"02.step2":2,}},
      {"name":"Event2","cat":"C","ph":"b","ts":40000,"pid":2,"id":1,
       "args":{"01.step1":1,"02.step2":2,}},
    ])");
    ASSERT_EQ(got.report.status, ts::store::SourceStatus::Complete) << got.report.error;
    EXPECT_EQ(sqlRows(got.store->db(),
                      "SELECT n.str, j.key, j.value FROM slices s JOIN strings n ON "
                      "n.id = s.name_id JOIN args a ON a.id = s.arg_set_id, json_each(a.json) j "
                      "ORDER BY s.id, j.id"),
              (Rows{"Event1|02.step2|2|", "Event2|01.step1|1|", "Event2|02.step2|2|"}));
}

TEST(PerfettoJsonDiff, XEventOrder) {
    // the child comes first in the file and has no tid: the process's main thread (tid =
    // pid), as Perfetto reads it, so it nests under the parent
    auto got = importJson("x_event_order", R"([
      {"name":"Child","ph":"X","ts":1,"dur":5,"pid":1},
      {"name":"Parent","ph":"X","ts":1,"dur":10,"pid":1,"tid":1}])");
    ASSERT_EQ(got.report.status, ts::store::SourceStatus::Complete) << got.report.error;
    EXPECT_EQ(sqlRows(got.store->db(), kSlices),
              (Rows{"1000|10000|Parent|0|0|", "1000|5000|Child|1|0|"}));
}

TEST(PerfettoJsonDiff, Incomplete) {
    auto got = importJson("incomplete",
                          "[\n"
                          R"({"name":"typecheck","ph":"X","ts":4619295550.000,)"
                          R"("dur":8000.000,"pid":306339,"tid":3},)"
                          "\n");
    ASSERT_EQ(got.report.status, ts::store::SourceStatus::Complete)
        << got.report.error;  // the array may stay open
    EXPECT_EQ(sqlRows(got.store->db(), "SELECT ts FROM slices"), Rows{"4619295550000|"});
}

const char* const kAllSliceTypes = R"([
  {"ph":"B","pid":10,"tid":11,"ts":100,"name":"BeginEvent","cat":"cat1",
   "args":{"arg_str":"hello","arg_int":123,"arg_bool":true}},
  {"ph":"E","pid":10,"tid":11,"ts":200,"name":"EndEvent","cat":"cat1","tts":190,
   "args":{"arg_double":45.67}},
  {"ph":"X","pid":10,"tid":12,"ts":250,"dur":50,"name":"CompleteEvent","cat":"cat2,cat3",
   "tts":240,"tdur":40,"args":{"arg_null":null,"another_int":-5}},
  {"ph":"I","pid":10,"tid":11,"ts":300,"name":"InstantGlobal","cat":"cat_inst","s":"g","args":{}},
  {"ph":"I","pid":10,"tid":0,"ts":310,"name":"InstantProcess","cat":"cat_inst","s":"p",
   "args":{"scope_val":"process"}},
  {"ph":"I","pid":10,"tid":11,"ts":320,"name":"InstantThread","cat":"cat_inst","s":"t"},
  {"ph":"I","pid":10,"tid":12,"ts":330,"name":"InstantDefaultScope","cat":"cat_inst"},
  {"ph":"R","pid":10,"tid":11,"ts":340,"name":"InstantR","cat":"cat_inst","s":"g"},
  {"ph":"i","pid":10,"tid":11,"ts":350,"name":"Instanti","cat":"cat_inst","s":"t"}
])";

TEST(PerfettoJsonDiff, AllSliceTypes) {
    auto got = importJson("all_slice_types", kAllSliceTypes);
    ASSERT_EQ(got.report.status, ts::store::SourceStatus::Complete) << got.report.error;
    auto& db = got.store->db();
    // Perfetto leaves BeginEvent open (dur -1): its E names another event. We close the
    // innermost B of the thread whatever the E's name says, as chrome://tracing does.
    EXPECT_EQ(sqlRows(db, kSlices),
              (Rows{"100000|100000|BeginEvent|0|0|", "250000|50000|CompleteEvent|0|0|"}));
    EXPECT_EQ(sqlRows(db,
                      "SELECT a.json FROM slices s JOIN args a ON a.id = s.arg_set_id ORDER BY "
                      "s.ts"),
              (Rows{R"({"arg_str":"hello","arg_int":123,"arg_bool":true}|)",
                    R"({"arg_null":null,"another_int":-5}|)"}));
    // instants: thread (t), process (p), global (g); R is a mark on its thread (Perfetto puts
    // an R with "s":"g" on the global track)
    EXPECT_EQ(sqlRows(db,
                      "SELECT i.ts, n.str, i.scope, coalesce(th.tid, '-') FROM instants i JOIN "
                      "strings n ON n.id = i.name_id JOIN tracks t ON t.id = i.track_id LEFT "
                      "JOIN threads th ON th.id = t.thread_id ORDER BY i.ts"),
              (Rows{"300000|InstantGlobal|g|-|", "310000|InstantProcess|p|-|",
                    "320000|InstantThread|t|11|", "330000|InstantDefaultScope|t|12|",
                    "340000|InstantR|m|11|", "350000|Instanti|t|11|"}));
}

TEST(PerfettoJsonDiff, Metadata) {
    auto got = importJson("metadata", R"([
      {"ph":"B","pid":30,"tid":31,"ts":790,"name":"ActivityOnThread31","cat":"test_cat_setup"},
      {"ph":"C","pid":30,"tid":31,"ts":800,"name":"MyCounters","cat":"stats",
       "id":"counter_group_1","args":{"counter1_float":100.5,"counter2_int":-50,
       "counter3_str_num":"25.7"}},
      {"ph":"E","pid":30,"tid":31,"ts":815,"name":"ActivityOnThread31","cat":"test_cat_setup"},
      {"ph":"C","pid":30,"tid":31,"ts":810,"name":"EmptyArgsCounter","cat":"stats","args":{}},
      {"ph":"C","pid":30,"tid":31,"ts":820,"name":"NoArgsCounter","cat":"stats"},
      {"ph":"M","pid":30,"tid":0,"ts":830,"name":"process_name","cat":"__metadata",
       "args":{"name":"MyProcess30"}},
      {"ph":"M","pid":30,"tid":31,"ts":840,"name":"thread_name","cat":"__metadata",
       "args":{"name":"MyRevisedThread31Name"}},
      {"ph":"M","pid":30,"tid":0,"ts":850,"name":"process_sort_index","cat":"__metadata",
       "args":{"sort_index":-2}},
      {"ph":"M","pid":30,"tid":31,"ts":860,"name":"thread_sort_index","cat":"__metadata",
       "args":{"sort_index":5}},
      {"ph":"B","pid":30,"tid":32,"ts":900,"name":"EventMissingCatAndArgs"},
      {"ph":"E","pid":30,"tid":32,"ts":950},
      {"ph":"X","pid":33,"ts":960,"dur":10,"name":"PidOnlyEvent","cat":"special_pids"},
      {"ph":"X","ts":970,"dur":10,"name":"NoPidNoTidEvent","cat":"special_pids"}
    ])");
    ASSERT_EQ(got.report.status, ts::store::SourceStatus::Complete) << got.report.error;
    auto& db = got.store->db();
    // Perfetto gives the event without pid pid 0 and tid 0; we keep "no pid" apart from a
    // real pid 0 (the empty pid), and its tid is its pid.
    EXPECT_EQ(sqlRows(db,
                      "SELECT s.ts, s.dur, n.str, coalesce(th.name, 'NULL'), th.tid, "
                      "coalesce(p.name, 'NULL'), p.pid FROM slices s JOIN strings n ON "
                      "n.id = s.name_id JOIN tracks t ON t.id = s.track_id JOIN threads th ON "
                      "th.id = t.thread_id JOIN processes p ON p.id = th.process_id ORDER BY s.ts"),
              (Rows{"790000|25000|ActivityOnThread31|MyRevisedThread31Name|31|MyProcess30|30|",
                    "900000|50000|EventMissingCatAndArgs|NULL|32|MyProcess30|30|",
                    "960000|10000|PidOnlyEvent|NULL|33|NULL|33|",
                    "970000|10000|NoPidNoTidEvent|NULL||NULL||"}));
    EXPECT_EQ(db.queryInt("SELECT sort_index FROM processes WHERE pid = '30'").value(), -2);
    EXPECT_EQ(db.queryInt("SELECT sort_index FROM threads WHERE tid = '31'").value(), 5);
    // the string counter value that is a number counts, as in Perfetto; empty counters none
    EXPECT_EQ(sqlRows(db,
                      "SELECT n.str, c.value FROM counters c JOIN tracks t ON t.id = c.track_id "
                      "JOIN strings n ON n.id = t.name_id ORDER BY n.str"),
              (Rows{"MyCounters counter_group_1 counter1_float|100.5|",
                    "MyCounters counter_group_1 counter2_int|-50.0|",
                    "MyCounters counter_group_1 counter3_str_num|25.7|"}));
    EXPECT_EQ(got.report.skippedReasons.at("json_counter_without_values"), 2);
}

TEST(PerfettoJsonDiff, ExtremeValues) {
    auto got = importJson("extreme_vals", R"([
      {"ph":"X","pid":100,"tid":101,"ts":1000,"name":"CompleteNoDur","cat":"test_missing"},
      {"ph":"B","pid":100,"tid":102,"ts":1100,"name":"BeginNoTTS","cat":"test_missing"},
      {"ph":"E","pid":100,"tid":102,"ts":1200,"name":"EndNoTTS","cat":"test_missing"},
      {"ph":"X","pid":100,"tid":103,"ts":1300,"dur":50,"name":"CompleteNoTDUR",
       "cat":"test_missing","tts":1290}])");
    ASSERT_EQ(got.report.status, ts::store::SourceStatus::Complete) << got.report.error;
    // Perfetto drops CompleteNoDur; we keep it as chrome://tracing does: unfinished (flags
    // 1), to the end of its thread's data (its own ts here). BeginNoTTS: see AllSliceTypes.
    EXPECT_EQ(sqlRows(got.store->db(), kSlices),
              (Rows{"1000000|0|CompleteNoDur|0|1|", "1100000|100000|BeginNoTTS|0|0|",
                    "1300000|50000|CompleteNoTDUR|0|0|"}));
    EXPECT_EQ(got.report.slices, 3);
}

TEST(PerfettoJsonDiff, AsyncWithMissingCatOrEmptyId) {
    // Perfetto's thread/process slice query shows none of these; we keep each as an async
    // slice on its (process, cat, id) track
    auto got = importJson("async", R"([
      {"ph":"b","pid":200,"tid":201,"ts":2000,"name":"AsyncMissingCat","id":"flow1"},
      {"ph":"e","pid":200,"tid":201,"ts":2100,"name":"AsyncMissingCat","id":"flow1"},
      {"ph":"b","pid":200,"tid":202,"ts":2200,"name":"AsyncEmptyStringId","cat":"category2","id":""},
      {"ph":"e","pid":200,"tid":202,"ts":2300,"name":"AsyncEmptyStringId","cat":"category2","id":""},
      {"ph":"b","pid":200,"tid":203,"ts":2400,"name":"AsyncMissingCatEmptyStringId","id":""},
      {"ph":"e","pid":200,"tid":203,"ts":2500,"name":"AsyncMissingCatEmptyStringId","id":""}])");
    ASSERT_EQ(got.report.status, ts::store::SourceStatus::Complete) << got.report.error;
    EXPECT_EQ(sqlRows(got.store->db(), kSlices),
              (Rows{"2000000|100000|AsyncMissingCat|0|0|", "2200000|100000|AsyncEmptyStringId|0|0|",
                    "2400000|100000|AsyncMissingCatEmptyStringId|0|0|"}));
    EXPECT_EQ(got.store->db().queryInt("SELECT count(*) FROM tracks WHERE kind = 'async'").value(),
              3);
}

TEST(PerfettoJsonDiff, CounterStringValues) {
    auto got = importJson("counter_args", R"([{"ph":"C","pid":300,"tid":301,"ts":3000,
      "name":"CounterStringEdgeCases","cat":"counters_str","args":{"leading_dot":".75",
      "trailing_dot":"246.","leading_zero_float":"01.23","leading_zero_int_str":"050",
      "incomplete_exp":"1.5e","exp_no_digit":"2e+","just_dot":".","plus_val":"+10.5",
      "just_plus":"+","just_minus":"-"}}])");
    ASSERT_EQ(got.report.status, ts::store::SourceStatus::Complete) << got.report.error;
    EXPECT_EQ(sqlRows(got.store->db(),
                      "SELECT p.pid, n.str, c.value FROM counters c JOIN tracks t ON "
                      "t.id = c.track_id JOIN strings n ON n.id = t.name_id JOIN processes p ON "
                      "p.id = t.process_id ORDER BY n.str"),
              (Rows{"300|CounterStringEdgeCases leading_dot|0.75|",
                    "300|CounterStringEdgeCases leading_zero_float|1.23|",
                    "300|CounterStringEdgeCases leading_zero_int_str|50.0|",
                    "300|CounterStringEdgeCases plus_val|10.5|",
                    "300|CounterStringEdgeCases trailing_dot|246.0|"}));
}

TEST(PerfettoJsonDiff, TrailingCommaInTheEventsArray) {
    auto got = importJson("trailing_comma", R"({"displayTimeUnit":"ms","traceEvents":[
      {"name":"Foo","ph":"X","tid":0,"ts":3473608.458,"dur":295555.500},
      {"name":"Bar","ph":"X","tid":0,"ts":4890.000,"dur":3764289.708},
      ]})");
    ASSERT_EQ(got.report.status, ts::store::SourceStatus::Complete) << got.report.error;
    // displayTimeUnit changes how a viewer shows times, not what ts means (microseconds)
    EXPECT_EQ(sqlRows(got.store->db(),
                      "SELECT n.str, s.ts, s.dur FROM slices s JOIN strings n ON "
                      "n.id = s.name_id ORDER BY s.ts"),
              (Rows{"Bar|4890000|3764289708|", "Foo|3473608458|295555500|"}));
}

TEST(PerfettoJsonDiff, Id2) {
    auto got = importJson("id2", R"([
      {"ph":"b","pid":400,"tid":401,"ts":4000,"name":"AsyncId2StandardGlobalKey","cat":"id2test",
       "id2":{"global":"standard_global_id_1"}},
      {"ph":"e","pid":400,"tid":401,"ts":4100,"name":"AsyncId2StandardGlobalKey","cat":"id2test",
       "id2":{"global":"standard_global_id_1"}},
      {"ph":"b","pid":400,"tid":402,"ts":4200,"name":"AsyncId2EmptyGlobalKey","cat":"id2test",
       "id2":{"":"empty_key_global_id_2"}},
      {"ph":"e","pid":400,"tid":402,"ts":4300,"name":"AsyncId2EmptyGlobalKey","cat":"id2test",
       "id2":{"":"empty_key_global_id_2"}}])");
    ASSERT_EQ(got.report.status, ts::store::SourceStatus::Complete) << got.report.error;
    EXPECT_EQ(sqlRows(got.store->db(), kSlices),
              (Rows{"4000000|100000|AsyncId2StandardGlobalKey|0|0|",
                    "4200000|100000|AsyncId2EmptyGlobalKey|0|0|"}));
}

}  // namespace
}  // namespace ts::test
