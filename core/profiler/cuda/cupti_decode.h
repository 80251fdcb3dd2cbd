#pragma once
// CUPTI activity records -> the collector's activity file (core/profiler/gpu/activity_format.h).
// Pure host code over CUPTI's own record structs (cupti_activity.h, CUDA 13: Kernel10,
// Memcpy6, Memset4, API, Synchronization2, Marker2, Overhead3, Device5, Context3): no CUPTI
// function is called here, so tests fill the structs themselves and check what comes out
// without a GPU or a driver. The collector (cupti_collector.cpp) walks CUPTI's buffers with
// cuptiActivityGetNextRecord and hands each record to decode().
#include <cupti_activity.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <unordered_map>

#include "core/profiler/gpu/activity_format.h"

namespace ts::profiler::cuda {

/// The name of an API callback: `domain` is gpu::kApiDriver or gpu::kApiRuntime. The
/// collector asks cuptiGetCallbackName; tests pass a table.
using CallbackNamer = std::function<std::string(uint32_t domain, uint32_t cbid)>;

/// Decodes records of the kinds the collector enables into `writer`. Thread-safe as far as
/// the writer is (CUPTI completes buffers on its own thread).
class ActivityDecoder {
public:
    ActivityDecoder(gpu::ActivityWriter& writer, CallbackNamer namer, uint32_t pid);

    /// Writes one record; false for kinds it does not keep (counted in skipped()).
    bool decode(const CUpti_Activity* record);
    /// Walks `valid` bytes of a completed buffer with `next` (cuptiActivityGetNextRecord's
    /// contract: CUPTI_SUCCESS and the next record, CUPTI_ERROR_MAX_LIMIT_REACHED at the end;
    /// any other result stops the walk and is written as a note). Returns records decoded.
    using NextRecord =
        std::function<CUptiResult(uint8_t* buffer, size_t valid, CUpti_Activity** record)>;
    uint64_t decodeBuffer(uint8_t* buffer, size_t valid, const NextRecord& next);

    uint64_t decoded() const { return m_decoded; }
    uint64_t skipped() const { return m_skipped; }

private:
    void kernel(const CUpti_ActivityKernel10& k);
    void memcpy(const CUpti_ActivityMemcpy6& m);
    void memset(const CUpti_ActivityMemset4& m);
    void api(const CUpti_ActivityAPI& a, uint32_t domain);
    void sync(const CUpti_ActivitySynchronization2& s);
    void marker(const CUpti_ActivityMarker2& m);
    void overhead(const CUpti_ActivityOverhead3& o);
    void device(const CUpti_ActivityDevice5& d);
    void context(const CUpti_ActivityContext3& c);

    gpu::ActivityWriter& m_w;
    CallbackNamer m_namer;
    uint32_t m_pid;
    std::atomic<uint64_t> m_decoded{0}, m_skipped{0};
    std::mutex m_nameMutex;  // one name per (domain, cbid): cuptiGetCallbackName is not free
    std::unordered_map<uint64_t, std::string> m_names;
};

/// What CUpti_ActivityOverheadKind `kind` means ("CUPTI buffer flush", ...).
const char* overheadKindName(uint32_t kind);

}  // namespace ts::profiler::cuda
