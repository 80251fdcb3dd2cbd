// libtrainscope_cupti.so: CUPTI's Activity API into the collector's activity file
// (cupti_collector.h). Buffers are handed to CUPTI on request and decoded when it
// completes them (on CUPTI's thread), so the program's threads only pay CUPTI's own cost.
#include "core/profiler/cuda/cupti_collector.h"

#include <cupti.h>
#include <dirent.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <memory>
#include <mutex>
#include <string>

#include "core/profiler/cuda/cupti_decode.h"
#include "core/profiler/gpu/activity_format.h"

namespace ts::profiler::cuda {
namespace {

using gpu::ActivityWriter;

constexpr size_t kAlign = 8;

std::string cuptiError(CUptiResult r) {
    const char* s = nullptr;
    if (cuptiGetResultString(r, &s) != CUPTI_SUCCESS || !s) return std::to_string(r);
    return s;
}

int64_t clockNs(clockid_t id) {
    timespec ts{};
    clock_gettime(id, &ts);
    return int64_t{ts.tv_sec} * 1000000000 + ts.tv_nsec;
}

std::string readFirstLine(const std::string& path) {
    std::ifstream in(path);
    std::string line;
    std::getline(in, line);
    return line;
}

/// The collection of this process (one at a time).
class Collector {
public:
    static Collector& instance() {
        static Collector* c = new Collector();  // never destroyed: CUPTI may call back late
        return *c;
    }

    bool start(const std::string& path, bool injected, std::string* error) {
        std::lock_guard lock(m_mutex);
        if (m_active) {
            *error = "the CUPTI collector is already recording into " + m_path;
            return false;
        }
        if (!m_writer.open(path, error)) return false;
        m_path = path;
        const uint32_t pid = static_cast<uint32_t>(::getpid());
        m_decoder = std::make_unique<ActivityDecoder>(
            m_writer,
            [](uint32_t domain, uint32_t cbid) {
                const char* name = nullptr;
                const auto d = domain == gpu::kApiDriver ? CUPTI_CB_DOMAIN_DRIVER_API
                                                         : CUPTI_CB_DOMAIN_RUNTIME_API;
                if (cuptiGetCallbackName(d, cbid, &name) != CUPTI_SUCCESS || !name)
                    return std::string();
                return std::string(name);
            },
            pid);
        gpu::ProcessRecord p;
        p.pid = pid;
        p.nameId = m_writer.str(readFirstLine("/proc/self/comm"));
        uint32_t version = 0;
        if (cuptiGetVersion(&version) == CUPTI_SUCCESS) p.cuptiVersion = version;
        p.flags = injected ? gpu::kProcessInjected : 0;
        m_writer.put(gpu::RecordType::Process, p);

        if (auto r = cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM); r != CUPTI_SUCCESS)
            m_writer.note("cuptiSetThreadIdType(SYSTEM) failed (" + cuptiError(r) +
                          "): thread ids are CUPTI's, not the OS's");
        if (!m_callbacksRegistered) {
            const CUptiResult r =
                cuptiActivityRegisterCallbacks(&bufferRequested, &bufferCompleted);
            if (r != CUPTI_SUCCESS) {
                *error = "cuptiActivityRegisterCallbacks failed: " + cuptiError(r) +
                         " (no CUDA driver, or another tool holds CUPTI)";
                m_writer.note(*error);
                m_writer.close();
                return false;
            }
            m_callbacksRegistered = true;
        }
        int enabled = 0;
        std::string firstError;
        for (const auto& [kind, what] : kKinds) {
            const CUptiResult r = cuptiActivityEnable(kind);
            if (r == CUPTI_SUCCESS) {
                ++enabled;
                continue;
            }
            if (firstError.empty()) firstError = cuptiError(r);
            m_writer.note(std::string("cuptiActivityEnable(") + what +
                          ") failed: " + cuptiError(r) + ": " + what + " are not recorded");
        }
        if (enabled == 0) {
            *error = "CUPTI could not enable any activity kind (" + firstError +
                     "): is there an NVIDIA driver and GPU? Nothing is recorded";
            m_writer.close();
            return false;
        }
        clockPair(gpu::kClockStart);
        m_active = true;
        return true;
    }

    bool stop(std::string* error) {
        std::lock_guard lock(m_mutex);
        if (!m_active) {
            *error = "the CUPTI collector is not recording";
            return false;
        }
        if (auto r = cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED); r != CUPTI_SUCCESS)
            m_writer.note("cuptiActivityFlushAll failed: " + cuptiError(r) +
                          ": the last records may be missing");
        for (const auto& [kind, what] : kKinds) (void)cuptiActivityDisable(kind);
        recordDropped();
        clockPair(gpu::kClockEnd);
        threadNames();
        m_writer.close();
        m_active = false;
        return true;
    }

    bool active() const { return m_active; }

private:
    static constexpr std::pair<CUpti_ActivityKind, const char*> kKinds[] = {
        {CUPTI_ACTIVITY_KIND_DEVICE, "devices"},
        {CUPTI_ACTIVITY_KIND_CONTEXT, "contexts"},
        {CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "kernels"},
        {CUPTI_ACTIVITY_KIND_MEMCPY, "memcpys"},
        {CUPTI_ACTIVITY_KIND_MEMSET, "memsets"},
        {CUPTI_ACTIVITY_KIND_RUNTIME, "runtime API calls"},
        {CUPTI_ACTIVITY_KIND_DRIVER, "driver API calls"},
        {CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "synchronisations"},
        {CUPTI_ACTIVITY_KIND_MARKER, "NVTX markers"},
        {CUPTI_ACTIVITY_KIND_OVERHEAD, "CUPTI overheads"},
    };

    static void CUPTIAPI bufferRequested(uint8_t** buffer, size_t* size, size_t* maxRecords) {
        size_t mb = 8;
        if (const char* e = std::getenv("TRAINSCOPE_CUPTI_BUFFER_MB"))
            mb = std::max<size_t>(1, std::strtoul(e, nullptr, 10));
        *size = mb << 20;
        *buffer = static_cast<uint8_t*>(std::aligned_alloc(kAlign, *size));
        if (!*buffer) *size = 0;  // CUPTI counts what it cannot store as dropped
        *maxRecords = 0;
    }

    static void CUPTIAPI bufferCompleted(CUcontext context, uint32_t streamId, uint8_t* buffer,
                                         size_t, size_t valid) {
        Collector& c = instance();
        if (c.m_decoder && valid > 0)
            c.m_decoder->decodeBuffer(buffer, valid, &cuptiActivityGetNextRecord);
        size_t dropped = 0;
        if (cuptiActivityGetNumDroppedRecords(context, streamId, &dropped) == CUPTI_SUCCESS &&
            dropped > 0)
            c.writeDropped(dropped);
        std::free(buffer);
    }

    void writeDropped(size_t n) {
        gpu::DroppedRecord d;
        d.count = n;
        uint64_t ts = 0;
        if (cuptiGetTimestamp(&ts) == CUPTI_SUCCESS) d.atCuptiNs = ts;
        m_writer.put(gpu::RecordType::Dropped, d);
    }

    void recordDropped() {
        size_t dropped = 0;
        if (cuptiActivityGetNumDroppedRecords(nullptr, 0, &dropped) == CUPTI_SUCCESS && dropped > 0)
            writeDropped(dropped);
    }

    /// The CUPTI timestamp between two reads of each host clock (their midpoints).
    void clockPair(uint32_t point) {
        gpu::ClockRecord c;
        c.point = point;
        const int64_t m0 = clockNs(CLOCK_MONOTONIC), r0 = clockNs(CLOCK_REALTIME);
        uint64_t ts = 0;
        const CUptiResult res = cuptiGetTimestamp(&ts);
        const int64_t m1 = clockNs(CLOCK_MONOTONIC), r1 = clockNs(CLOCK_REALTIME);
        if (res != CUPTI_SUCCESS) {
            m_writer.note("cuptiGetTimestamp failed: " + cuptiError(res) +
                          ": this clock pair is missing");
            return;
        }
        c.cuptiNs = ts;
        c.monotonicNs = m0 + (m1 - m0) / 2;
        c.realtimeNs = r0 + (r1 - r0) / 2;
        m_writer.put(gpu::RecordType::Clock, c);
    }

    /// Names of the threads alive now (/proc/self/task/<tid>/comm).
    void threadNames() {
        DIR* d = opendir("/proc/self/task");
        if (!d) return;
        const auto pid = static_cast<uint32_t>(::getpid());
        while (const dirent* e = readdir(d)) {
            if (e->d_name[0] < '0' || e->d_name[0] > '9') continue;
            gpu::ThreadNameRecord t;
            t.pid = pid;
            t.tid = static_cast<uint32_t>(std::strtoul(e->d_name, nullptr, 10));
            t.nameId =
                m_writer.str(readFirstLine(std::string("/proc/self/task/") + e->d_name + "/comm"));
            m_writer.put(gpu::RecordType::ThreadName, t);
        }
        closedir(d);
    }

    std::mutex m_mutex;
    ActivityWriter m_writer;
    std::unique_ptr<ActivityDecoder> m_decoder;
    std::string m_path;
    bool m_active = false;
    bool m_callbacksRegistered = false;
};

void copyError(const std::string& what, char* error, size_t size) {
    if (!error || size == 0) return;
    const size_t n = std::min(size - 1, what.size());
    std::memcpy(error, what.data(), n);
    error[n] = '\0';
}

void stopAtExit() {
    std::string error;
    if (Collector::instance().active()) (void)Collector::instance().stop(&error);
}

}  // namespace
}  // namespace ts::profiler::cuda

using ts::profiler::cuda::Collector;
using ts::profiler::cuda::copyError;

int trainscope_cupti_start(const char* path, char* error, size_t size) {
    std::string why;
    if (!path || !*path) {
        copyError("no output path", error, size);
        return 1;
    }
    if (!Collector::instance().start(path, false, &why)) {
        copyError(why, error, size);
        return 1;
    }
    return 0;
}

int trainscope_cupti_stop(char* error, size_t size) {
    std::string why;
    if (!Collector::instance().stop(&why)) {
        copyError(why, error, size);
        return 1;
    }
    return 0;
}

int InitializeInjection(void) {
    const char* dir = std::getenv("TRAINSCOPE_CUPTI_DIR");
    std::string path = dir && *dir ? std::string(dir) + "/" : std::string("trainscope-");
    path += "cuda-" + std::to_string(::getpid()) + ".tscupti";
    std::string why;
    if (!Collector::instance().start(path, true, &why)) {
        std::fprintf(stderr, "trainscope CUPTI collector: %s\n", why.c_str());
        return 1;  // the program goes on untraced; the file's notes say why
    }
    std::atexit(&ts::profiler::cuda::stopAtExit);
    return 1;
}
