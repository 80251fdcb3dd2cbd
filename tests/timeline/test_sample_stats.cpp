// Sample statistics: the bottom-up table of stack samples (self and total per function,
// recursion counted once per sample), over the session and a time range, and as CSV; and
// `trainscope-cli stats --samples`.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "core/timeline/sample_stats.h"
#include "core/timeline/timeline_model.h"
#include "tests/common/test_support.h"
#include "tests/timeline/sample_fixture.h"

namespace ts::timeline {
namespace {

const SampleStatsRow* sampleRow(const SampleStats& s, const std::string& name) {
    for (const auto& r : s.rows)
        if (r.name == name) return &r;
    return nullptr;
}

TEST(SampleStats, SelfAndTotalPerFunction) {
    const std::string session = test::writeSampleSession("sample_stats");
    auto s = computeSampleStats(session, {});
    ASSERT_TRUE(s) << s.error();
    const SampleStats& st = s.value();
    EXPECT_EQ(st.samples, 7);
    EXPECT_EQ(st.withoutStack, 1);
    ASSERT_EQ(st.rows.size(), 4u);
    EXPECT_EQ(st.rows[0].name, "leaf");  // by self, descending
    EXPECT_EQ(st.rows[0].category, "libm");
    const auto* leaf = sampleRow(st, "leaf");
    const auto* loop = sampleRow(st, "loop");
    const auto* recurse = sampleRow(st, "recurse");
    const auto* main = sampleRow(st, "main");
    ASSERT_TRUE(leaf && loop && recurse && main);
    EXPECT_EQ(leaf->self, 3);
    EXPECT_EQ(leaf->total, 3);
    EXPECT_EQ(loop->self, 1);
    EXPECT_EQ(loop->total, 6);
    EXPECT_EQ(recurse->self, 2);
    EXPECT_EQ(recurse->total, 2);  // twice in its stacks, once per sample
    EXPECT_EQ(main->self, 0);
    EXPECT_EQ(main->total, 6);
    EXPECT_NEAR(loop->totalPercent, 100.0 * 6 / 7, 1e-9);
    const std::string csv = sampleStatsCsv(st);
    EXPECT_EQ(csv.substr(0, csv.find('\n')), "name,category,self,self_percent,total,total_percent");
    EXPECT_NE(csv.find("\nleaf,libm,3,42.8571,3,42.8571\n"), std::string::npos) << csv;
}

TEST(SampleStats, TimeRange) {
    const std::string session = test::writeSampleSession("sample_stats_range");
    SampleStatsOptions o;
    o.range = std::make_pair(int64_t{0}, int64_t{35000});
    auto s = computeSampleStats(session, o);
    ASSERT_TRUE(s) << s.error();
    EXPECT_EQ(s.value().samples, 3);
    ASSERT_NE(sampleRow(s.value(), "main"), nullptr);
    EXPECT_EQ(sampleRow(s.value(), "main")->total, 3);
    EXPECT_EQ(sampleRow(s.value(), "recurse"), nullptr);
}

TEST(SampleStats, Cli) {
    const std::string session = test::writeSampleSession("sample_stats_cli");
    auto r = test::runCli({"stats", session, "--samples", "--top", "2", "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    rapidjson::Document d;
    d.Parse(r.out.c_str());
    ASSERT_TRUE(d.IsObject()) << r.out;
    EXPECT_EQ(d["samples"].GetInt64(), 7);
    ASSERT_EQ(d["rows"].Size(), 2u);
    EXPECT_STREQ(d["rows"][0]["name"].GetString(), "leaf");
    EXPECT_EQ(d["rows"][1]["total"].GetInt64(), 2);  // recurse: self 2
    auto text = test::runCli({"stats", session, "--samples"});
    EXPECT_EQ(text.exitCode, 0);
    EXPECT_NE(text.out.find("7 samples (1 without a stack)"), std::string::npos) << text.out;
    auto bad = test::runCli({"stats", session, "--samples", "--step", "1"});
    EXPECT_NE(bad.exitCode, 0);
}

// The timeline draws samples as the instants of their thread's "Samples" track, after the
// thread's own track.
TEST(SampleStats, SamplesAreInstantsOfASamplesTrackInTheTimeline) {
    const std::string session = test::writeSampleSession("sample_stats_timeline");
    auto m = loadTimelineModel(session);
    ASSERT_TRUE(m) << m.error();
    int samplesTrack = -1, threadTrack = -1;
    for (size_t i = 0; i < m.value()->tracks.size(); ++i) {
        const TimelineTrack& t = m.value()->tracks[i];
        if (t.name == "Samples") samplesTrack = static_cast<int>(i);
        if (t.sliceCount == 1) threadTrack = static_cast<int>(i);
    }
    ASSERT_GE(samplesTrack, 0);
    EXPECT_LT(threadTrack, samplesTrack);
    const TimelineTrack& t = m.value()->tracks[static_cast<size_t>(samplesTrack)];
    EXPECT_EQ(t.instants.ts.size(), 7u);
    EXPECT_EQ(t.sliceCount, 0);
}

}  // namespace
}  // namespace ts::timeline
