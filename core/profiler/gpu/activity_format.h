#pragma once
// The activity file of the CUPTI collector (core/profiler/cuda): what one CUDA process did on
// its GPUs, as CUPTI's Activity API reported it, written by the process itself (one file per
// process, "cuda-<pid>.tscupti") and turned into session rows later by activity_import.h.
//
// Layout (little-endian, the host's): the 16-byte header {magic "TSCUPTI\0", version u32,
// reserved u32}, then records [type u32][payload bytes u32][payload]. Payloads are the
// fixed structs below (sizes static_asserted) except strings (id u32 + UTF-8 bytes). A
// reader skips record types it does not know and stops at a truncated record, so a
// process killed mid-write leaves a readable file up to its last complete record.
//
// Timestamps are CUPTI's (ns, cuptiGetTimestamp's clock); Clock records pair that clock
// with the host's CLOCK_MONOTONIC and CLOCK_REALTIME at the start and end, so the importer
// puts GPU and API times on the host clock (activity_import.h, alignClock).
//
// Pure std C++: the collector library compiles this file into itself.
#include <cstdint>
#include <cstdio>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

namespace ts::profiler::gpu {

constexpr char kActivityMagic[8] = {'T', 'S', 'C', 'U', 'P', 'T', 'I', '\0'};
constexpr uint32_t kActivityVersion = 1;
constexpr size_t kActivityHeaderBytes = 16;

enum class RecordType : uint32_t {
    String = 1,       // id u32 + bytes
    Process = 2,      // ProcessRecord
    Clock = 3,        // ClockRecord
    Device = 4,       // DeviceRecord
    Context = 5,      // ContextRecord
    Api = 6,          // ApiRecord
    Kernel = 7,       // KernelRecord
    Memcpy = 8,       // MemcpyRecord
    Memset = 9,       // MemsetRecord
    Sync = 10,        // SyncRecord
    Marker = 11,      // MarkerRecord
    Overhead = 12,    // OverheadRecord
    Dropped = 13,     // DroppedRecord
    ThreadName = 14,  // ThreadNameRecord
    Note = 15,        // NoteRecord: a problem the collector met (never silent)
};

struct ProcessRecord {
    uint32_t pid = 0;
    uint32_t nameId = 0;        // string: the program (/proc/self/comm)
    uint32_t cuptiVersion = 0;  // cuptiGetVersion
    uint32_t flags = 0;         // kProcessInjected when loaded by CUDA_INJECTION64_PATH
};
constexpr uint32_t kProcessInjected = 1;

struct ClockRecord {
    uint64_t cuptiNs = 0;
    int64_t monotonicNs = 0;  // CLOCK_MONOTONIC (std::chrono::steady_clock on Linux)
    int64_t realtimeNs = 0;   // CLOCK_REALTIME (Unix ns)
    uint32_t point = 0;       // kClockStart | kClockEnd
    uint32_t reserved = 0;
};
constexpr uint32_t kClockStart = 0, kClockEnd = 1;

struct DeviceRecord {
    uint32_t id = 0;
    uint32_t nameId = 0;
    uint64_t globalMemoryBytes = 0;
    uint32_t multiprocessors = 0;
    uint32_t computeMajor = 0, computeMinor = 0;
    uint32_t reserved = 0;
};

struct ContextRecord {
    uint32_t context = 0;
    uint32_t device = 0;
    uint32_t nullStream = 0;
    uint32_t reserved = 0;
};

/// A CUDA runtime or driver API call.
struct ApiRecord {
    uint64_t start = 0, end = 0;
    uint32_t pid = 0, tid = 0;  // tid: the OS thread id (CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM)
    uint32_t correlation = 0;
    uint32_t returnValue = 0;
    uint32_t cbid = 0;
    uint32_t nameId = 0;  // string: cuptiGetCallbackName ("cudaLaunchKernel", "cuMemAlloc_v2")
    uint32_t domain = 0;  // kApiDriver | kApiRuntime
    uint32_t reserved = 0;
};
constexpr uint32_t kApiDriver = 1, kApiRuntime = 2;

struct KernelRecord {
    uint64_t start = 0, end = 0;
    uint32_t device = 0, context = 0, stream = 0, correlation = 0;
    int32_t grid[3] = {0, 0, 0};
    int32_t block[3] = {0, 0, 0};
    uint32_t registersPerThread = 0;
    int32_t staticSharedMemory = 0, dynamicSharedMemory = 0;
    uint32_t nameId = 0;  // string: the name as CUPTI gives it (mangled for C++ kernels)
    int64_t graphId = 0;
};

struct MemcpyRecord {
    uint64_t start = 0, end = 0, bytes = 0;
    uint32_t device = 0, context = 0, stream = 0, correlation = 0;
    uint8_t copyKind = 0, srcKind = 0, dstKind = 0, flags = 0;  // CUpti_ActivityMemcpyKind...
    uint32_t reserved = 0;
};

struct MemsetRecord {
    uint64_t start = 0, end = 0, bytes = 0;
    uint32_t device = 0, context = 0, stream = 0, correlation = 0;
    uint32_t value = 0;
    uint32_t memoryKind = 0;
};

struct SyncRecord {
    uint64_t start = 0, end = 0;
    uint32_t type = 0;  // CUpti_ActivitySynchronizationType: 1 event, 2 stream wait event,
                        // 3 stream, 4 context
    uint32_t context = 0;
    uint32_t stream = 0;  // kNoStream for a context synchronisation
    uint32_t correlation = 0;
    uint32_t cudaEvent = 0;
    uint32_t reserved = 0;
};
constexpr uint32_t kNoStream = 0xFFFFFFFFu;

/// An NVTX marker as CUPTI reports it: a range's start and end come as two records with one
/// id; an instantaneous marker as one.
struct MarkerRecord {
    uint64_t ts = 0;
    uint32_t id = 0;
    uint32_t flags = 0;  // kMarkerInstant | kMarkerStart | kMarkerEnd
    uint32_t pid = 0, tid = 0;
    uint32_t nameId = 0;    // string (start and instant records)
    uint32_t domainId = 0;  // string: the NVTX domain ("" = the default domain)
};
constexpr uint32_t kMarkerInstant = 1, kMarkerStart = 2, kMarkerEnd = 4;

/// Time CUPTI itself spent (buffer flushes, instrumentation, ...).
struct OverheadRecord {
    uint64_t start = 0, end = 0;
    uint32_t kind = 0;          // CUpti_ActivityOverheadKind
    uint32_t nameId = 0;        // string: what the kind means
    uint32_t pid = 0, tid = 0;  // the thread it happened on (0, 0: none)
};

/// Records CUPTI could not store (no buffer space): reported as an import problem.
struct DroppedRecord {
    uint64_t count = 0;
    uint64_t atCuptiNs = 0;
};

struct ThreadNameRecord {
    uint32_t pid = 0, tid = 0;
    uint32_t nameId = 0;
    uint32_t reserved = 0;
};

struct NoteRecord {
    uint32_t textId = 0;
    uint32_t reserved = 0;
};

static_assert(sizeof(ProcessRecord) == 16);
static_assert(sizeof(ClockRecord) == 32);
static_assert(sizeof(DeviceRecord) == 32);
static_assert(sizeof(ContextRecord) == 16);
static_assert(sizeof(ApiRecord) == 48);
static_assert(sizeof(KernelRecord) == 80);
static_assert(sizeof(MemcpyRecord) == 48);
static_assert(sizeof(MemsetRecord) == 48);
static_assert(sizeof(SyncRecord) == 40);
static_assert(sizeof(MarkerRecord) == 32);
static_assert(sizeof(OverheadRecord) == 32);
static_assert(sizeof(DroppedRecord) == 16);
static_assert(sizeof(ThreadNameRecord) == 16);
static_assert(sizeof(NoteRecord) == 8);

/// Writes an activity file. Thread-safe (CUPTI completes buffers on its own thread while the
/// program's threads run). Strings are written once, on first use.
class ActivityWriter {
public:
    ActivityWriter() = default;
    ~ActivityWriter();
    ActivityWriter(const ActivityWriter&) = delete;
    ActivityWriter& operator=(const ActivityWriter&) = delete;

    /// Creates (truncates) `path` and writes the header; false (and `error`) on failure.
    bool open(const std::string& path, std::string* error);
    bool isOpen() const { return m_file != nullptr; }
    /// The id of `s` in this file (0 for ""), writing its String record the first time.
    uint32_t str(std::string_view s);
    /// Appends one record of `type` with `bytes` of payload.
    void write(RecordType type, const void* payload, uint32_t bytes);
    template <class R>
    void put(RecordType type, const R& r) {
        write(type, &r, sizeof r);
    }
    /// A problem the collector met, as a Note record.
    void note(std::string_view text);
    void flush();
    void close();
    /// Bytes written so far (header included).
    uint64_t bytesWritten() const;

private:
    void writeLocked(RecordType type, const void* payload, uint32_t bytes);
    uint32_t strLocked(std::string_view s);

    mutable std::mutex m_mutex;
    std::FILE* m_file = nullptr;
    std::unordered_map<std::string, uint32_t> m_strings;
    uint64_t m_bytes = 0;
};

}  // namespace ts::profiler::gpu
