// Reading the collector's activity files, and the clock alignment.
#include <cmath>
#include <cstring>
#include <fstream>
#include <iterator>

#include "core/profiler/gpu/activity_import.h"

namespace ts::profiler::gpu {

const std::string& ActivityTrace::text(uint32_t id) const {
    static const std::string kEmpty;
    auto it = strings.find(id);
    return it == strings.end() ? kEmpty : it->second;
}

uint64_t ActivityTrace::droppedCount() const {
    uint64_t n = 0;
    for (const DroppedRecord& d : dropped) n += d.count;
    return n;
}

bool isActivityFile(std::string_view head) {
    return head.size() >= sizeof kActivityMagic &&
           std::memcmp(head.data(), kActivityMagic, sizeof kActivityMagic) == 0;
}

namespace {
template <class R>
bool take(std::vector<R>& out, const char* p, uint32_t n, ActivityTrace& t) {
    if (n != sizeof(R)) {
        ++t.malformedRecords;
        return false;
    }
    R r;
    std::memcpy(&r, p, sizeof r);
    out.push_back(r);
    return true;
}
}  // namespace

Result<ActivityTrace> parseActivity(std::string_view bytes) {
    if (!isActivityFile(bytes) || bytes.size() < kActivityHeaderBytes)
        return Error{"not a TrainScope CUDA activity file (no TSCUPTI header)"};
    uint32_t version = 0;
    std::memcpy(&version, bytes.data() + 8, 4);
    if (version > kActivityVersion)
        return Error{"the activity file has version " + std::to_string(version) +
                     "; this build reads up to " + std::to_string(kActivityVersion)};
    ActivityTrace t;
    size_t at = kActivityHeaderBytes;
    while (at < bytes.size()) {
        if (bytes.size() - at < 8) {
            t.truncated = true;
            break;
        }
        uint32_t head[2];
        std::memcpy(head, bytes.data() + at, sizeof head);
        const uint32_t n = head[1];
        if (bytes.size() - at - 8 < n) {
            t.truncated = true;
            break;
        }
        const char* p = bytes.data() + at + 8;
        at += 8 + static_cast<size_t>(n);
        switch (static_cast<RecordType>(head[0])) {
            case RecordType::String: {
                if (n < 4) {
                    ++t.malformedRecords;
                    break;
                }
                uint32_t id;
                std::memcpy(&id, p, 4);
                t.strings[id] = std::string(p + 4, n - 4);
                break;
            }
            case RecordType::Process: {
                std::vector<ProcessRecord> one;
                if (take(one, p, n, t)) t.process = one[0];
                break;
            }
            case RecordType::Clock:
                take(t.clocks, p, n, t);
                break;
            case RecordType::Device:
                take(t.devices, p, n, t);
                break;
            case RecordType::Context:
                take(t.contexts, p, n, t);
                break;
            case RecordType::Api:
                take(t.apis, p, n, t);
                break;
            case RecordType::Kernel:
                take(t.kernels, p, n, t);
                break;
            case RecordType::Memcpy:
                take(t.memcpys, p, n, t);
                break;
            case RecordType::Memset:
                take(t.memsets, p, n, t);
                break;
            case RecordType::Sync:
                take(t.syncs, p, n, t);
                break;
            case RecordType::Marker:
                take(t.markers, p, n, t);
                break;
            case RecordType::Overhead:
                take(t.overheads, p, n, t);
                break;
            case RecordType::Dropped:
                take(t.dropped, p, n, t);
                break;
            case RecordType::ThreadName:
                take(t.threadNames, p, n, t);
                break;
            case RecordType::Note: {
                std::vector<NoteRecord> one;
                if (take(one, p, n, t)) t.notes.push_back(t.text(one[0].textId));
                break;
            }
            default:
                ++t.unknownRecords;
                break;
        }
    }
    return t;
}

Result<ActivityTrace> readActivityFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Error{"cannot open " + path};
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return parseActivity(bytes);
}

int64_t ClockAlignment::toHost(uint64_t cuptiNs) const {
    if (!calibrated) return static_cast<int64_t>(cuptiNs);
    const double d = static_cast<double>(static_cast<int64_t>(cuptiNs - cuptiStart));
    return hostStart + std::llround(d * slope);
}

ClockAlignment alignClock(const std::vector<ClockRecord>& clocks, HostClock clock) {
    ClockAlignment a;
    const ClockRecord *start = nullptr, *end = nullptr;
    for (const ClockRecord& c : clocks) {
        if (c.point == kClockStart && !start) start = &c;
        if (c.point == kClockEnd) end = &c;
    }
    if (!start && end) std::swap(start, end);
    if (!start) {
        a.note = "the file has no clock pair: GPU and API times are CUPTI's own clock";
        return a;
    }
    auto host = [clock](const ClockRecord& c) {
        return clock == HostClock::Realtime ? c.realtimeNs : c.monotonicNs;
    };
    a.calibrated = true;
    a.cuptiStart = start->cuptiNs;
    a.hostStart = host(*start);
    if (!end) {
        a.note =
            "one clock pair only (the process ended before the collector's end): offset "
            "alignment, no drift correction";
        return a;
    }
    const double dc = static_cast<double>(static_cast<int64_t>(end->cuptiNs - start->cuptiNs));
    const double dh = static_cast<double>(host(*end) - host(*start));
    if (dc <= 0) return a;
    const double slope = dh / dc;
    if (std::fabs(slope - 1.0) > 0.01) {
        a.note = "the CUPTI and host clocks disagree by " +
                 std::to_string(std::lround((slope - 1.0) * 100.0)) +
                 " % between the start and end pairs: offset alignment only";
        return a;
    }
    a.slope = slope;
    return a;
}

}  // namespace ts::profiler::gpu
