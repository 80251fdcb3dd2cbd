// import -> export (Chrome JSON) -> import keeps every slice, counter, instant and flow:
// not only their numbers but what they are (name, category, time, duration, depth, args;
// flows by the slices at both ends), over every trace of the corpus and the nsys export.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>

#include "chrome_test_util.h"
#include "core/export/chrome/chrome_export.h"
#include "tests/common/sql_rows.h"
#include "tests/common/test_support.h"

namespace ts::test {
namespace {

std::vector<std::string> rows(store::TraceStore& s, const std::string& sql) {
    std::vector<std::string> out = sqlRows(s.db(), sql);
    std::sort(out.begin(), out.end());
    return out;
}

// What must survive, as sorted text rows per kind.
const char* const kSlices =
    "SELECT n.str, coalesce(c.str, ''), s.ts, s.dur, s.depth, s.flags, coalesce(a.json, '{}'), "
    "t.kind = 'async' FROM slices s JOIN tracks t ON t.id = s.track_id JOIN strings n ON "
    "n.id = s.name_id LEFT JOIN strings c ON c.id = s.cat_id LEFT JOIN args a ON "
    "a.id = s.arg_set_id";
const char* const kCounters =
    "SELECT n.str, c.ts, c.value FROM counters c JOIN tracks t ON t.id = c.track_id JOIN "
    "strings n ON n.id = t.name_id";
const char* const kInstants =
    "SELECT n.str, i.ts, coalesce(i.scope, '') FROM instants i JOIN strings n ON "
    "n.id = i.name_id";
const char* const kFlows =
    "SELECT na.str, a.ts, a.dur, nb.str, b.ts, b.dur FROM flows f JOIN slices a ON "
    "a.id = f.slice_out JOIN slices b ON b.id = f.slice_in JOIN strings na ON "
    "na.id = a.name_id JOIN strings nb ON nb.id = b.name_id";
// Stack samples with their stack, leaf to root, as names.
const char* const kSamples =
    "WITH RECURSIVE up(sample, frame, path) AS (SELECT id, frame_id, '' FROM instants WHERE "
    "scope = 's' UNION ALL SELECT up.sample, f.parent_id, up.path || '<' || n.str FROM up JOIN "
    "stack_frames f ON f.id = up.frame JOIN strings n ON n.id = f.name_id) "
    "SELECT n.str, i.ts, (SELECT path FROM up WHERE up.sample = i.id AND up.frame IS NULL) "
    "FROM instants i JOIN strings n ON n.id = i.name_id WHERE i.scope = 's'";
const char* const kProcessNames = "SELECT coalesce(name, '') FROM processes";
const char* const kThreadNames = "SELECT name FROM threads WHERE name IS NOT NULL";
// A thread with several tracks (nsys: NVTX and CUDA API rows) goes out as one Chrome thread
// per track, named after the track: the Trace Event Format has one track per thread.
const char* const kThreadsWithOneTrack =
    "SELECT count(*) = 0 FROM (SELECT thread_id FROM tracks WHERE thread_id IS NOT NULL "
    "AND kind <> 'samples' GROUP BY thread_id HAVING count(*) > 1)";

void expectSame(store::TraceStore& a, store::TraceStore& b, const char* sql, const char* what) {
    const auto ra = rows(a, sql), rb = rows(b, sql);
    EXPECT_EQ(ra.size(), rb.size()) << what;
    if (ra == rb) return;
    for (size_t i = 0; i < std::min(ra.size(), rb.size()); ++i)
        if (ra[i] != rb[i]) {
            ADD_FAILURE() << what << " differ first at row " << i << ":\n  before: " << ra[i]
                          << "\n  after:  " << rb[i];
            return;
        }
}

std::vector<std::filesystem::path> traces() {
    std::vector<std::filesystem::path> out;
    for (const char* dir : {"real/catapult", "real/ascend", "real/hta", "real/kineto",
                            "real/mindspore", "real/perfetto", "real/nsys"})
        for (const auto& e : std::filesystem::directory_iterator(corpusFile(dir))) {
            const std::string name = e.path().filename().string();
            // the traces (JSON, gzip'd JSON, the Nsight export), not the MANIFESTs, origin
            // files or the profilers' CSV and text tables beside their timelines
            if (name == "origin.json") continue;
            if (name.ends_with(".json") || name.ends_with(".gz") || name.ends_with(".sqlite"))
                out.push_back(e.path());
        }
    out.push_back(corpusFile("generated/torch/torch_mlp_small.json"));
    std::sort(out.begin(), out.end());
    return out;
}

TEST(ChromeRoundTrip, ExportThenImportKeepsEverything) {
    TS_REQUIRE_CORPUS();
    const auto dir = tempDir("roundtrip");
    int i = 0;
    for (const auto& file : traces()) {
        SCOPED_TRACE(file.string());
        const std::string n = std::to_string(i++);
        auto first = importInto((dir / ("a" + n + ".tscope")).string(), file.string());
        ASSERT_TRUE(first.store);
        ASSERT_EQ(first.report.status, ts::store::SourceStatus::Complete) << first.report.error;
        const std::string json = (dir / ("e" + n + ".json")).string();
        auto exported = chrome_export::exportChromeTrace(*first.store, json, std::nullopt);
        ASSERT_TRUE(exported.ok()) << exported.error();
        auto second = importInto((dir / ("b" + n + ".tscope")).string(), json);
        ASSERT_EQ(second.report.status, ts::store::SourceStatus::Complete) << second.report.error;
        EXPECT_EQ(second.report.skipped, 0);
        EXPECT_EQ(second.report.slices, first.report.slices);
        EXPECT_EQ(second.report.asyncSlices, first.report.asyncSlices);
        EXPECT_EQ(second.report.counterSamples, first.report.counterSamples);
        EXPECT_EQ(second.report.instants, first.report.instants);
        EXPECT_EQ(second.report.marks, first.report.marks);
        EXPECT_EQ(second.report.samples, first.report.samples);
        EXPECT_EQ(second.report.flows, first.report.flows);
        expectSame(*first.store, *second.store, kSlices, "slices");
        expectSame(*first.store, *second.store, kCounters, "counters");
        expectSame(*first.store, *second.store, kInstants, "instants");
        expectSame(*first.store, *second.store, kFlows, "flows");
        expectSame(*first.store, *second.store, kSamples, "samples");
        expectSame(*first.store, *second.store, kProcessNames, "process names");
        if (first.store->db().queryInt(kThreadsWithOneTrack).value())
            expectSame(*first.store, *second.store, kThreadNames, "thread names");
    }
}

}  // namespace
}  // namespace ts::test
