// Nsight Systems export readers, part 1: the shared context, names and facts, and the tables
// of CPU calls (CUDA API, OS runtime, cuBLAS, cuDNN).
#include <cstdio>

#include "importers/nsys/nsys_tables.h"

namespace ts::importers::nsys {

// ---- ArgsJson ----

namespace {
void appendEscaped(std::string& out, std::string_view s) {
    out += '"';
    for (const char ch : s) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '"' || c == '\\') {
            out += '\\';
            out += ch;
        } else if (c < 0x20) {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\u%04x", c);
            out += buf;
        } else {
            out += ch;
        }
    }
    out += '"';
}
}  // namespace

void ArgsJson::key(std::string_view k) {
    m_text += m_text.empty() ? "{" : ",";
    appendEscaped(m_text, k);
    m_text += ':';
}
ArgsJson& ArgsJson::num(std::string_view k, int64_t v) {
    key(k);
    m_text += std::to_string(v);
    return *this;
}
ArgsJson& ArgsJson::real(std::string_view k, double v) {
    key(k);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    m_text += buf;
    return *this;
}
ArgsJson& ArgsJson::str(std::string_view k, std::string_view v) {
    key(k);
    appendEscaped(m_text, v);
    return *this;
}
ArgsJson& ArgsJson::dims(std::string_view k, int64_t x, int64_t y, int64_t z) {
    key(k);
    m_text += "[" + std::to_string(x) + "," + std::to_string(y) + "," + std::to_string(z) + "]";
    return *this;
}

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

void NsysReadContext::addLaunch(int64_t pk, int64_t corr, const Launch& l) {
    auto inner = [](const Launch& a, const Launch& b) {  // a nested in (or after) b
        return a.ts > b.ts || (a.ts == b.ts && a.dur < b.dur);
    };
    auto [it, fresh] = m_launches.try_emplace({pk, corr}, l);
    if (!fresh && inner(l, it->second)) it->second = l;
    auto [any, freshAny] = m_launchByCorrelation.try_emplace(corr, l);
    if (!freshAny && inner(l, any->second)) any->second = l;
}

const NsysReadContext::Launch* NsysReadContext::findLaunch(int64_t pk, int64_t corr) const {
    if (pk < 0) {
        auto it = m_launchByCorrelation.find(corr);
        return it == m_launchByCorrelation.end() ? nullptr : &it->second;
    }
    auto it = m_launches.find({pk, corr});
    return it == m_launches.end() ? nullptr : &it->second;
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
/// Kineto's categories for CUDA calls, so one session's op statistics group them alike.
const char* apiCategory(const std::string& table, std::string_view name) {
    if (table == "CUPTI_ACTIVITY_KIND_RUNTIME")
        return name.starts_with("cuda") ? "cuda_runtime" : "cuda_driver";
    if (table == "OSRT_API") return "osrt";
    if (table == "CUBLAS_EVENTS") return "cublas";
    if (table == "CUDNN_EVENTS") return "cudnn";
    return "api";
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
    std::unordered_map<int64_t, int64_t> catIds;  // nsys name id -> category string id
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
        const int64_t nameId = st.int64(3);
        auto cat = catIds.find(nameId);
        if (cat == catIds.end())
            cat = catIds.emplace(nameId, c.w.intern(apiCategory(table, c.text(nameId)))).first;
        ArgsJson args;
        if (!st.isNull(4)) args.num("correlation", st.int64(4));
        if (!st.isNull(5)) args.num("return value", st.int64(5));
        NsysSlice slice{start + c.timeBase, end - start, c.str(nameId), cat->second,
                        args.done() == "{}" ? 0 : c.w.addArgs(args.done())};
        const SliceHandle h = c.b.add(c.b.threadTrack(tid, label, order), slice);
        ++c.report.slices;
        if (!st.isNull(4)) c.addLaunch(processKey(tid), st.int64(4), {h, slice.ts, slice.dur});
    }
    if (!st.error().empty()) c.skip("nsys_table_read_error", table + ": " + st.error());
    return true;
}

}  // namespace ts::importers::nsys
