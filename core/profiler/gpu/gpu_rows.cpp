#include "core/profiler/gpu/gpu_rows.h"

#include "core/common/json.h"

namespace ts::profiler::gpu {

const char* apiCategory(ApiKind kind, std::string_view name) {
    switch (kind) {
        case ApiKind::Cuda:
            return name.starts_with("cuda") ? "cuda_runtime" : "cuda_driver";
        case ApiKind::OsRuntime:
            return "osrt";
        case ApiKind::Cublas:
            return "cublas";
        case ApiKind::Cudnn:
            return "cudnn";
        case ApiKind::Other:
            break;
    }
    return "api";
}

const char* memcpyKindName(int64_t k) {
    static const char* const kNames[] = {"Unknown",         "Host-to-Device",  "Device-to-Host",
                                         "Host-to-Array",   "Array-to-Host",   "Array-to-Array",
                                         "Array-to-Device", "Device-to-Array", "Device-to-Device",
                                         "Host-to-Host",    "Peer-to-Peer"};
    return k >= 0 && k < 11 ? kNames[k] : "Unknown";
}

const char* syncTypeName(int64_t type) {
    switch (type) {
        case 1:
            return "Event Sync";
        case 2:
            return "Stream Wait Event";
        case 3:
            return "Stream Sync";
        case 4:
            return "Context Sync";
        default:
            return "Unknown Sync";
    }
}

GpuRows::GpuRows(GpuTraceBuilder& builder)
    : m_b(builder),
      m_w(builder.writer()),
      m_kernelCat(m_w.intern("kernel")),
      m_memcpyCat(m_w.intern("gpu_memcpy")),
      m_memsetCat(m_w.intern("gpu_memset")),
      m_memsetName(m_w.intern("[CUDA memset]")),
      m_kernelName(m_w.intern("[CUDA kernel]")),
      m_flowName(m_w.intern("CUDA launch")),
      m_flowCat(m_w.intern("ac2g")) {}

int64_t GpuRows::category(ApiKind kind, std::string_view name) {
    const std::string_view cat = apiCategory(kind, name);
    if (auto it = m_apiCats.find(cat); it != m_apiCats.end()) return it->second;
    return m_apiCats.emplace(std::string(cat), m_w.intern(cat)).first->second;
}

SliceHandle GpuRows::apiCall(const ApiCall& c, const std::string& label, int order) {
    json::ArgsJson args;
    if (c.correlation) args.num("correlation", *c.correlation);
    if (c.returnValue) args.num("return value", *c.returnValue);
    const GpuSlice slice{c.start, c.end - c.start, c.nameId, category(c.kind, c.name),
                         args.empty() ? 0 : m_w.addArgs(args.done())};
    const SliceHandle h = m_b.add(m_b.threadTrack(c.globalTid, label, order), slice);
    ++m_b.counts().slices;
    if (c.correlation) addLaunch(processKey(c.globalTid), *c.correlation, {h, slice.ts, slice.dur});
    return h;
}

SliceHandle GpuRows::gpuRow(const GpuPlacement& p, int64_t nameId, int64_t catId,
                            json::ArgsJson& args, uint32_t track) {
    const GpuSlice slice{p.start, p.end - p.start, nameId, catId, m_w.addArgs(args.done())};
    const SliceHandle h = m_b.add(track, slice);
    ++m_b.counts().slices;
    if (p.correlation) {
        const int64_t pk = p.globalPid ? processKey(*p.globalPid) : -1;
        if (const Launch* launch = findLaunch(pk, *p.correlation))
            m_b.flow(launch->slice, h, m_flowName, m_flowCat);
    }
    return h;
}

uint32_t GpuRows::streamOf(const GpuPlacement& p) {
    return m_b.streamTrack(p.device, p.context, p.stream);
}

namespace {
json::ArgsJson placementArgs(const GpuPlacement& p) {
    json::ArgsJson args;
    args.num("device", p.device).num("context", p.context).num("stream", p.stream);
    if (p.correlation) args.num("correlation", *p.correlation);
    if (!p.op.empty()) args.str("op", p.op);
    return args;
}
}  // namespace

SliceHandle GpuRows::kernel(const KernelRow& k) {
    json::ArgsJson args = placementArgs(k);
    if (k.grid) args.dims("grid", (*k.grid)[0], (*k.grid)[1], (*k.grid)[2]);
    if (k.block) args.dims("block", (*k.block)[0], (*k.block)[1], (*k.block)[2]);
    if (k.registersPerThread) args.num("registers per thread", *k.registersPerThread);
    if (k.sharedMemory) args.num("shared memory", *k.sharedMemory);
    return gpuRow(k, k.nameId ? k.nameId : m_kernelName, m_kernelCat, args, streamOf(k));
}

SliceHandle GpuRows::memcpy(const MemcpyRow& m) {
    auto it = m_memcpyNames.find(m.copyKind);
    if (it == m_memcpyNames.end())
        it = m_memcpyNames
                 .emplace(m.copyKind, m_w.intern(std::string("[CUDA memcpy ") +
                                                 memcpyKindName(m.copyKind) + "]"))
                 .first;
    json::ArgsJson args = placementArgs(m);
    if (m.bytes) args.num("bytes", *m.bytes);
    args.str("kind", memcpyKindName(m.copyKind));
    if (m.bytes && m.end > m.start)
        args.real("memory bandwidth (GB/s)",
                  static_cast<double>(*m.bytes) / static_cast<double>(m.end - m.start));
    return gpuRow(m, it->second, m_memcpyCat, args, streamOf(m));
}

SliceHandle GpuRows::memset(const MemsetRow& m) {
    json::ArgsJson args = placementArgs(m);
    if (m.bytes) args.num("bytes", *m.bytes);
    if (m.value) args.num("value", *m.value);
    return gpuRow(m, m_memsetName, m_memsetCat, args, streamOf(m));
}

SliceHandle GpuRows::sync(const SyncRow& s) {
    if (!m_syncCat) m_syncCat = m_w.intern("cuda_sync");
    auto it = m_syncNames.find(s.type);
    if (it == m_syncNames.end())
        it = m_syncNames.emplace(s.type, m_w.intern(syncTypeName(s.type))).first;
    json::ArgsJson args;
    args.num("device", s.device).num("context", s.context);
    if (s.hasStream) args.num("stream", s.stream);
    if (s.correlation) args.num("correlation", *s.correlation);
    if (!s.op.empty()) args.str("op", s.op);
    if (s.cudaEvent) args.num("cuda event", *s.cudaEvent);
    const uint32_t track = s.hasStream ? streamOf(s) : m_b.contextTrack(s.device, s.context);
    return gpuRow(s, it->second, m_syncCat, args, track);
}

void GpuRows::addLaunch(int64_t pk, int64_t corr, const Launch& l) {
    auto inner = [](const Launch& a, const Launch& b) {  // a nested in (or after) b
        return a.ts > b.ts || (a.ts == b.ts && a.dur < b.dur);
    };
    auto [it, fresh] = m_launches.try_emplace({pk, corr}, l);
    if (!fresh && inner(l, it->second)) it->second = l;
    auto [any, freshAny] = m_launchByCorrelation.try_emplace(corr, l);
    if (!freshAny && inner(l, any->second)) any->second = l;
}

const GpuRows::Launch* GpuRows::findLaunch(int64_t pk, int64_t corr) const {
    if (pk < 0) {
        auto it = m_launchByCorrelation.find(corr);
        return it == m_launchByCorrelation.end() ? nullptr : &it->second;
    }
    auto it = m_launches.find({pk, corr});
    return it == m_launches.end() ? nullptr : &it->second;
}

}  // namespace ts::profiler::gpu
