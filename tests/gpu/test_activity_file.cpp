// The collector's activity file: written and read back, truncated, from a newer collector,
// and the clock alignment that puts CUPTI's times on the host clock.
#include <gtest/gtest.h>

#include <fstream>
#include <iterator>
#include <random>

#include "core/profiler/gpu/activity_import.h"
#include "tests/gpu/gpu_activity_fixture.h"

namespace ts::test {
namespace {

using namespace profiler::gpu;

std::string readAll(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

TEST(ActivityFile, RoundTripsEveryRecordKind) {
    const std::string path = (tempDir("activity_rt") / "cuda-1.tscupti").string();
    {
        ActivityWriter w;
        std::string error;
        ASSERT_TRUE(w.open(path, &error)) << error;
        ProcessRecord p;
        p.pid = 77;
        p.nameId = w.str("python3");
        w.put(RecordType::Process, p);
        KernelRecord k;
        k.start = 10;
        k.end = 20;
        k.nameId = w.str("_Z4gemmv");
        EXPECT_EQ(k.nameId, w.str("_Z4gemmv"));  // one String record per text
        w.put(RecordType::Kernel, k);
        ApiRecord a;
        a.nameId = w.str("cudaLaunchKernel");
        w.put(RecordType::Api, a);
        w.put(RecordType::Dropped, DroppedRecord{3, 0});
        w.note("MARKER could not be enabled");
        EXPECT_GT(w.bytesWritten(), kActivityHeaderBytes);
    }
    auto t = readActivityFile(path);
    ASSERT_TRUE(t.ok()) << t.error();
    ASSERT_TRUE(t->process.has_value());
    EXPECT_EQ(t->process->pid, 77u);
    EXPECT_EQ(t->text(t->process->nameId), "python3");
    ASSERT_EQ(t->kernels.size(), 1u);
    EXPECT_EQ(t->text(t->kernels[0].nameId), "_Z4gemmv");
    EXPECT_EQ(t->apis.size(), 1u);
    EXPECT_EQ(t->droppedCount(), 3u);
    ASSERT_EQ(t->notes.size(), 1u);
    EXPECT_EQ(t->notes[0], "MARKER could not be enabled");
    EXPECT_FALSE(t->truncated);
    EXPECT_EQ(t->strings.size(), 4u);
}

TEST(ActivityFile, TruncatedUnknownAndForeignFiles) {
    const std::string path = (tempDir("activity_cut") / "cuda-2.tscupti").string();
    {
        ActivityWriter w;
        std::string error;
        ASSERT_TRUE(w.open(path, &error)) << error;
        w.put(RecordType::Kernel, KernelRecord{});
        const uint32_t future[2] = {1, 2};
        w.write(static_cast<RecordType>(999), future, sizeof future);  // a newer kind
        w.write(RecordType::Kernel, future, sizeof future);            // wrong size
        w.put(RecordType::Kernel, KernelRecord{});
    }
    std::string bytes = readAll(path);
    // The process died mid-record: the last kernel is cut.
    auto t = parseActivity(std::string_view(bytes).substr(0, bytes.size() - 5));
    ASSERT_TRUE(t.ok()) << t.error();
    EXPECT_TRUE(t->truncated);
    EXPECT_EQ(t->kernels.size(), 1u);
    EXPECT_EQ(t->unknownRecords, 1u);
    EXPECT_EQ(t->malformedRecords, 1u);
    // Not an activity file; a newer version of the format.
    EXPECT_FALSE(parseActivity("{\"traceEvents\": []}").ok());
    bytes[8] = 9;
    auto newer = parseActivity(bytes);
    ASSERT_FALSE(newer.ok());
    EXPECT_NE(newer.error().find("version 9"), std::string::npos) << newer.error();
}

ClockRecord pair(uint32_t point, uint64_t cupti, int64_t mono, int64_t real) {
    ClockRecord c;
    c.point = point;
    c.cuptiNs = cupti;
    c.monotonicNs = mono;
    c.realtimeNs = real;
    return c;
}

TEST(ClockAlignment, TwoPairsCorrectOffsetAndDrift) {
    // CUPTI's clock runs 0.1 % slow against the host's over the run.
    const std::vector<ClockRecord> clocks = {
        pair(kClockStart, 1'000'000, 50'000'000, 1'700'000'000'000'000'000),
        pair(kClockEnd, 1'001'000'000, 1'051'000'000, 1'700'000'001'001'000'000)};
    const ClockAlignment real = alignClock(clocks, HostClock::Realtime);
    ASSERT_TRUE(real.calibrated);
    EXPECT_TRUE(real.note.empty());
    EXPECT_NEAR(real.slope, 1.001, 1e-12);
    EXPECT_EQ(real.toHost(1'000'000), 1'700'000'000'000'000'000);
    EXPECT_EQ(real.toHost(1'001'000'000), 1'700'000'001'001'000'000);
    EXPECT_EQ(real.toHost(501'000'000), 1'700'000'000'500'500'000);  // halfway
    const ClockAlignment mono = alignClock(clocks, HostClock::Monotonic);
    EXPECT_EQ(mono.toHost(1'000'000), 50'000'000);
    EXPECT_EQ(mono.toHost(501'000'000), 550'500'000);
    // Before the start pair too (records CUPTI timed before the collector's start).
    EXPECT_EQ(real.toHost(0), 1'700'000'000'000'000'000 - 1'001'000);
}

TEST(ClockAlignment, OnePairNoPairAndInconsistentPairs) {
    const ClockAlignment one =
        alignClock({pair(kClockStart, 100, 1000, 5000)}, HostClock::Realtime);
    EXPECT_TRUE(one.calibrated);
    EXPECT_EQ(one.toHost(150), 5050);
    EXPECT_NE(one.note.find("one clock pair"), std::string::npos);
    const ClockAlignment none = alignClock({}, HostClock::Realtime);
    EXPECT_FALSE(none.calibrated);
    EXPECT_EQ(none.toHost(123), 123);
    EXPECT_NE(none.note.find("no clock pair"), std::string::npos);
    // 5 % apart: not trusted as drift; offset only, and said so.
    const ClockAlignment bad = alignClock(
        {pair(kClockStart, 0, 0, 1000), pair(kClockEnd, 1000, 1050, 2050)}, HostClock::Realtime);
    EXPECT_EQ(bad.slope, 1.0);
    EXPECT_EQ(bad.toHost(500), 1500);
    EXPECT_NE(bad.note.find("disagree by 5 %"), std::string::npos) << bad.note;
}

TEST(ActivityFile, Demangles) {
    EXPECT_EQ(demangle("_Z10reluKernelPKfPfl"), "reluKernel(float const*, float*, long)");
    EXPECT_EQ(demangle("gemm_kernel"), "gemm_kernel");
    EXPECT_EQ(demangle("_Znot_a_symbol"), "_Znot_a_symbol");
}

/// Damaged files (random records after a valid header) read and import without a crash: every
/// value a record can hold is taken as it is or reported.
TEST(ActivityFile, RandomRecordsNeverCrashTheImport) {
    std::mt19937 rng(2024);
    std::uniform_int_distribution<int> byte(0, 255), type(1, 16), size(0, 96);
    for (int f = 0; f < 12; ++f) {
        std::string bytes(profiler::gpu::kActivityMagic, 8);
        bytes.append("\x01\0\0\0\0\0\0\0", 8);
        for (int r = 0; r < 400; ++r) {
            const uint32_t head[2] = {static_cast<uint32_t>(type(rng)),
                                      static_cast<uint32_t>(size(rng))};
            // Mostly records of their type's true size, so they reach the import.
            uint32_t n = head[1];
            if (r % 3) {
                switch (static_cast<profiler::gpu::RecordType>(head[0])) {
                    case profiler::gpu::RecordType::Kernel:
                        n = sizeof(profiler::gpu::KernelRecord);
                        break;
                    case profiler::gpu::RecordType::Api:
                        n = sizeof(profiler::gpu::ApiRecord);
                        break;
                    case profiler::gpu::RecordType::Marker:
                        n = sizeof(profiler::gpu::MarkerRecord);
                        break;
                    case profiler::gpu::RecordType::Clock:
                        n = sizeof(profiler::gpu::ClockRecord);
                        break;
                    default:
                        break;
                }
            }
            const uint32_t h[2] = {head[0], n};
            bytes.append(reinterpret_cast<const char*>(h), sizeof h);
            for (uint32_t i = 0; i < n; ++i) bytes.push_back(static_cast<char>(byte(rng) % 8));
        }
        bytes.resize(bytes.size() - static_cast<size_t>(f));  // and sometimes cut short
        const std::string path =
            (tempDir("activity_fuzz") / ("cuda-" + std::to_string(f) + ".tscupti")).string();
        std::ofstream(path, std::ios::binary) << bytes;
        auto got = importIntoTemp("activity_fuzz_s", path);
        EXPECT_NE(got.report.status, ts::store::SourceStatus::Failed) << got.report.error;
    }
}

}  // namespace
}  // namespace ts::test
