// CUPTI's own activity record structs (CUDA 13's cupti_activity.h), filled here as CUPTI
// fills them, laid into a buffer, walked and decoded by the collector's decoder into an
// activity file, and imported into a session: what a real run's buffers become, without a
// GPU. (The walk is the test's: CUPTI's cuptiActivityGetNextRecord needs the driver.)
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "core/profiler/cuda/cupti_decode.h"
#include "tests/common/sql_rows.h"
#include "tests/gpu/gpu_activity_fixture.h"

namespace ts::test {
namespace {

using profiler::cuda::ActivityDecoder;
using profiler::gpu::ActivityWriter;

constexpr uint32_t kPid = 5150, kTid = 5151;

/// Records appended one after another, 8-byte aligned, as CUPTI lays them.
class RecordBuffer {
public:
    template <class R>
    void add(const R& r) {
        const size_t at = m_bytes.size();
        m_bytes.resize(at + ((sizeof r + 7) & ~size_t(7)), 0);
        std::memcpy(m_bytes.data() + at, &r, sizeof r);
        m_sizes.push_back(sizeof r);
    }
    uint8_t* data() { return m_bytes.data(); }
    size_t size() const { return m_bytes.size(); }
    /// cuptiActivityGetNextRecord's contract over this buffer.
    ActivityDecoder::NextRecord walker() {
        return [this](uint8_t* buffer, size_t valid, CUpti_Activity** record) {
            if (*record == nullptr) {
                m_next = 0;
                m_offset = 0;
            }
            if (m_next >= m_sizes.size() || m_offset >= valid) return CUPTI_ERROR_MAX_LIMIT_REACHED;
            *record = reinterpret_cast<CUpti_Activity*>(buffer + m_offset);
            m_offset += (m_sizes[m_next++] + 7) & ~size_t(7);
            return CUPTI_SUCCESS;
        };
    }

private:
    std::vector<uint8_t> m_bytes;
    std::vector<size_t> m_sizes;
    size_t m_next = 0, m_offset = 0;
};

CUpti_ActivityAPI api(CUpti_ActivityKind kind, uint32_t cbid, uint64_t start, uint64_t end,
                      uint32_t corr) {
    CUpti_ActivityAPI a{};
    a.kind = kind;
    a.cbid = static_cast<CUpti_CallbackId>(cbid);
    a.start = start;
    a.end = end;
    a.processId = kPid;
    a.threadId = kTid;
    a.correlationId = corr;
    return a;
}

/// A launch, its kernel, a copy, a memset, a stream sync, an NVTX range, a CUPTI overhead,
/// the device and the context, plus a record kind the collector does not keep.
RecordBuffer oneStep() {
    RecordBuffer b;
    CUpti_ActivityDevice5 dev{};
    dev.kind = CUPTI_ACTIVITY_KIND_DEVICE;
    dev.id = 0;
    dev.name = "NVIDIA A100-SXM4-40GB";
    dev.numMultiprocessors = 108;
    dev.computeCapabilityMajor = 8;
    dev.globalMemorySize = 40ull << 30;
    b.add(dev);
    CUpti_ActivityContext3 ctx{};
    ctx.kind = CUPTI_ACTIVITY_KIND_CONTEXT;
    ctx.contextId = 1;
    ctx.deviceId = 0;
    ctx.nullStreamId = 7;
    b.add(ctx);
    b.add(api(CUPTI_ACTIVITY_KIND_DRIVER, 307, 2020, 2080, 11));   // inside the runtime call
    b.add(api(CUPTI_ACTIVITY_KIND_RUNTIME, 211, 2000, 2100, 11));  // completes last
    b.add(api(CUPTI_ACTIVITY_KIND_RUNTIME, 41, 2110, 2150, 12));
    b.add(api(CUPTI_ACTIVITY_KIND_RUNTIME, 131, 2160, 2900, 13));
    CUpti_ActivityKernel10 k{};
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.start = 2200;
    k.end = 2600;
    k.deviceId = 0;
    k.contextId = 1;
    k.streamId = 7;
    k.correlationId = 11;
    k.gridX = 128;
    k.gridY = 2;
    k.gridZ = 1;
    k.blockX = 256;
    k.blockY = 1;
    k.blockZ = 1;
    k.registersPerThread = 40;
    k.staticSharedMemory = 2048;
    k.dynamicSharedMemory = 4096;
    k.name = "_ZN2ts6engine4cuda12unaryElementILi3EEEvPKfPfl";
    b.add(k);
    CUpti_ActivityMemcpy6 m{};
    m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
    m.copyKind = CUPTI_ACTIVITY_MEMCPY_KIND_DTOH;
    m.bytes = 1 << 20;
    m.start = 2650;
    m.end = 2750;
    m.deviceId = 0;
    m.contextId = 1;
    m.streamId = 7;
    m.correlationId = 12;
    b.add(m);
    CUpti_ActivityMemset4 ms{};
    ms.kind = CUPTI_ACTIVITY_KIND_MEMSET;
    ms.value = 0;
    ms.bytes = 256;
    ms.start = 2120;
    ms.end = 2130;
    ms.deviceId = 0;
    ms.contextId = 1;
    ms.streamId = 21;
    ms.correlationId = 14;
    b.add(ms);
    CUpti_ActivitySynchronization2 s{};
    s.kind = CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
    s.type = CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_STREAM_SYNCHRONIZE;
    s.start = 2170;
    s.end = 2890;
    s.contextId = 1;
    s.streamId = 7;
    s.correlationId = 13;
    b.add(s);
    CUpti_ActivityMarker2 start{};
    start.kind = CUPTI_ACTIVITY_KIND_MARKER;
    start.flags = CUPTI_ACTIVITY_FLAG_MARKER_START;
    start.timestamp = 1900;
    start.id = 3;
    start.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
    start.objectId.pt.processId = kPid;
    start.objectId.pt.threadId = kTid;
    start.name = "train_step";
    start.domain = "trainer";
    b.add(start);
    CUpti_ActivityMarker2 end = start;
    end.flags = CUPTI_ACTIVITY_FLAG_MARKER_END;
    end.timestamp = 2950;
    end.name = nullptr;
    b.add(end);
    CUpti_ActivityOverhead3 o{};
    o.kind = CUPTI_ACTIVITY_KIND_OVERHEAD;
    o.overheadKind = CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH;
    o.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
    o.objectId.pt.processId = kPid;
    o.objectId.pt.threadId = kTid;
    o.start = 2960;
    o.end = 2990;
    b.add(o);
    CUpti_ActivityAPI other{};  // a kind the collector does not enable
    other.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
    b.add(other);
    return b;
}

std::string callbackName(uint32_t domain, uint32_t cbid) {
    if (domain == profiler::gpu::kApiDriver && cbid == 307) return "cuLaunchKernel";
    if (cbid == 211) return "cudaLaunchKernel";
    if (cbid == 41) return "cudaMemcpyAsync";
    if (cbid == 131) return "cudaStreamSynchronize";
    return "";
}

TEST(CuptiDecode, RecordStructsBecomeSessionRows) {
    const std::string path = (tempDir("cupti_decode_in") / "cuda-5150.tscupti").string();
    {
        ActivityWriter w;
        std::string error;
        ASSERT_TRUE(w.open(path, &error)) << error;
        profiler::gpu::ClockRecord c;  // as the collector's start: CUPTI 0 = Unix 1e18
        c.realtimeNs = 1'000'000'000'000'000'000;
        w.put(profiler::gpu::RecordType::Clock, c);
        ActivityDecoder decoder(w, &callbackName, kPid);
        RecordBuffer b = oneStep();
        EXPECT_EQ(decoder.decodeBuffer(b.data(), b.size(), b.walker()), 13u);
        EXPECT_EQ(decoder.skipped(), 1u);
        // The collector asks CUPTI for dropped records after each buffer and at the end.
        w.put(profiler::gpu::RecordType::Dropped, profiler::gpu::DroppedRecord{2, 3000});
    }
    auto got = importIntoTemp("cupti_decode", path);
    const auto& r = got.report;
    auto& s = *got.store;
    EXPECT_EQ(r.status, ts::store::SourceStatus::Partial) << r.error;
    EXPECT_EQ(r.skippedReasons.at("cupti_dropped_records"), 2);
    EXPECT_EQ(r.flows, 3);  // kernel, copy, sync; the memset has no API record
    EXPECT_EQ(sqlRows(s.db(),
                      "SELECT n.str FROM tracks t JOIN strings n ON n.id = t.name_id WHERE "
                      "t.kind = 'gpu_stream' ORDER BY t.sort_index"),
              (std::vector<std::string>{"Stream 7 (default)|", "Stream 21|"}));
    EXPECT_EQ(sqlRows(s.db(),
                      "SELECT a.str, b.str FROM flows f JOIN slices so ON so.id = f.slice_out "
                      "JOIN slices si ON si.id = f.slice_in JOIN strings a ON a.id = so.name_id "
                      "JOIN strings b ON b.id = si.name_id ORDER BY si.ts"),
              (std::vector<std::string>{
                  "cudaStreamSynchronize|Stream Sync|",
                  "cuLaunchKernel|void ts::engine::cuda::unaryElement<3>(float const*, float*, "
                  "long)|",
                  "cudaMemcpyAsync|[CUDA memcpy Device-to-Host]|"}));
    EXPECT_EQ(queryText(s,
                        "SELECT a.json FROM slices s JOIN strings n ON n.id = s.name_id JOIN args "
                        "a ON a.id = s.arg_set_id WHERE n.str LIKE 'void ts::engine%'"),
              "{\"device\":0,\"context\":1,\"stream\":7,\"correlation\":11,\"grid\":[128,2,1],"
              "\"block\":[256,1,1],\"registers per thread\":40,\"shared memory\":6144}");
    EXPECT_EQ(queryInt(s,
                       "SELECT s.ts FROM slices s JOIN strings n ON n.id = s.name_id WHERE "
                       "n.str LIKE 'void ts::engine%'"),
              1'000'000'000'000'002'200);
    EXPECT_EQ(queryInt(s, "SELECT count(*) FROM processes WHERE name = 'NVIDIA A100-SXM4-40GB'"),
              1);
    // The NVTX range of domain "trainer": category = the domain.
    EXPECT_EQ(queryText(s,
                        "SELECT c.str || ' ' || s.dur FROM slices s JOIN strings n ON n.id = "
                        "s.name_id JOIN strings c ON c.id = s.cat_id WHERE n.str = 'train_step'"),
              "trainer 1050");
    EXPECT_EQ(queryInt(s,
                       "SELECT count(*) FROM slices s JOIN strings n ON n.id = s.name_id WHERE "
                       "n.str = 'CUPTI overhead: buffer flush'"),
              1);
    EXPECT_EQ(queryInt(s,
                       "SELECT count(*) FROM slices s JOIN strings n ON n.id = s.name_id WHERE "
                       "n.str = 'cudaLaunchKernel'"),
              1);
}

TEST(CuptiDecode, AnUnreadableBufferIsANoteNotASilentGap) {
    const std::string path = (tempDir("cupti_bad_in") / "cuda-1.tscupti").string();
    {
        ActivityWriter w;
        std::string error;
        ASSERT_TRUE(w.open(path, &error));
        ActivityDecoder decoder(w, nullptr, 1);
        RecordBuffer b = oneStep();
        int calls = 0;
        decoder.decodeBuffer(b.data(), b.size(), [&](uint8_t*, size_t, CUpti_Activity**) {
            return ++calls == 1 ? CUPTI_ERROR_INVALID_KIND : CUPTI_ERROR_MAX_LIMIT_REACHED;
        });
        EXPECT_EQ(decoder.decoded(), 0u);
    }
    auto got = importIntoTemp("cupti_bad", path);
    EXPECT_EQ(got.report.skippedReasons.at("cupti_collector_note"), 1);
    EXPECT_EQ(queryInt(*got.store,
                       "SELECT count(*) FROM import_log WHERE message LIKE 'a CUPTI activity "
                       "buffer could not be read%'"),
              1);
}

}  // namespace
}  // namespace ts::test
