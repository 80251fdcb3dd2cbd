#include "core/profiler/cuda/cupti_decode.h"

#include <cstring>

namespace ts::profiler::cuda {

using namespace ts::profiler::gpu;

const char* overheadKindName(uint32_t kind) {
    switch (kind) {
        case CUPTI_ACTIVITY_OVERHEAD_DRIVER_COMPILER:
            return "CUPTI overhead: driver compiler";
        case CUPTI_ACTIVITY_OVERHEAD_CUPTI_BUFFER_FLUSH:
            return "CUPTI overhead: buffer flush";
        case CUPTI_ACTIVITY_OVERHEAD_CUPTI_INSTRUMENTATION:
            return "CUPTI overhead: instrumentation";
        case CUPTI_ACTIVITY_OVERHEAD_CUPTI_RESOURCE:
            return "CUPTI overhead: resource";
        case CUPTI_ACTIVITY_OVERHEAD_RUNTIME_TRIGGERED_MODULE_LOADING:
            return "CUPTI overhead: module loading";
        case CUPTI_ACTIVITY_OVERHEAD_LAZY_FUNCTION_LOADING:
            return "CUPTI overhead: lazy function loading";
        case CUPTI_ACTIVITY_OVERHEAD_COMMAND_BUFFER_FULL:
            return "CUPTI overhead: command buffer full";
        case CUPTI_ACTIVITY_OVERHEAD_ACTIVITY_BUFFER_REQUEST:
            return "CUPTI overhead: activity buffer request";
        case CUPTI_ACTIVITY_OVERHEAD_UVM_ACTIVITY_INIT:
            return "CUPTI overhead: UVM activity init";
        default:
            return "CUPTI overhead";
    }
}

ActivityDecoder::ActivityDecoder(ActivityWriter& writer, CallbackNamer namer, uint32_t pid)
    : m_w(writer), m_namer(std::move(namer)), m_pid(pid) {}

namespace {
/// Copies the record (CUPTI's buffers are only 8-byte aligned; reading through a copy keeps
/// the access well defined whatever the struct's alignment).
template <class R>
R copyOf(const CUpti_Activity* record) {
    R r;
    std::memcpy(&r, record, sizeof r);
    return r;
}

/// The fields every GPU activity on a stream has: its time, device, context, stream and the
/// correlation id of the API call that launched it.
template <class Record, class Activity>
void copyPlacement(Record& r, const Activity& a) {
    r.start = a.start;
    r.end = a.end;
    r.device = a.deviceId;
    r.context = a.contextId;
    r.stream = a.streamId;
    r.correlation = a.correlationId;
}

}  // namespace

bool ActivityDecoder::decode(const CUpti_Activity* record) {
    switch (record->kind) {
        case CUPTI_ACTIVITY_KIND_KERNEL:
        case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
            kernel(copyOf<CUpti_ActivityKernel10>(record));
            break;
        case CUPTI_ACTIVITY_KIND_MEMCPY:
            memcpy(copyOf<CUpti_ActivityMemcpy6>(record));
            break;
        case CUPTI_ACTIVITY_KIND_MEMSET:
            memset(copyOf<CUpti_ActivityMemset4>(record));
            break;
        case CUPTI_ACTIVITY_KIND_DRIVER:
            api(copyOf<CUpti_ActivityAPI>(record), kApiDriver);
            break;
        case CUPTI_ACTIVITY_KIND_RUNTIME:
            api(copyOf<CUpti_ActivityAPI>(record), kApiRuntime);
            break;
        case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
            sync(copyOf<CUpti_ActivitySynchronization2>(record));
            break;
        case CUPTI_ACTIVITY_KIND_MARKER:
            marker(copyOf<CUpti_ActivityMarker2>(record));
            break;
        case CUPTI_ACTIVITY_KIND_OVERHEAD:
            overhead(copyOf<CUpti_ActivityOverhead3>(record));
            break;
        case CUPTI_ACTIVITY_KIND_DEVICE:
            device(copyOf<CUpti_ActivityDevice5>(record));
            break;
        case CUPTI_ACTIVITY_KIND_CONTEXT:
            context(copyOf<CUpti_ActivityContext3>(record));
            break;
        default:
            ++m_skipped;
            return false;
    }
    ++m_decoded;
    return true;
}

uint64_t ActivityDecoder::decodeBuffer(uint8_t* buffer, size_t valid, const NextRecord& next) {
    uint64_t n = 0;
    CUpti_Activity* record = nullptr;
    for (;;) {
        const CUptiResult r = next(buffer, valid, &record);
        if (r == CUPTI_ERROR_MAX_LIMIT_REACHED) break;
        if (r != CUPTI_SUCCESS) {
            m_w.note("a CUPTI activity buffer could not be read to its end (CUPTI result " +
                     std::to_string(static_cast<int>(r)) + "): its remaining records are lost");
            break;
        }
        if (decode(record)) ++n;
    }
    return n;
}

void ActivityDecoder::kernel(const CUpti_ActivityKernel10& k) {
    KernelRecord r;
    copyPlacement(r, k);
    r.grid[0] = k.gridX;
    r.grid[1] = k.gridY;
    r.grid[2] = k.gridZ;
    r.block[0] = k.blockX;
    r.block[1] = k.blockY;
    r.block[2] = k.blockZ;
    r.registersPerThread = k.registersPerThread;
    r.staticSharedMemory = k.staticSharedMemory;
    r.dynamicSharedMemory = k.dynamicSharedMemory;
    r.nameId = m_w.str(k.name ? k.name : "");
    r.graphId = k.graphId;
    m_w.put(RecordType::Kernel, r);
}

void ActivityDecoder::memcpy(const CUpti_ActivityMemcpy6& m) {
    MemcpyRecord r;
    copyPlacement(r, m);
    r.bytes = m.bytes;
    r.copyKind = m.copyKind;
    r.srcKind = m.srcKind;
    r.dstKind = m.dstKind;
    r.flags = m.flags;
    m_w.put(RecordType::Memcpy, r);
}

void ActivityDecoder::memset(const CUpti_ActivityMemset4& m) {
    MemsetRecord r;
    copyPlacement(r, m);
    r.bytes = m.bytes;
    r.value = m.value;
    r.memoryKind = m.memoryKind;
    m_w.put(RecordType::Memset, r);
}

void ActivityDecoder::api(const CUpti_ActivityAPI& a, uint32_t domain) {
    ApiRecord r;
    r.start = a.start;
    r.end = a.end;
    r.pid = a.processId;
    r.tid = a.threadId;
    r.correlation = a.correlationId;
    r.returnValue = a.returnValue;
    r.cbid = a.cbid;
    r.domain = domain;
    std::string name;
    {
        std::lock_guard lock(m_nameMutex);
        const uint64_t key = (uint64_t{domain} << 32) | a.cbid;
        auto it = m_names.find(key);
        if (it == m_names.end() && m_namer)
            it = m_names.emplace(key, m_namer(domain, a.cbid)).first;
        if (it != m_names.end()) name = it->second;
    }
    r.nameId = m_w.str(name);
    m_w.put(RecordType::Api, r);
}

void ActivityDecoder::sync(const CUpti_ActivitySynchronization2& s) {
    SyncRecord r;
    r.start = s.start;
    r.end = s.end;
    r.type = static_cast<uint32_t>(s.type);
    r.context = s.contextId;
    r.stream =
        s.type == CUPTI_ACTIVITY_SYNCHRONIZATION_TYPE_CONTEXT_SYNCHRONIZE ? kNoStream : s.streamId;
    r.correlation = s.correlationId;
    r.cudaEvent = s.cudaEventId;
    m_w.put(RecordType::Sync, r);
}

void ActivityDecoder::marker(const CUpti_ActivityMarker2& m) {
    MarkerRecord r;
    r.ts = m.timestamp;
    r.id = m.id;
    if (m.flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) r.flags |= kMarkerInstant;
    if (m.flags & CUPTI_ACTIVITY_FLAG_MARKER_START) r.flags |= kMarkerStart;
    if (m.flags & CUPTI_ACTIVITY_FLAG_MARKER_END) r.flags |= kMarkerEnd;
    if (m.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ||
        m.objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS) {
        r.pid = m.objectId.pt.processId;
        r.tid = m.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? m.objectId.pt.threadId : 0;
    } else {
        r.pid = m_pid;
    }
    r.nameId = m_w.str(m.name ? m.name : "");
    r.domainId = m_w.str(m.domain ? m.domain : "");
    m_w.put(RecordType::Marker, r);
}

void ActivityDecoder::overhead(const CUpti_ActivityOverhead3& o) {
    OverheadRecord r;
    r.start = o.start;
    r.end = o.end;
    r.kind = static_cast<uint32_t>(o.overheadKind);
    r.nameId = m_w.str(overheadKindName(r.kind));
    if (o.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ||
        o.objectKind == CUPTI_ACTIVITY_OBJECT_PROCESS) {
        r.pid = o.objectId.pt.processId;
        r.tid = o.objectKind == CUPTI_ACTIVITY_OBJECT_THREAD ? o.objectId.pt.threadId : 0;
    }
    m_w.put(RecordType::Overhead, r);
}

void ActivityDecoder::device(const CUpti_ActivityDevice5& d) {
    DeviceRecord r;
    r.id = d.id;
    r.nameId = m_w.str(d.name ? d.name : "");
    r.globalMemoryBytes = d.globalMemorySize;
    r.multiprocessors = d.numMultiprocessors;
    r.computeMajor = d.computeCapabilityMajor;
    r.computeMinor = d.computeCapabilityMinor;
    m_w.put(RecordType::Device, r);
}

void ActivityDecoder::context(const CUpti_ActivityContext3& c) {
    ContextRecord r;
    r.context = c.contextId;
    r.device = c.deviceId;
    r.nullStream = c.nullStreamId;
    m_w.put(RecordType::Context, r);
}

}  // namespace ts::profiler::cuda
