#include "core/analysis/gpu/kernel_table.h"

#include <algorithm>
#include <cstdio>
#include <functional>
#include <unordered_map>

#include "core/analysis/gpu/occupancy.h"
#include "core/common/csv.h"

namespace ts::analysis::gpu {
namespace {

std::string dimsText(const std::array<int64_t, 3>& d) {
    return "[" + std::to_string(d[0]) + "," + std::to_string(d[1]) + "," + std::to_string(d[2]) +
           "]";
}

struct Acc {
    KernelRow row;
    double occWeighted = 0;
    int64_t occTime = 0;
    double bpsSum = 0;
    int64_t bpsCount = 0;
    std::map<std::pair<std::string, std::string>, int64_t> ops;  // (op, shapes) -> calls
    std::vector<std::pair<int64_t, int64_t>> longest;            // (dur, slice id)
    bool sameConfig = true;
    std::array<int64_t, 3> grid{}, block{};
    int64_t regs = -1, smem = -1, device = -1;
    std::map<std::string, std::pair<double, int64_t>> pipeline;  // sum of value x dur, dur
    std::map<std::string, int64_t> shapes;                       // Ascend's own input shapes
};

std::string num(double v, int digits) {
    char b[64];
    std::snprintf(b, sizeof b, "%.*f", digits, v);
    return b;
}

}  // namespace

std::string ascendBound(const std::map<std::string, double>& p) {
    auto get = [&](const char* k) {
        auto it = p.find(k);
        return it == p.end() ? 0.0 : it->second;
    };
    const double compute = std::max({get("aic_mac_ratio"), get("aiv_vec_ratio")});
    const double memory = std::max({get("aic_mte1_ratio"), get("aic_mte2_ratio"),
                                    get("aiv_mte2_ratio"), get("aiv_mte3_ratio")});
    const double scalar = std::max(get("aic_scalar_ratio"), get("aiv_scalar_ratio"));
    if (compute == 0 && memory == 0 && scalar == 0) return {};
    if (scalar > compute && scalar > memory) return "scalar";
    return compute >= memory ? "compute" : "memory";
}

KernelTable buildKernelTable(const GpuTrace& g, const KernelTableOptions& opt) {
    KernelTable t;
    t.grouping = opt.grouping;
    std::unordered_map<std::string, size_t> index;
    std::vector<Acc> accs;
    for (const DeviceActivity& a : g.activities) {
        if (a.kind == ActivityKind::Sync) continue;
        if (!opt.includeMemory && a.kind != ActivityKind::Kernel) continue;
        const std::string& name = g.name(a);
        std::string key = name;
        if (opt.grouping == KernelGrouping::NameAndConfig && a.kind == ActivityKind::Kernel) {
            key += '\x1f' + dimsText(a.grid) + dimsText(a.block) + '\x1f' +
                   std::to_string(a.registers) + '\x1f' + std::to_string(a.sharedMemory);
        }
        auto [it, fresh] = index.emplace(key, accs.size());
        if (fresh) {
            Acc acc;
            acc.row.name = name;
            acc.row.kind = a.kind == ActivityKind::Kernel
                               ? (a.communication ? "communication" : "kernel")
                               : activityKindKey(a.kind);
            acc.grid = a.grid;
            acc.block = a.block;
            acc.regs = a.registers;
            acc.smem = a.sharedMemory;
            acc.device = a.device;
            acc.row.minNs = a.dur;
            acc.row.maxNs = a.dur;
            accs.push_back(std::move(acc));
        }
        Acc& acc = accs[it->second];
        KernelRow& r = acc.row;
        ++r.calls;
        r.totalNs += a.dur;
        r.minNs = std::min(r.minNs, a.dur);
        r.maxNs = std::max(r.maxNs, a.dur);
        r.tensorCore = r.tensorCore || a.tensorCore;
        r.communication = r.communication || a.communication;
        if (acc.grid != a.grid || acc.block != a.block || acc.regs != a.registers ||
            acc.smem != a.sharedMemory)
            acc.sameConfig = false;
        // Occupancy: Kineto's where given, else Kineto's own formula from the device.
        double occ = a.occupancyPct >= 0 ? a.occupancyPct / 100.0 : -1;
        double bps = a.blocksPerSm;
        if (a.kind == ActivityKind::Kernel && (occ < 0 || bps < 0) && a.grid[0] > 0) {
            if (const DeviceProperties* d = deviceById(g.devices, std::max<int64_t>(0, a.device))) {
                LaunchShape s{a.grid[0],
                              a.grid[1],
                              a.grid[2],
                              a.block[0],
                              a.block[1],
                              a.block[2],
                              std::max<int64_t>(0, a.registers),
                              std::max<int64_t>(0, a.sharedMemory)};
                if (auto res = computeOccupancy(*d, s, OccupancyMode::Kineto)) {
                    if (occ < 0) occ = res->estimatedAchieved;
                    if (bps < 0) bps = res->blocksPerSm;
                }
            }
        }
        if (occ >= 0) {
            acc.occWeighted += occ * static_cast<double>(a.dur);
            acc.occTime += a.dur;
        }
        if (bps >= 0) {
            acc.bpsSum += bps;
            ++acc.bpsCount;
        }
        if (const HostEvent* op = g.launchingOp(a)) ++acc.ops[{g.name(*op), op->inputDims}];
        if (a.ascend >= 0) {
            const AscendKernelInfo& k = g.ascend[static_cast<size_t>(a.ascend)];
            r.acceleratorCore = k.acceleratorCore;
            r.blockDim = k.blockDim;
            if (r.kind == "kernel" && !k.type.empty()) r.kind = k.type;
            const auto w = static_cast<double>(std::max<int64_t>(1, a.dur));
            for (const auto& [name, v] : k.pipeline) {
                auto& e = acc.pipeline[name];
                e.first += v * w;
                e.second += std::max<int64_t>(1, a.dur);
                if (std::find(t.pipelineColumns.begin(), t.pipelineColumns.end(), name) ==
                    t.pipelineColumns.end())
                    t.pipelineColumns.push_back(name);
            }
            if (!k.inputShapes.empty()) ++acc.shapes[k.inputShapes];
        }
        acc.longest.emplace_back(a.dur, a.sliceId);
        if (acc.longest.size() > 64) {
            std::nth_element(acc.longest.begin(), acc.longest.begin() + 16, acc.longest.end(),
                             std::greater<>());
            acc.longest.resize(16);
        }
        ++t.calls;
        t.totalNs += a.dur;
    }
    for (Acc& acc : accs) {
        KernelRow& r = acc.row;
        r.meanNs = r.calls ? static_cast<double>(r.totalNs) / static_cast<double>(r.calls) : 0;
        r.share =
            t.totalNs > 0 ? static_cast<double>(r.totalNs) / static_cast<double>(t.totalNs) : 0;
        if (acc.occTime > 0) {
            r.occupancy = acc.occWeighted / static_cast<double>(acc.occTime);
            t.hasOccupancy = true;
        }
        if (acc.bpsCount > 0) r.blocksPerSm = acc.bpsSum / static_cast<double>(acc.bpsCount);
        const bool config = opt.grouping == KernelGrouping::NameAndConfig || acc.sameConfig;
        if (config && r.kind != "memcpy" && r.kind != "memset" && acc.grid[0] > 0) {
            r.grid = dimsText(acc.grid);
            r.block = dimsText(acc.block);
            r.registers = acc.regs;
            r.sharedMemory = acc.smem;
            if (const DeviceProperties* d =
                    deviceById(g.devices, std::max<int64_t>(0, acc.device))) {
                LaunchShape s{acc.grid[0],
                              acc.grid[1],
                              acc.grid[2],
                              acc.block[0],
                              acc.block[1],
                              acc.block[2],
                              std::max<int64_t>(0, acc.regs),
                              std::max<int64_t>(0, acc.smem)};
                if (auto res = computeOccupancy(*d, s, OccupancyMode::OptIn)) {
                    r.theoretical = res->theoretical;
                    r.limitedBy = res->limitedBy;
                }
            }
        }
        int64_t best = 0;
        for (const auto& [key, calls] : acc.ops)
            if (calls > best) {
                best = calls;
                r.op = key.first;
                r.inputShapes = key.second;
            }
        // The op's calls count every input shape it launched this kernel with.
        for (const auto& [key, calls] : acc.ops)
            if (key.first == r.op) r.opCalls += calls;
        // Ascend: the kernel's own input shapes (kernel_details.csv), the commonest.
        if (r.inputShapes.empty()) {
            int64_t most = 0;
            for (const auto& [shape, n] : acc.shapes)
                if (n > most) {
                    most = n;
                    r.inputShapes = shape;
                }
        }
        for (const auto& [name, e] : acc.pipeline)
            if (e.second > 0) r.pipeline[name] = e.first / static_cast<double>(e.second);
        if (!r.pipeline.empty()) {
            t.hasPipeline = true;
            r.bound = ascendBound(r.pipeline);
        }
        std::sort(acc.longest.begin(), acc.longest.end(), std::greater<>());
        for (size_t i = 0; i < acc.longest.size() && i < 16; ++i)
            r.sliceIds.push_back(acc.longest[i].second);
        t.rows.push_back(std::move(r));
    }
    std::stable_sort(t.rows.begin(), t.rows.end(),
                     [](const KernelRow& x, const KernelRow& y) { return x.totalNs > y.totalNs; });
    return t;
}

std::string kernelTableCsv(const KernelTable& t) {
    std::string out =
        "name,kind,grid,block,registers per thread,shared memory (bytes),calls,total (ns),"
        "mean (ns),min (ns),max (ns),share of kernel time,est. achieved occupancy,"
        "theoretical occupancy,occupancy limited by,mean blocks per SM,tensor cores,"
        "launching op,op input shapes,op calls";
    if (t.hasPipeline) {
        out += ",accelerator core,block dim,bound";
        for (const auto& c : t.pipelineColumns) out += "," + csvField(c);
    }
    out += '\n';
    for (const KernelRow& r : t.rows) {
        out += csvField(r.name) + ',' + csvField(r.kind) + ',' + csvField(r.grid) + ',' +
               csvField(r.block) + ',' + (r.registers >= 0 ? std::to_string(r.registers) : "") +
               ',' + (r.sharedMemory >= 0 ? std::to_string(r.sharedMemory) : "") + ',' +
               std::to_string(r.calls) + ',' + std::to_string(r.totalNs) + ',' + num(r.meanNs, 1) +
               ',' + std::to_string(r.minNs) + ',' + std::to_string(r.maxNs) + ',' +
               num(r.share, 6) + ',' + (r.occupancy ? num(*r.occupancy, 4) : "") + ',' +
               (r.theoretical ? num(*r.theoretical, 4) : "") + ',' + csvField(r.limitedBy) + ',' +
               (r.blocksPerSm >= 0 ? num(r.blocksPerSm, 3) : "") + ',' +
               (r.tensorCore ? "yes" : "no") + ',' + csvField(r.op) + ',' +
               csvField(r.inputShapes) + ',' + std::to_string(r.opCalls);
        if (t.hasPipeline) {
            out += ',' + csvField(r.acceleratorCore) + ',' +
                   (r.blockDim >= 0 ? std::to_string(r.blockDim) : "") + ',' + r.bound;
            for (const auto& c : t.pipelineColumns) {
                auto it = r.pipeline.find(c);
                out += ',' + (it == r.pipeline.end() ? std::string() : num(it->second, 6));
            }
        }
        out += '\n';
    }
    return out;
}

}  // namespace ts::analysis::gpu
