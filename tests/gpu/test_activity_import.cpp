// Activity records of one CUDA process -> session rows, checked like the Nsight importer's:
// a track per device stream, API -> GPU flows by correlation id (from the innermost call),
// demangled kernel names, grid/block/registers/shared memory args, times on the host clock,
// NVTX ranges, synchronisations, CUPTI overhead, and dropped records as import problems.
#include <gtest/gtest.h>

#include <algorithm>

#include "core/profiler/gpu/activity_import.h"
#include "core/store/store_writer.h"
#include "tests/common/sql_rows.h"
#include "tests/gpu/gpu_activity_fixture.h"

namespace ts::test {
namespace {

using namespace profiler::gpu;

constexpr uint32_t kPid = 4242, kTid = 4243;
constexpr int64_t kReal0 = 1'700'000'000'000'000'000;

ApiRecord apiCall(ActivityWriter& w, const char* name, uint32_t domain, uint64_t start,
                  uint64_t end, uint32_t corr) {
    ApiRecord a;
    a.start = start;
    a.end = end;
    a.pid = kPid;
    a.tid = kTid;
    a.correlation = corr;
    a.domain = domain;
    a.nameId = w.str(name);
    return a;
}

/// One process: a launch (runtime call around its driver call) of a C++ kernel on the
/// default stream 7, a host-to-device copy, a memset on stream 13 with no API record, a
/// stream and a context synchronisation, an NVTX range and mark, CUPTI overhead, 5 records
/// dropped and a note from the collector. CUPTI's clock starts at 1,000 ns = kReal0.
std::string writeProcessTrace(const std::string& tag) {
    const std::string path = (tempDir(tag) / "cuda-4242.tscupti").string();
    ActivityWriter w;
    std::string error;
    EXPECT_TRUE(w.open(path, &error)) << error;
    ProcessRecord p;
    p.pid = kPid;
    p.nameId = w.str("python3");
    p.flags = kProcessInjected;
    w.put(RecordType::Process, p);
    ClockRecord c0;
    c0.point = kClockStart;
    c0.cuptiNs = 1000;
    c0.monotonicNs = 9000;
    c0.realtimeNs = kReal0;
    w.put(RecordType::Clock, c0);
    DeviceRecord d;
    d.id = 0;
    d.nameId = w.str("NVIDIA H100 80GB HBM3");
    w.put(RecordType::Device, d);
    w.put(RecordType::Context, ContextRecord{1, 0, 7, 0});
    w.put(RecordType::Api, apiCall(w, "cudaLaunchKernel", kApiRuntime, 1100, 1200, 1));
    w.put(RecordType::Api, apiCall(w, "cuLaunchKernel", kApiDriver, 1120, 1180, 1));
    w.put(RecordType::Api, apiCall(w, "cudaMemcpyAsync", kApiRuntime, 1210, 1250, 2));
    w.put(RecordType::Api, apiCall(w, "cudaStreamSynchronize", kApiRuntime, 1260, 1900, 4));
    KernelRecord k;
    k.start = 1300;
    k.end = 1500;
    k.device = 0;
    k.context = 1;
    k.stream = 7;
    k.correlation = 1;
    k.grid[0] = 4, k.grid[1] = 1, k.grid[2] = 1;
    k.block[0] = 128, k.block[1] = 1, k.block[2] = 1;
    k.registersPerThread = 32;
    k.staticSharedMemory = 1024;
    k.dynamicSharedMemory = 512;
    k.nameId = w.str("_Z10reluKernelPKfPfl");
    w.put(RecordType::Kernel, k);
    MemcpyRecord m;
    m.start = 1600;
    m.end = 1800;
    m.bytes = 4000;
    m.device = 0;
    m.context = 1;
    m.stream = 7;
    m.correlation = 2;
    m.copyKind = 1;
    w.put(RecordType::Memcpy, m);
    MemsetRecord ms;
    ms.start = 1550;
    ms.end = 1560;
    ms.bytes = 64;
    ms.context = 1;
    ms.stream = 13;
    ms.correlation = 3;
    w.put(RecordType::Memset, ms);
    SyncRecord s;
    s.start = 1270;
    s.end = 1890;
    s.type = 3;
    s.context = 1;
    s.stream = 7;
    s.correlation = 4;
    w.put(RecordType::Sync, s);
    SyncRecord cs;
    cs.start = 1950;
    cs.end = 1960;
    cs.type = 4;
    cs.context = 1;
    cs.stream = kNoStream;
    w.put(RecordType::Sync, cs);
    MarkerRecord r0;
    r0.ts = 1050;
    r0.id = 1;
    r0.flags = kMarkerStart;
    r0.pid = kPid;
    r0.tid = kTid;
    r0.nameId = w.str("forward");
    w.put(RecordType::Marker, r0);
    MarkerRecord r1 = r0;
    r1.ts = 1950;
    r1.flags = kMarkerEnd;
    r1.nameId = 0;
    w.put(RecordType::Marker, r1);
    MarkerRecord mark = r0;
    mark.id = 2;
    mark.ts = 1400;
    mark.flags = kMarkerInstant;
    mark.nameId = w.str("checkpoint");
    w.put(RecordType::Marker, mark);
    MarkerRecord stray = r1;
    stray.id = 9;
    w.put(RecordType::Marker, stray);
    OverheadRecord o;
    o.start = 1970;
    o.end = 1990;
    o.nameId = w.str("CUPTI overhead: buffer flush");
    o.pid = kPid;
    o.tid = kTid;
    w.put(RecordType::Overhead, o);
    w.put(RecordType::Dropped, DroppedRecord{5, 1980});
    w.note("cuptiActivityEnable(CUPTI overheads) failed: test");
    w.put(RecordType::ThreadName, ThreadNameRecord{kPid, kTid, w.str("trainer"), 0});
    ClockRecord c1 = c0;
    c1.point = kClockEnd;
    c1.cuptiNs = 1'000'001'000;
    c1.monotonicNs = 1'000'009'000;
    c1.realtimeNs = kReal0 + 1'000'000'000;
    w.put(RecordType::Clock, c1);
    return path;
}

std::string sliceNamesOn(store::TraceStore& s, const std::string& track) {
    std::string out;
    for (const std::string& row :
         sqlRows(s.db(),
                 "SELECT n.str FROM slices s JOIN tracks t ON t.id = s.track_id JOIN strings tn ON "
                 "tn.id = t.name_id JOIN strings n ON n.id = s.name_id WHERE tn.str = '" +
                     track + "' ORDER BY s.ts"))
        out += row;
    return out;
}

TEST(ActivityImport, RowsLikeTheNsightImporter) {
    auto got = importIntoTemp("activity_rows", writeProcessTrace("activity_rows_in"));
    const auto& r = got.report;
    auto& s = *got.store;
    ASSERT_EQ(r.kind, "cupti_activity");
    // Dropped records make the import partial, with the count, never silently.
    EXPECT_EQ(r.status, ts::store::SourceStatus::Partial) << r.error;
    EXPECT_EQ(r.skippedReasons.at("cupti_dropped_records"), 5);
    EXPECT_EQ(r.skippedReasons.at("cupti_marker_unpaired"), 1);
    EXPECT_EQ(r.skippedReasons.at("cupti_collector_note"), 1);
    EXPECT_EQ(queryInt(s,
                       "SELECT count(*) FROM import_log WHERE key = 'cupti_dropped_records' AND "
                       "message LIKE 'CUPTI dropped 5 activity records%'"),
              1);
    // API calls (4) + kernel + memcpy + memset + 2 syncs + NVTX range + overhead.
    EXPECT_EQ(r.slices, 4 + 1 + 1 + 1 + 2 + 1 + 1);
    EXPECT_EQ(r.instants, 1);
    // A track per device stream, the default one named so; context syncs on their own.
    EXPECT_EQ(
        sqlRows(s.db(),
                "SELECT n.str FROM tracks t JOIN strings n ON n.id = t.name_id WHERE "
                "t.kind = 'gpu_stream' ORDER BY t.sort_index"),
        (std::vector<std::string>{"Context 1 \u00B7 sync|", "Stream 7 (default)|", "Stream 13|"}));
    EXPECT_EQ(sliceNamesOn(s, "Stream 7 (default)"),
              "Stream Sync|reluKernel(float const*, float*, long)|[CUDA memcpy Host-to-Device]|");
    EXPECT_EQ(sliceNamesOn(s, "Stream 13"), "[CUDA memset]|");
    // The GPU is a process named after the device; the program keeps its name and thread.
    EXPECT_EQ(queryInt(s,
                       "SELECT count(*) FROM processes WHERE pid = 'GPU 0' AND name = "
                       "'NVIDIA H100 80GB HBM3'"),
              1);
    EXPECT_EQ(queryInt(s,
                       "SELECT count(*) FROM processes WHERE pid = '4242' AND name = "
                       "'python3'"),
              1);
    EXPECT_EQ(queryInt(s,
                       "SELECT count(*) FROM threads WHERE tid = '4243' AND name = "
                       "'trainer'"),
              1);
    EXPECT_EQ(sliceNamesOn(s, "trainer (4243) \u00B7 CUDA API"),
              "cudaLaunchKernel|cuLaunchKernel|cudaMemcpyAsync|cudaStreamSynchronize|");
    // Flows by correlation id: from the innermost call (the driver's) to the kernel, and to
    // the copy and the stream sync; the memset has no API record, so no flow.
    EXPECT_EQ(sqlRows(s.db(),
                      "SELECT a.str, b.str, fn.str, fc.str FROM flows f "
                      "JOIN slices so ON so.id = f.slice_out JOIN slices si ON si.id = f.slice_in "
                      "JOIN strings a ON a.id = so.name_id JOIN strings b ON b.id = si.name_id "
                      "JOIN strings fn ON fn.id = f.name_id JOIN strings fc ON fc.id = f.cat_id "
                      "ORDER BY si.ts"),
              (std::vector<std::string>{
                  "cudaStreamSynchronize|Stream Sync|CUDA launch|ac2g|",
                  "cuLaunchKernel|reluKernel(float const*, float*, long)|CUDA launch|ac2g|",
                  "cudaMemcpyAsync|[CUDA memcpy Host-to-Device]|CUDA launch|ac2g|"}));
    // Kineto's categories and Nsight's args.
    EXPECT_EQ(
        sqlRows(s.db(),
                "SELECT DISTINCT c.str FROM slices s JOIN strings c ON c.id = s.cat_id "
                "ORDER BY c.str"),
        (std::vector<std::string>{"cuda_driver|", "cuda_runtime|", "cuda_sync|", "cupti_overhead|",
                                  "gpu_memcpy|", "gpu_memset|", "kernel|", "nvtx|"}));
    const std::string kernelArgs =
        queryText(s,
                  "SELECT a.json FROM slices s JOIN strings n ON n.id = s.name_id JOIN args a ON "
                  "a.id = s.arg_set_id WHERE n.str LIKE 'reluKernel%'");
    EXPECT_EQ(kernelArgs,
              "{\"device\":0,\"context\":1,\"stream\":7,\"correlation\":1,\"grid\":[4,1,1],"
              "\"block\":[128,1,1],\"registers per thread\":32,\"shared memory\":1536}");
    EXPECT_NE(
        queryText(s,
                  "SELECT a.json FROM slices s JOIN strings n ON n.id = s.name_id JOIN "
                  "args a ON a.id = s.arg_set_id WHERE n.str LIKE '[CUDA memcpy%'")
            .find("\"bytes\":4000,\"kind\":\"Host-to-Device\",\"memory bandwidth (GB/s)\":20"),
        std::string::npos);
    // Host clock: CUPTI 1,300 ns is 300 ns after the start pair, on the Unix clock.
    EXPECT_EQ(queryInt(s,
                       "SELECT s.ts FROM slices s JOIN strings n ON n.id = s.name_id WHERE "
                       "n.str LIKE 'reluKernel%'"),
              kReal0 + 300);
    EXPECT_EQ(queryInt(s,
                       "SELECT s.dur FROM slices s JOIN strings n ON n.id = s.name_id WHERE "
                       "n.str LIKE 'reluKernel%'"),
              200);
    // The NVTX range on the thread's NVTX track, the mark an instant there.
    EXPECT_EQ(sliceNamesOn(s, "trainer (4243) \u00B7 NVTX"), "forward|");
    EXPECT_EQ(sliceNamesOn(s, "trainer (4243) \u00B7 CUPTI overhead"),
              "CUPTI overhead: buffer flush|");
    EXPECT_NE(r.extraJson.find("\"dropped_records\":5"), std::string::npos) << r.extraJson;
    EXPECT_NE(r.extraJson.find("\"kernels\":1"), std::string::npos) << r.extraJson;
}

TEST(ActivityImport, AFileWithNothingRecordedIsCompleteAndEmpty) {
    const std::string path = (tempDir("activity_empty_in") / "cuda-9.tscupti").string();
    {
        ActivityWriter w;
        std::string error;
        ASSERT_TRUE(w.open(path, &error));
        ClockRecord c;
        c.realtimeNs = kReal0;
        w.put(RecordType::Clock, c);
        c.point = kClockEnd;
        c.cuptiNs = 10;
        c.realtimeNs = kReal0 + 10;
        w.put(RecordType::Clock, c);
    }
    auto got = importIntoTemp("activity_empty", path);
    EXPECT_EQ(got.report.status, ts::store::SourceStatus::Complete) << got.report.error;
    EXPECT_EQ(got.report.slices, 0);
    EXPECT_EQ(got.report.skipped, 0);
}

TEST(ActivityImport, EngineProfileMapsClockAndNamesTheLaunchingOp) {
    // The engine's path: the steady clock, then the profile's steady -> wall mapping, and
    // each GPU row gets the op that ran on the launching thread at the launch time.
    const std::string in = writeProcessTrace("activity_ops_in");
    auto trace = readActivityFile(in);
    ASSERT_TRUE(trace.ok()) << trace.error();
    auto st = store::TraceStore::open((tempDir("activity_ops") / "s.tscope").string(),
                                      store::TraceStore::Mode::Create);
    ASSERT_TRUE(st.ok());
    auto& store = *st.value();
    auto source = store.beginSource("engine", "profiler");
    ASSERT_TRUE(source.ok());
    std::vector<std::string> asked;
    {
        store::StoreWriter writer(store, source.value());
        GpuTraceBuilder builder(writer);
        GpuRows rows(builder);
        ActivityImportOptions o;
        o.clock = HostClock::Monotonic;
        o.toSession = [](int64_t mono) { return mono + 1'000'000; };
        o.opAt = [&](int64_t tid, int64_t ts) {
            asked.push_back(std::to_string(tid) + "@" + std::to_string(ts));
            return ts < 1'000'000 + 9000 + 205 ? std::string("Default/fc1-Dense/MatMul-op0")
                                               : std::string();
        };
        int problems = 0;
        writeActivityRows(trace.value(), rows, o,
                          [&](const std::string&, const std::string&, int64_t) { ++problems; });
        builder.finish();
        EXPECT_EQ(problems, 3);  // dropped, unpaired marker, note
    }
    // Launch times on the session's clock: CUPTI 1,120 (the driver call, the innermost)
    // -> monotonic 9,120 -> session 1,009,120.
    EXPECT_NE(std::find(asked.begin(), asked.end(), "4243@1009120"), asked.end());
    EXPECT_NE(
        queryText(store,
                  "SELECT a.json FROM slices s JOIN strings n ON n.id = s.name_id JOIN args a "
                  "ON a.id = s.arg_set_id WHERE n.str LIKE 'reluKernel%'")
            .find("\"op\":\"Default/fc1-Dense/MatMul-op0\""),
        std::string::npos);
    EXPECT_EQ(queryInt(store,
                       "SELECT s.ts FROM slices s JOIN strings n ON n.id = s.name_id WHERE "
                       "n.str LIKE 'reluKernel%'"),
              1'000'000 + 9000 + 300);
    // The copy was launched later (1,210 -> 1,009,210): no op, no "op" arg.
    EXPECT_EQ(
        queryText(store,
                  "SELECT a.json FROM slices s JOIN strings n ON n.id = s.name_id JOIN args a "
                  "ON a.id = s.arg_set_id WHERE n.str LIKE '[CUDA memcpy%'")
            .find("\"op\""),
        std::string::npos);
}

}  // namespace
}  // namespace ts::test
