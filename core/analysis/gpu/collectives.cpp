#include "core/analysis/gpu/collectives.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <tuple>
#include "core/common/text.h"

namespace ts::analysis::gpu {
namespace {}  // namespace

int64_t dtypeBytes(std::string_view dtype) {
    std::string d = asciiLower(dtype);
    if (auto p = d.rfind("::"); p != std::string::npos) d = d.substr(p + 2);
    if (d == "float" || d == "float32" || d == "int" || d == "int32" || d == "uint32" ||
        d == "complexhalf")
        return 4;
    if (d == "double" || d == "float64" || d == "long" || d == "int64" || d == "uint64" ||
        d == "complexfloat")
        return 8;
    if (d == "half" || d == "float16" || d == "bfloat16" || d == "short" || d == "int16" ||
        d == "uint16")
        return 2;
    if (d == "byte" || d == "char" || d == "bool" || d == "int8" || d == "uint8" ||
        d.rfind("float8", 0) == 0)
        return 1;
    if (d == "complexdouble") return 16;
    return 0;
}

double busBandwidthFactor(std::string_view name, int64_t n) {
    const std::string s = asciiLower(name);
    if (n <= 0) return 1;
    const double dn = static_cast<double>(n);
    auto has = [&](const char* k) { return s.find(k) != std::string::npos; };
    if (has("allreduce") || has("all_reduce")) return 2.0 * (dn - 1) / dn;
    if (has("allgather") || has("all_gather") || has("reduce_scatter") || has("reducescatter") ||
        has("alltoall") || has("all_to_all"))
        return (dn - 1) / dn;
    return 1.0;
}

CommunicationStats computeCommunication(const GpuTrace& g) {
    CommunicationStats out;
    using Key = std::tuple<std::string, std::string, std::string, int64_t, int64_t>;
    std::map<Key, CollectiveStat> groups;
    for (const DeviceActivity& a : g.activities) {
        if (a.kind != ActivityKind::Kernel || !a.communication) continue;
        ++out.communicationKernels;
        out.communicationNs += a.dur;
        if (a.collective < 0) {
            ++out.kernelsWithoutArgs;
            out.nsWithoutArgs += a.dur;
            continue;
        }
        const CollectiveArgs& c = g.collectives[static_cast<size_t>(a.collective)];
        const int64_t elem = dtypeBytes(c.dtype);
        const int64_t nelems = std::max(c.inNelems, c.outNelems);
        const int64_t bytes = elem > 0 && nelems >= 0 ? elem * nelems : -1;
        const Key key{c.name, c.processGroup, c.dtype, c.groupSize, bytes};
        auto [it, fresh] = groups.emplace(key, CollectiveStat{});
        CollectiveStat& s = it->second;
        if (fresh) {
            s.name = c.name;
            s.processGroup = c.processGroup;
            s.dtype = c.dtype;
            s.groupSize = c.groupSize;
            s.bytesPerCall = bytes;
            s.minNs = a.dur;
            s.maxNs = a.dur;
            s.busFactor = busBandwidthFactor(c.name, c.groupSize);
        }
        ++s.calls;
        s.timeNs += a.dur;
        s.minNs = std::min(s.minNs, a.dur);
        s.maxNs = std::max(s.maxNs, a.dur);
        if (bytes > 0) s.bytes += bytes;
    }
    for (auto& [key, s] : groups) {
        if (s.bytes > 0 && s.timeNs > 0) {
            s.algbwGBs = static_cast<double>(s.bytes) / static_cast<double>(s.timeNs);
            s.busbwGBs = s.algbwGBs * s.busFactor;
        }
        out.collectives.push_back(std::move(s));
    }
    std::stable_sort(
        out.collectives.begin(), out.collectives.end(),
        [](const CollectiveStat& x, const CollectiveStat& y) { return x.timeNs > y.timeNs; });
    return out;
}

}  // namespace ts::analysis::gpu
