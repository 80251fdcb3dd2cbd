// Nsight Systems export readers, part 1: the shared context, names and facts, and the tables
// of CPU calls (CUDA API, OS runtime, cuBLAS, cuDNN).
#include "importers/nsys/nsys_tables.h"

namespace ts::importers::nsys {

// ---- NsysReadContext ----

void NsysReadContext::loadStrings() {
    store::Statement st = db.prepare("SELECT id, value FROM StringIds");
    while (st.step()) m_strings.emplace(st.int64(0), st.text(1));
}

const std::string& NsysReadContext::text(int64_t id) const {
    static const std::string kEmpty;
    auto it = m_strings.find(id);
    return it == m_strings.end() ? kEmpty : it->second;
}

int64_t NsysReadContext::str(int64_t id) {
    if (auto it = m_interned.find(id); it != m_interned.end()) return it->second;
    const std::string& t = text(id);
    const int64_t sid = w.intern(t.empty() ? "[Unknown]" : t);
    m_interned.emplace(id, sid);
    return sid;
}

bool NsysReadContext::tick() {
    ++report.events;
    if ((++m_rows & 0xFFF) == 0) {
        control.addDone(0x1000);
        if (control.cancelled()) return false;
    }
    return true;
}

void NsysReadContext::skip(const std::string& key, const std::string& message) {
    report.skip(key);
    w.logProblem(key, -1, {}, message);
}

// ---- names and facts ----

void readNames(NsysReadContext& c) {
    const NsysSchema& s = c.schema;
    if (s.hasColumns("TARGET_INFO_SESSION_START_TIME", {"utcEpochNs"})) {
        auto base = c.db.queryInt("SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME LIMIT 1");
        if (base && base.value() > 0) c.timeBase = base.value();
    }
    if (s.hasColumns("PROCESSES", {"globalPid", "name"})) {
        store::Statement st = c.db.prepare(
            "SELECT globalPid, name FROM PROCESSES WHERE globalPid IS NOT NULL AND name IS NOT "
            "NULL");
        while (st.step()) c.b.setProcessName(processKey(st.int64(0)), st.text(1));
    }
    // Threads named with nvtxNameOsThread (NVTX event type 39), then ThreadNames, which wins.
    if (s.hasColumns("NVTX_EVENTS", {"eventType", "globalTid", "text"})) {
        const std::string textId = s.columnOr("NVTX_EVENTS", "textId");
        store::Statement st = c.db.prepare("SELECT globalTid, text, " + textId +
                                           " FROM NVTX_EVENTS WHERE eventType = 39 AND "
                                           "globalTid IS NOT NULL");
        while (st.step()) {
            const std::string name = st.isNull(2) ? st.text(1) : c.text(st.int64(2));
            if (!name.empty()) c.b.setThreadName(st.int64(0), name);
        }
    }
    if (s.hasColumns("ThreadNames", {"nameId", "globalTid"})) {
        store::Statement st =
            c.db.prepare("SELECT globalTid, nameId FROM ThreadNames WHERE globalTid IS NOT NULL");
        while (st.step()) c.b.setThreadName(st.int64(0), c.text(st.int64(1)));
    }
    if (s.hasColumns("TARGET_INFO_GPU", {"id", "name"})) {
        store::Statement st = c.db.prepare("SELECT id, name FROM TARGET_INFO_GPU");
        while (st.step())
            if (!st.isNull(1)) c.b.setDeviceName(st.int64(0), st.text(1));
    }
    if (s.hasColumns("TARGET_INFO_CUDA_NULL_STREAM", {"streamId", "deviceId", "contextId"})) {
        store::Statement st =
            c.db.prepare("SELECT deviceId, contextId, streamId FROM TARGET_INFO_CUDA_NULL_STREAM");
        while (st.step()) c.b.setDefaultStream(st.int64(0), st.int64(1), st.int64(2));
    }
    std::string gpu;
    for (const char* t :
         {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"})
        if (s.hasColumns(t, {"deviceId", "contextId"}))
            gpu += (gpu.empty() ? "" : " UNION ") +
                   std::string(
                       "SELECT DISTINCT deviceId, "
                       "contextId FROM ") +
                   t;
    if (!gpu.empty()) {
        store::Statement st = c.db.prepare("SELECT deviceId FROM (" + gpu +
                                           ") GROUP BY deviceId HAVING count(*) > 1");
        while (st.step()) c.b.setMultiContext(st.int64(0));
    }
}

// ---- CPU call tables ----

namespace {
/// The family of a table's calls (Kineto's categories, so one session's op statistics group
/// them alike).
profiler::gpu::ApiKind apiKind(const std::string& table) {
    using profiler::gpu::ApiKind;
    if (table == "CUPTI_ACTIVITY_KIND_RUNTIME") return ApiKind::Cuda;
    if (table == "OSRT_API") return ApiKind::OsRuntime;
    if (table == "CUBLAS_EVENTS") return ApiKind::Cublas;
    if (table == "CUDNN_EVENTS") return ApiKind::Cudnn;
    return ApiKind::Other;
}
}  // namespace

bool readApiTable(NsysReadContext& c, const std::string& table, const std::string& label,
                  int order) {
    const NsysSchema& s = c.schema;
    if (!s.hasColumns(table, {"start", "end", "globalTid", "nameId"})) {
        if (s.hasTable(table))
            c.skip("nsys_table_missing_columns",
                   table + " lacks one of start, end, globalTid, nameId: not read");
        return true;
    }
    const std::string corr = s.columnOr(table, "correlationId");
    const std::string ret = s.columnOr(table, "returnValue");
    store::Statement st = c.db.prepare("SELECT start, end, globalTid, nameId, " + corr + ", " +
                                       ret + " FROM " + table);
    const profiler::gpu::ApiKind kind = apiKind(table);
    while (st.step()) {
        if (!c.tick()) return false;
        if (st.isNull(2)) {
            c.skip("nsys_missing_thread", table + " row without globalTid");
            continue;
        }
        const int64_t start = st.int64(0), end = st.int64(1), tid = st.int64(2);
        if (end < start) {
            c.skip("nsys_negative_duration", table + " row ending before it starts");
            continue;
        }
        profiler::gpu::ApiCall call;
        call.start = start + c.timeBase;
        call.end = end + c.timeBase;
        call.globalTid = tid;
        call.nameId = c.str(st.int64(3));
        call.name = c.text(st.int64(3));
        call.kind = kind;
        if (!st.isNull(4)) call.correlation = st.int64(4);
        if (!st.isNull(5)) call.returnValue = st.int64(5);
        c.rows.apiCall(call, label, order);
    }
    if (!st.error().empty()) c.skip("nsys_table_read_error", table + ": " + st.error());
    return true;
}

}  // namespace ts::importers::nsys
