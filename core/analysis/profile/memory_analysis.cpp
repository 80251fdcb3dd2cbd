#include "core/analysis/profile/memory_analysis.h"

#include <algorithm>
#include <charconv>
#include <map>

#include "core/common/json_read.h"
#include "core/memory/op_memory.h"
#include "core/store/trace_store.h"

namespace ts::analysis {

using store::Statement;

namespace {

int64_t intField(const rapidjson::Value& o, const char* key, int64_t fallback = 0) {
    auto it = o.FindMember(key);
    if (it == o.MemberEnd()) return fallback;
    if (it->value.IsInt64()) return it->value.GetInt64();
    if (it->value.IsNumber()) return static_cast<int64_t>(it->value.GetDouble());
    if (it->value.IsString()) {  // some importers keep numbers as text
        const char* b = it->value.GetString();
        const char* e = b + it->value.GetStringLength();
        int64_t v = 0;
        auto [p, ec] = std::from_chars(b, e, v);
        if (ec == std::errc() && p == e) return v;
    }
    return fallback;
}

std::string strField(const rapidjson::Value& o, const char* key) {
    auto it = o.FindMember(key);
    return it != o.MemberEnd() && it->value.IsString() ? it->value.GetString() : std::string();
}

void findPeak(MemoryAnalysis& m) {
    for (size_t i = 0; i < m.inUse.ts.size(); ++i)
        if (!m.hasPeak || m.inUse.value[i] > m.peakBytes) {
            m.hasPeak = true;
            m.peakBytes = m.inUse.value[i];
            m.peakTs = m.inUse.ts[i];
        }
    for (double v : m.pool.value) m.poolPeakBytes = std::max(m.poolPeakBytes, v);
}

void keepTop(MemoryAnalysis& m, std::vector<LiveAllocation> live, size_t top) {
    m.liveAtPeakCount = static_cast<int64_t>(live.size());
    for (const auto& a : live) m.liveAtPeakBytes += a.bytes;
    std::stable_sort(
        live.begin(), live.end(),
        [](const LiveAllocation& a, const LiveAllocation& b) { return a.bytes > b.bytes; });
    if (live.size() > top) live.resize(top);
    m.topAtPeak = std::move(live);
}

Status readCounters(store::TraceStore& s, int64_t sourceId, MemoryAnalysis& m) {
    Statement tq = s.db().prepare(
        "SELECT t.id, COALESCE(n.str, '') FROM tracks t LEFT JOIN strings n ON n.id = t.name_id "
        "WHERE t.source_id = ? AND t.kind = 'counter' ORDER BY t.id");
    tq.bind(1, sourceId);
    std::vector<std::pair<int64_t, std::string>> tracks;
    while (tq.step()) tracks.emplace_back(tq.int64(0), tq.text(1));
    if (!tq.error().empty()) return Error{tq.error()};
    Statement cq =
        s.db().prepare("SELECT ts, value FROM counters WHERE track_id = ? ORDER BY ts, id");
    for (const auto& [id, name] : tracks) {
        MemorySeries series;
        series.name = name;
        cq.reset();
        cq.bind(1, id);
        while (cq.step()) {
            series.ts.push_back(cq.int64(0));
            series.value.push_back(cq.real(1));
        }
        if (!cq.error().empty()) return Error{cq.error()};
        if (name == kMemoryInUseCounter)
            m.inUse = std::move(series);
        else if (name == kMemoryPoolCounter)
            m.pool = std::move(series);
        else
            m.others.push_back(std::move(series));
    }
    return {};
}

Status readAllocations(store::TraceStore& s, int64_t sourceId, MemoryAnalysis& m, size_t top) {
    Statement q = s.db().prepare(
        "SELECT i.ts, a.json FROM instants i JOIN tracks t ON t.id = i.track_id "
        "LEFT JOIN strings tn ON tn.id = t.name_id LEFT JOIN threads th ON th.id = t.thread_id "
        "JOIN args a ON a.id = i.arg_set_id WHERE t.source_id = ? AND "
        "COALESCE(tn.str, th.name) = 'Allocations' AND i.ts <= ? ORDER BY i.ts");
    q.bind(1, sourceId).bind(2, m.peakTs);
    std::vector<LiveAllocation> live;
    rapidjson::Document doc;
    while (q.step()) {
        if (!ts::json::parse(doc, q.textView(1)) || !doc.IsObject()) continue;
        auto freeIt = doc.FindMember("free_ts");
        const bool freed = freeIt != doc.MemberEnd() && freeIt->value.IsNumber() &&
                           intField(doc, "free_ts") <= m.peakTs;
        if (freed) continue;
        LiveAllocation a;
        a.ts = q.int64(0);
        a.bytes = intField(doc, "bytes");
        a.op = strField(doc, "op");
        a.tensor = strField(doc, "tensor");
        if (auto it = doc.FindMember("shape"); it != doc.MemberEnd())
            a.shape = ts::json::shapeText(it->value);
        live.push_back(std::move(a));
    }
    if (!q.error().empty()) return Error{q.error()};
    const bool any = !live.empty();
    keepTop(m, std::move(live), top);
    if (any)
        m.untrackedAtPeakBytes =
            std::max<int64_t>(0, static_cast<int64_t>(m.peakBytes) - m.liveAtPeakBytes);
    return {};
}

/// Names each live block by the op that allocated it: the op slice holding its "[memory]"
/// event on the same thread (core/memory/op_memory).
void nameByOp(store::TraceStore& s, int64_t sourceId, std::map<int64_t, LiveAllocation>& live,
              JobControl* job) {
    auto ops = memory::analyzeOpMemory(s, sourceId, job);
    if (!ops) return;
    std::map<std::pair<int64_t, int64_t>, const memory::OpAllocation*> byTime;
    for (const auto& a : ops->allocations) byTime[{a.ts, static_cast<int64_t>(a.addr)}] = &a;
    for (auto& [addr, a] : live)
        if (auto it = byTime.find({a.ts, addr}); it != byTime.end()) {
            a.op = it->second->op;
            a.shape = it->second->shapes;
        }
}

/// Kineto's "[memory]" instants: per device, series of Total Allocated / Total Reserved and
/// the live blocks by address.
Status readKinetoMemory(store::TraceStore& s, int64_t sourceId, MemoryAnalysis& m, size_t top,
                        JobControl* job) {
    Statement q = s.db().prepare(
        "SELECT i.ts, a.json FROM instants i JOIN tracks t ON t.id = i.track_id "
        "JOIN strings n ON n.id = i.name_id JOIN args a ON a.id = i.arg_set_id "
        "WHERE t.source_id = ? AND n.str = '[memory]' ORDER BY i.ts, i.id");
    q.bind(1, sourceId);
    struct Event {
        int64_t ts, bytes, addr, total, reserved;
    };
    std::map<int64_t, std::vector<Event>> byDevice;
    std::map<int64_t, int64_t> running;  // per device, when events carry no totals
    bool haveAddr = false;
    rapidjson::Document doc;
    while (q.step()) {
        if (job && job->cancelled()) return Error{"cancelled"};
        if (!ts::json::parse(doc, q.textView(1)) || !doc.IsObject()) continue;
        const int64_t dev = intField(doc, "Device Id", -1), bytes = intField(doc, "Bytes");
        int64_t& run = running[dev];
        run += bytes;
        haveAddr = haveAddr || doc.HasMember("Addr");
        byDevice[dev].push_back({q.int64(0), bytes, intField(doc, "Addr"),
                                 intField(doc, "Total Allocated", run),
                                 intField(doc, "Total Reserved", 0)});
    }
    if (!q.error().empty()) return Error{q.error()};
    const std::vector<Event>* best = nullptr;
    int64_t bestPeak = -1, bestDevice = 0;
    for (const auto& [dev, evs] : byDevice)
        for (const auto& e : evs)
            if (e.total > bestPeak) bestPeak = e.total, best = &evs, bestDevice = dev;
    if (!best) return {};
    const std::string dev = bestDevice < 0 ? "CPU" : "device " + std::to_string(bestDevice);
    m.origin = "kineto [memory] events (" + dev + ")";
    m.inUse.name = "Total Allocated (" + dev + ")";
    m.pool.name = "Total Reserved (" + dev + ")";
    for (const auto& e : *best) {
        m.inUse.ts.push_back(e.ts);
        m.inUse.value.push_back(static_cast<double>(e.total));
        m.pool.ts.push_back(e.ts);
        m.pool.value.push_back(static_cast<double>(e.reserved));
    }
    if (std::all_of(m.pool.value.begin(), m.pool.value.end(), [](double v) { return v == 0; }))
        m.pool = MemorySeries{};
    for (const auto& [d, evs] : byDevice) {  // the other devices' curves, for the view
        if (&evs == best) continue;
        MemorySeries other;
        other.name = "Total Allocated (" +
                     (d < 0 ? std::string("CPU") : "device " + std::to_string(d)) + ")";
        for (const auto& e : evs) {
            other.ts.push_back(e.ts);
            other.value.push_back(static_cast<double>(e.total));
        }
        m.others.push_back(std::move(other));
    }
    findPeak(m);
    if (!haveAddr) return {};  // no addresses: blocks cannot be matched to their frees
    std::map<int64_t, LiveAllocation> live;
    for (const auto& e : *best) {
        if (e.ts > m.peakTs) break;
        if (e.bytes > 0)
            live[e.addr] = LiveAllocation{e.ts, e.bytes, {}, {}, {}};
        else
            live.erase(e.addr);
    }
    nameByOp(s, sourceId, live, job);
    std::vector<LiveAllocation> v;
    for (auto& [addr, a] : live) v.push_back(a);
    keepTop(m, std::move(v), top);
    return {};
}

}  // namespace

Result<MemoryAnalysis> analyzeMemory(store::TraceStore& s, int64_t sourceId, size_t top,
                                     JobControl* job) {
    {
        Statement q = s.db().prepare("SELECT 1 FROM sources WHERE id = ?");
        q.bind(1, sourceId);
        if (!q.step()) return Error{"no source " + std::to_string(sourceId) + " in this session"};
    }
    MemoryAnalysis m;
    m.sourceId = sourceId;
    if (auto st = readCounters(s, sourceId, m); !st) return Error{st.error()};
    if (!m.inUse.empty()) {
        m.origin = "counters";
        findPeak(m);
        if (auto st = readAllocations(s, sourceId, m, top); !st) return Error{st.error()};
        return m;
    }
    if (auto st = readKinetoMemory(s, sourceId, m, top, job); !st) return Error{st.error()};
    return m;
}

}  // namespace ts::analysis
