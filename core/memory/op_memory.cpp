#include "core/memory/op_memory.h"
#include "core/common/json_read.h"

#include <rapidjson/document.h>

#include <algorithm>
#include <charconv>
#include <unordered_map>

#include "core/common/saturating_cast.h"
#include "core/store/trace_store.h"
#include "core/timeline/op_stats.h"

namespace ts::memory {

using store::Statement;

namespace {

int64_t intArg(const rapidjson::Value& o, const char* key, int64_t fallback = 0) {
    auto it = o.FindMember(key);
    if (it == o.MemberEnd()) return fallback;
    if (it->value.IsInt64()) return it->value.GetInt64();
    if (it->value.IsUint64()) return static_cast<int64_t>(it->value.GetUint64());
    if (it->value.IsNumber()) return saturatingInt64(it->value.GetDouble(), fallback);
    if (it->value.IsString()) {
        const char* b = it->value.GetString();
        int64_t v = 0;
        auto [p, ec] = std::from_chars(b, b + it->value.GetStringLength(), v);
        if (ec == std::errc()) return v;
    }
    return fallback;
}

std::string deviceLabel(const rapidjson::Value& o) {
    const int64_t type = intArg(o, "Device Type", -1), id = intArg(o, "Device Id", -1);
    if (type == 0 || (type < 0 && id < 0)) return "CPU";
    if (type == 1 || type < 0) return "cuda:" + std::to_string(id);
    return "device type " + std::to_string(type) + ":" + std::to_string(id);
}

void aggregate(OpMemory& m) {
    std::map<std::string, OpMemoryRow> byOp;
    std::map<std::pair<std::string, std::string>, OpMemoryRow> byShape;
    for (const OpAllocation& a : m.allocations) {
        const std::string op = a.op.empty() ? "(outside any op)" : a.op;
        for (OpMemoryRow* r : {&byOp[op], &byShape[{op, a.shapes}]}) {
            ++r->allocations;
            r->allocated += a.bytes;
            if (a.freeTs >= 0) r->freed += a.bytes;
        }
        (a.op.empty() ? m.unnamed : m.named) += 1;
    }
    for (auto& [op, r] : byOp) {
        r.op = op;
        m.byOp.push_back(r);
    }
    for (auto& [key, r] : byShape) {
        r.op = key.first;
        r.shapes = key.second;
        m.byOpAndShape.push_back(r);
    }
    auto larger = [](const OpMemoryRow& a, const OpMemoryRow& b) {
        return a.allocated > b.allocated;
    };
    std::stable_sort(m.byOp.begin(), m.byOp.end(), larger);
    std::stable_sort(m.byOpAndShape.begin(), m.byOpAndShape.end(), larger);
}

struct MemEvent {
    int64_t track, ts, bytes, total;
    uint64_t addr;
    std::string device;
};

struct OpenSlice {
    int64_t end, nameId, argsId;
};

Status readKineto(store::TraceStore& s, int64_t sourceId, OpMemory& m, JobControl* job) {
    Statement q = s.db().prepare(
        "SELECT i.track_id, i.ts, a.json FROM instants i JOIN tracks t ON t.id = i.track_id "
        "JOIN strings n ON n.id = i.name_id JOIN args a ON a.id = i.arg_set_id "
        "WHERE t.source_id = ? AND n.str = '[memory]' ORDER BY i.track_id, i.ts, i.id");
    q.bind(1, sourceId);
    std::vector<MemEvent> events;
    rapidjson::Document doc;
    while (q.step()) {
        if (job && job->cancelled()) return Error{"cancelled"};
        if (!ts::json::parse(doc, q.text(2)) || !doc.IsObject()) continue;
        events.push_back({q.int64(0), q.int64(1), intArg(doc, "Bytes"),
                          intArg(doc, "Total Allocated", INT64_MIN),
                          static_cast<uint64_t>(intArg(doc, "Addr", -1)), deviceLabel(doc)});
    }
    if (!q.error().empty()) return Error{q.error()};
    if (events.empty()) return {};
    m.origin = "kineto [memory] events";
    // The op of each event: the deepest slice holding it on its thread.
    std::vector<std::pair<int64_t, int64_t>> opOf(events.size(), {0, 0});  // (name id, args id)
    Statement sq = s.db().prepare(
        "SELECT ts, dur, name_id, COALESCE(arg_set_id, 0) FROM slices WHERE track_id = ? "
        "ORDER BY ts, id");
    std::unordered_map<int64_t, std::string> names;
    auto nameOf = [&](int64_t id) -> const std::string& {
        auto it = names.find(id);
        if (it == names.end()) it = names.emplace(id, s.string(id)).first;
        return it->second;
    };
    for (size_t b = 0; b < events.size();) {
        size_t e = b;
        while (e < events.size() && events[e].track == events[b].track) ++e;
        sq.reset();
        sq.bind(1, events[b].track);
        std::vector<OpenSlice> stack;
        bool have = sq.step();
        for (size_t i = b; i < e; ++i) {
            const int64_t ts = events[i].ts;
            while (have && sq.int64(0) <= ts) {
                const int64_t st = sq.int64(0), end = st + sq.int64(1);
                while (!stack.empty() && stack.back().end < st) stack.pop_back();
                stack.push_back({end, sq.int64(2), sq.int64(3)});
                have = sq.step();
            }
            while (!stack.empty() && stack.back().end < ts) stack.pop_back();
            // Skip allocation factories (and slices that ended) down to the op that asked.
            for (size_t k = stack.size(); k-- > 0;) {
                if (stack[k].end < ts) continue;
                if (isAllocationFactory(nameOf(stack[k].nameId)) && k > 0) continue;
                opOf[i] = {stack[k].nameId, stack[k].argsId};
                break;
            }
        }
        if (!sq.error().empty()) return Error{sq.error()};
        b = e;
    }
    // Allocations and their frees, in time order per device.
    std::vector<size_t> order(events.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t c) { return events[a].ts < events[c].ts; });
    std::map<std::string, std::unordered_map<uint64_t, size_t>> open;
    std::map<std::string, DeviceCurve> curves;
    std::map<std::string, int64_t> running;
    Statement aq = s.db().prepare("SELECT json FROM args WHERE id = ?");
    std::unordered_map<int64_t, std::string> shapesOf;
    for (size_t i : order) {
        const MemEvent& ev = events[i];
        DeviceCurve& c = curves[ev.device];
        running[ev.device] += ev.bytes;
        c.ts.push_back(ev.ts);
        c.bytes.push_back(
            static_cast<double>(ev.total != INT64_MIN ? ev.total : running[ev.device]));
        if (ev.bytes > 0) {
            OpAllocation a;
            a.ts = ev.ts;
            a.bytes = ev.bytes;
            a.addr = ev.addr;
            a.device = ev.device;
            if (opOf[i].first) {
                a.op = nameOf(opOf[i].first);
                const int64_t argsId = opOf[i].second;
                auto it = shapesOf.find(argsId);
                if (it == shapesOf.end()) {
                    std::string shapes;
                    if (argsId) {
                        aq.reset();
                        aq.bind(1, argsId);
                        if (aq.step()) shapes = timeline::inputShapesOf(aq.text(0));
                    }
                    it = shapesOf.emplace(argsId, std::move(shapes)).first;
                }
                a.shapes = it->second;
            }
            if (ev.addr != UINT64_MAX)  // older Kineto traces have no addresses: frees unmatched
                open[ev.device][ev.addr] = m.allocations.size();
            m.allocations.push_back(std::move(a));
        } else if (ev.bytes < 0 && ev.addr != UINT64_MAX) {
            auto& o = open[ev.device];
            if (auto it = o.find(ev.addr); it != o.end()) {
                m.allocations[it->second].freeTs = ev.ts;
                o.erase(it);
            }
        }
    }
    for (auto& [dev, c] : curves) {
        c.device = dev;
        for (size_t i = 0; i < c.ts.size(); ++i)
            if (i == 0 || c.bytes[i] > c.peakBytes) {
                c.peakBytes = c.bytes[i];
                c.peakTs = c.ts[i];
            }
        m.devices.push_back(std::move(c));
    }
    return {};
}

Status readAllocationsThread(store::TraceStore& s, int64_t sourceId, OpMemory& m) {
    Statement q = s.db().prepare(
        "SELECT i.ts, a.json FROM instants i JOIN tracks t ON t.id = i.track_id "
        "LEFT JOIN strings tn ON tn.id = t.name_id LEFT JOIN threads th ON th.id = t.thread_id "
        "JOIN strings n ON n.id = i.name_id JOIN args a ON a.id = i.arg_set_id "
        "WHERE t.source_id = ? AND COALESCE(tn.str, th.name) = 'Allocations' AND n.str = 'alloc' "
        "ORDER BY i.ts, i.id");
    q.bind(1, sourceId);
    rapidjson::Document doc;
    while (q.step()) {
        if (!ts::json::parse(doc, q.text(1)) || !doc.IsObject()) continue;
        OpAllocation a;
        a.ts = q.int64(0);
        a.bytes = intArg(doc, "bytes");
        if (auto it = doc.FindMember("op"); it != doc.MemberEnd() && it->value.IsString())
            a.op = it->value.GetString();
        if (auto it = doc.FindMember("shape"); it != doc.MemberEnd())
            a.shapes = ts::json::shapeText(it->value);
        if (auto it = doc.FindMember("free_ts"); it != doc.MemberEnd() && it->value.IsNumber())
            a.freeTs = intArg(doc, "free_ts");
        m.allocations.push_back(std::move(a));
    }
    if (!q.error().empty()) return Error{q.error()};
    if (!m.allocations.empty()) m.origin = "allocations thread";
    return {};
}

}  // namespace

bool isAllocationFactory(std::string_view op) {
    for (std::string_view f : {"aten::empty", "aten::empty_strided", "aten::empty_like",
                               "aten::new_empty", "aten::new_empty_strided", "aten::resize_"})
        if (op == f) return true;
    return false;
}

Result<OpMemory> analyzeOpMemory(store::TraceStore& s, int64_t sourceId, JobControl* job) {
    {
        Statement q = s.db().prepare("SELECT 1 FROM sources WHERE id = ?");
        q.bind(1, sourceId);
        if (!q.step()) return Error{"no source " + std::to_string(sourceId) + " in this session"};
    }
    OpMemory m;
    if (auto st = readAllocationsThread(s, sourceId, m); !st) return Error{st.error()};
    if (m.allocations.empty())
        if (auto st = readKineto(s, sourceId, m, job); !st) return Error{st.error()};
    aggregate(m);
    return m;
}

}  // namespace ts::memory
