// Memory analysis: counter series, peak and the allocations live at the peak.
#include <gtest/gtest.h>

#include "core/analysis/profile/memory_analysis.h"
#include "core/store/store_writer.h"
#include "tests/analysis/profile_fixture.h"
#include "tests/common/test_support.h"

using namespace ts::analysis;

TEST(MemoryAnalysis, PeakAndTopAllocations) {
    const auto path = ts::test::tempDir("an_mem") / "s.tscope";
    const auto fx = ts::test::writeProfileFixture(path, true);
    auto st = ts::store::TraceStore::open(path.string(), ts::store::TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(st.ok());
    auto r = analyzeMemory(*st.value(), fx.sourceId);
    ASSERT_TRUE(r.ok()) << r.error();
    const MemoryAnalysis& m = r.value();
    EXPECT_EQ(m.origin, "counters");
    ASSERT_EQ(m.inUse.ts.size(), 4u);
    EXPECT_EQ(m.inUse.name, kMemoryInUseCounter);
    ASSERT_EQ(m.pool.ts.size(), 2u);
    ASSERT_EQ(m.others.size(), 1u);
    EXPECT_EQ(m.others[0].name, "samples/s");
    ASSERT_TRUE(m.hasPeak);
    EXPECT_EQ(m.peakTs, 1150);
    EXPECT_DOUBLE_EQ(m.peakBytes, 900);
    EXPECT_DOUBLE_EQ(m.poolPeakBytes, 2048);
    // Live at t=1150: t1 (never freed) and t3 (freed at 1300); t2 freed at 1140, t4 later.
    EXPECT_EQ(m.liveAtPeakCount, 2);
    EXPECT_EQ(m.liveAtPeakBytes, 600);
    ASSERT_EQ(m.topAtPeak.size(), 2u);
    EXPECT_EQ(m.topAtPeak[0].op, "MatMul");
    EXPECT_EQ(m.topAtPeak[0].shape, "[64,128]");
    EXPECT_EQ(m.topAtPeak[0].bytes, 400);
    EXPECT_EQ(m.topAtPeak[0].tensor, "t1");
    EXPECT_EQ(m.topAtPeak[1].op, "Add");
    EXPECT_EQ(m.topAtPeak[1].shape, "[8]");

    auto one = analyzeMemory(*st.value(), fx.sourceId, 1);
    ASSERT_TRUE(one.ok());
    EXPECT_EQ(one.value().topAtPeak.size(), 1u);
    EXPECT_EQ(one.value().liveAtPeakCount, 2);
    EXPECT_FALSE(analyzeMemory(*st.value(), 99).ok());
}

TEST(MemoryAnalysis, KinetoMemoryEventsAndNoMemory) {
    const auto path = ts::test::tempDir("an_mem_kineto") / "s.tscope";
    auto st = ts::store::TraceStore::open(path.string(), ts::store::TraceStore::Mode::Create);
    ASSERT_TRUE(st.ok());
    auto& s = *st.value();
    const int64_t src = s.beginSource("k.json", "chrome_json").value();
    const int64_t empty = s.beginSource("e.json", "chrome_json").value();
    {
        ts::store::StoreWriter w(s, src);
        const int64_t p = w.addProcess("1");
        const int64_t t = w.addTrack("thread", p, w.addThread(p, "1"), "main");
        const int64_t n = w.intern("[memory]");
        auto ev = [&](int64_t ts, const std::string& json) {
            w.addInstant(t, ts, n, 0, 't', w.addArgs(json));
        };
        ev(10,
           R"({"Device Id":0,"Addr":1,"Bytes":100,"Total Allocated":100,"Total Reserved":512})");
        ev(20,
           R"({"Device Id":0,"Addr":2,"Bytes":300,"Total Allocated":400,"Total Reserved":512})");
        ev(30, R"({"Device Id":-1,"Addr":9,"Bytes":50,"Total Allocated":50,"Total Reserved":0})");
        ev(40,
           R"({"Device Id":0,"Addr":1,"Bytes":-100,"Total Allocated":300,"Total Reserved":512})");
        ev(50, R"(not json)");
        ASSERT_TRUE(w.flush().ok());
    }
    auto r = analyzeMemory(s, src);
    ASSERT_TRUE(r.ok()) << r.error();
    const MemoryAnalysis& m = r.value();
    EXPECT_EQ(m.origin, "kineto [memory] events (device 0)");
    EXPECT_EQ(m.inUse.ts.size(), 3u);
    ASSERT_TRUE(m.hasPeak);
    EXPECT_EQ(m.peakTs, 20);
    EXPECT_DOUBLE_EQ(m.peakBytes, 400);
    EXPECT_DOUBLE_EQ(m.poolPeakBytes, 512);
    EXPECT_EQ(m.liveAtPeakCount, 2);
    ASSERT_EQ(m.topAtPeak.size(), 2u);
    EXPECT_EQ(m.topAtPeak[0].bytes, 300);

    auto e = analyzeMemory(s, empty);
    ASSERT_TRUE(e.ok());
    EXPECT_FALSE(e.value().hasPeak);
    EXPECT_TRUE(e.value().origin.empty());
}

TEST(MemoryAnalysis, OldKinetoEventsWithoutTotals) {
    const auto path = ts::test::tempDir("an_mem_oldkineto") / "s.tscope";
    auto st = ts::store::TraceStore::open(path.string(), ts::store::TraceStore::Mode::Create);
    ASSERT_TRUE(st.ok());
    auto& s = *st.value();
    const int64_t src = s.beginSource("k.json", "chrome_json").value();
    {
        ts::store::StoreWriter w(s, src);
        const int64_t p = w.addProcess("1");
        const int64_t t = w.addTrack("thread", p, w.addThread(p, "1"), "main");
        const int64_t n = w.intern("[memory]");
        auto ev = [&](int64_t ts, const std::string& json) {
            w.addInstant(t, ts, n, 0, 't', w.addArgs(json));
        };
        ev(10, R"({"Device Type":"0","Device Id":"-1","Bytes":"40"})");
        ev(20, R"({"Device Type":"0","Device Id":"-1","Bytes":"16"})");
        ev(30, R"({"Device Type":"0","Device Id":"-1","Bytes":"-40"})");
        ASSERT_TRUE(w.flush().ok());
    }
    auto r = analyzeMemory(s, src);
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(r.value().origin, "kineto [memory] events (CPU)");
    ASSERT_TRUE(r.value().hasPeak);
    EXPECT_EQ(r.value().peakTs, 20);
    EXPECT_DOUBLE_EQ(r.value().peakBytes, 56);
    EXPECT_TRUE(r.value().pool.empty());
    EXPECT_TRUE(r.value().topAtPeak.empty());
}
