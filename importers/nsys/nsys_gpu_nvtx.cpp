// Nsight Systems export readers, part 2: NVTX annotations and GPU activity (kernels,
// memcpy, memset) with their launch flows.
#include <map>

#include "importers/nsys/nsys_tables.h"

namespace ts::importers::nsys {
namespace {

// NVTX event types (nsys ENUM_NSYS_EVENT_TYPE); the NVTXT variants come from older
// NVTX injection and mean the same.
constexpr int kNvtxCategory = 33, kNvtxMark = 34, kNvtxThreadName = 39, kNvtxPushPop = 59,
              kNvtxStartEnd = 60, kNvtxtPushPop = 70, kNvtxtStartEnd = 71, kNvtxDomainCreate = 75,
              kNvtxDomainDestroy = 76;

/// "a, b, c" -> "coalesce(a, b, c)" over the columns of `table` that exist ("NULL" if none).
std::string coalesceOf(const NsysSchema& s, const std::string& table,
                       std::initializer_list<const char*> columns) {
    std::string out;
    int n = 0;
    for (const char* c : columns)
        if (s.hasColumn(table, c)) out += (n++ ? ", " : "") + std::string(c);
    if (n == 0) return "NULL";
    return n == 1 ? out : "coalesce(" + out + ")";
}

}  // namespace

bool readNvtx(NsysReadContext& c) {
    const std::string t = "NVTX_EVENTS";
    const NsysSchema& s = c.schema;
    if (!s.hasColumns(t, {"start", "eventType", "globalTid"})) {
        if (s.hasTable(t))
            c.skip("nsys_table_missing_columns", t + " lacks start/eventType/globalTid");
        return true;
    }
    const std::string end = s.columnOr(t, "end"), text = s.columnOr(t, "text"),
                      textId = s.columnOr(t, "textId"), domain = s.columnOr(t, "domainId"),
                      endTid = s.columnOr(t, "endGlobalTid"), category = s.columnOr(t, "category");
    const std::string intPayload =
        coalesceOf(s, t, {"int64Value", "uint64Value", "int32Value", "uint32Value"});
    const std::string realPayload = coalesceOf(s, t, {"doubleValue", "floatValue"});
    // Domains: created per process; their names become the categories of their ranges.
    std::map<std::pair<int64_t, int64_t>, std::string> domains;
    {
        store::Statement st = c.db.prepare(
            "SELECT globalTid, " + domain + ", " + text + ", " + textId +
            " FROM NVTX_EVENTS WHERE eventType = " + std::to_string(kNvtxDomainCreate));
        while (st.step())
            domains[{processKey(st.int64(0)), st.int64(1)}] =
                st.isNull(3) ? st.text(2) : c.text(st.int64(3));
    }
    store::Statement st =
        c.db.prepare("SELECT start, " + end + ", eventType, " + text + ", " + textId +
                     ", globalTid, " + endTid + ", " + domain + ", " + category + ", " +
                     intPayload + ", " + realPayload + " FROM NVTX_EVENTS");
    const int64_t nvtxCat = c.w.intern("nvtx");
    std::map<std::string, int64_t> catIds;
    int64_t metadata = 0;
    while (st.step()) {
        if (!c.tick()) return false;
        const int type = static_cast<int>(st.int64(2));
        if (type == kNvtxCategory || type == kNvtxThreadName || type == kNvtxDomainCreate ||
            type == kNvtxDomainDestroy) {
            ++metadata;
            continue;
        }
        const bool pushPop = type == kNvtxPushPop || type == kNvtxtPushPop;
        const bool startEnd = type == kNvtxStartEnd || type == kNvtxtStartEnd;
        if (!pushPop && !startEnd && type != kNvtxMark) {
            c.skip("nsys_nvtx_unknown_type",
                   "NVTX event of type " + std::to_string(type) + " is not imported");
            continue;
        }
        if (st.isNull(5)) {
            c.skip("nsys_missing_thread", "NVTX event without globalTid");
            continue;
        }
        const int64_t gtid = st.int64(5), start = st.int64(0);
        std::string name = st.isNull(4) ? st.text(3) : c.text(st.int64(4));
        if (name.empty()) name = "(unnamed)";
        int64_t cat = nvtxCat;
        if (!st.isNull(7) && st.int64(7) != 0) {
            auto d = domains.find({processKey(gtid), st.int64(7)});
            const std::string dn =
                d == domains.end() ? "domain " + std::to_string(st.int64(7)) : d->second;
            auto it = catIds.find(dn);
            if (it == catIds.end()) it = catIds.emplace(dn, c.w.intern(dn)).first;
            cat = it->second;
        }
        ArgsJson args;
        if (!st.isNull(8) && st.int64(8) != 0) args.num("category", st.int64(8));
        if (!st.isNull(9))
            args.num("payload", st.int64(9));
        else if (!st.isNull(10))
            args.real("payload", st.real(10));
        if (!st.isNull(6) && st.int64(6) != gtid) args.num("end thread", tidOf(st.int64(6)));
        const std::string json = args.done();
        const int64_t argId = json == "{}" ? 0 : c.w.addArgs(json);
        const int64_t nameId = c.w.intern(name);
        if (type == kNvtxMark) {
            c.b.instant(c.b.threadTrack(gtid, "NVTX", 0), start + c.timeBase, nameId, cat, argId);
            continue;
        }
        if (!st.isNull(1) && st.int64(1) < start) {
            c.skip("nsys_negative_duration", "NVTX range ending before it starts");
            continue;
        }
        const profiler::gpu::GpuSlice slice{
            start + c.timeBase, st.isNull(1) ? -1 : st.int64(1) - start, nameId, cat, argId};
        if (pushPop) {
            c.b.add(c.b.threadTrack(gtid, "NVTX", 0), slice);
            ++c.b.counts().slices;
        } else {
            c.b.add(c.b.asyncTrack(processKey(gtid), "NVTX start/end ranges"), slice);
            ++c.b.counts().asyncSlices;
        }
    }
    if (!st.error().empty()) c.skip("nsys_table_read_error", t + ": " + st.error());
    c.nvtxMetadata += metadata;
    return true;
}

bool readGpuTable(NsysReadContext& c, const std::string& t) {
    const NsysSchema& s = c.schema;
    if (!s.hasColumns(t, {"start", "end", "streamId"})) {
        if (s.hasTable(t)) c.skip("nsys_table_missing_columns", t + " lacks start/end/streamId");
        return true;
    }
    enum class Kind { Kernel, Memcpy, Memset } kind = Kind::Kernel;
    if (t.ends_with("MEMCPY")) kind = Kind::Memcpy;
    if (t.ends_with("MEMSET")) kind = Kind::Memset;
    std::string cols = "start, end, " + s.columnOr(t, "deviceId", "0") + ", " +
                       s.columnOr(t, "contextId", "0") + ", streamId, " +
                       s.columnOr(t, "correlationId") + ", " + s.columnOr(t, "globalPid");
    if (kind == Kind::Kernel) {
        cols += ", " + coalesceOf(s, t, {"demangledName", "shortName", "mangledName"});
        for (const char* k : {"gridX", "gridY", "gridZ", "blockX", "blockY", "blockZ",
                              "registersPerThread", "staticSharedMemory", "dynamicSharedMemory"})
            cols += ", " + s.columnOr(t, k);
    } else if (kind == Kind::Memcpy) {
        cols += ", " + s.columnOr(t, "bytes") + ", " + s.columnOr(t, "copyKind");
    } else {
        cols += ", " + s.columnOr(t, "bytes") + ", " + s.columnOr(t, "value");
    }
    store::Statement st = c.db.prepare("SELECT " + cols + " FROM " + t);
    while (st.step()) {
        if (!c.tick()) return false;
        const int64_t start = st.int64(0), end = st.int64(1);
        if (end < start) {
            c.skip("nsys_negative_duration", t + " row ending before it starts");
            continue;
        }
        profiler::gpu::GpuPlacement p;
        p.start = start + c.timeBase;
        p.end = end + c.timeBase;
        p.device = st.int64(2);
        p.context = st.int64(3);
        p.stream = st.int64(4);
        if (!st.isNull(5)) p.correlation = st.int64(5);
        if (!st.isNull(6)) p.globalPid = st.int64(6);
        if (kind == Kind::Kernel) {
            profiler::gpu::KernelRow k;
            static_cast<profiler::gpu::GpuPlacement&>(k) = p;
            if (!st.isNull(7)) k.nameId = c.str(st.int64(7));
            if (!st.isNull(8)) k.grid = {{st.int64(8), st.int64(9), st.int64(10)}};
            if (!st.isNull(11)) k.block = {{st.int64(11), st.int64(12), st.int64(13)}};
            if (!st.isNull(14)) k.registersPerThread = st.int64(14);
            if (!st.isNull(15)) k.sharedMemory = st.int64(15) + st.int64(16);
            c.rows.kernel(k);
        } else if (kind == Kind::Memcpy) {
            profiler::gpu::MemcpyRow m;
            static_cast<profiler::gpu::GpuPlacement&>(m) = p;
            if (!st.isNull(7)) m.bytes = st.int64(7);
            m.copyKind = st.isNull(8) ? 0 : st.int64(8);
            c.rows.memcpy(m);
        } else {
            profiler::gpu::MemsetRow m;
            static_cast<profiler::gpu::GpuPlacement&>(m) = p;
            if (!st.isNull(7)) m.bytes = st.int64(7);
            if (!st.isNull(8)) m.value = st.int64(8);
            c.rows.memset(m);
        }
    }
    if (!st.error().empty()) c.skip("nsys_table_read_error", t + ": " + st.error());
    return true;
}

}  // namespace ts::importers::nsys
