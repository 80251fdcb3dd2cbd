#include "core/analysis/gpu/ascend_tables.h"
#include "core/common/json_read.h"

#include <rapidjson/document.h>

#include <algorithm>
#include <cctype>
#include <cstdio>

#include "core/store/trace_store.h"

namespace ts::analysis::gpu {
namespace {

using store::Statement;

double num(const rapidjson::Value& o, const char* k) {
    auto it = o.FindMember(k);
    return it != o.MemberEnd() && it->value.IsNumber() ? it->value.GetDouble() : 0;
}
std::string text(const rapidjson::Value& o, const char* k) {
    auto it = o.FindMember(k);
    return it != o.MemberEnd() && it->value.IsString()
               ? std::string(it->value.GetString(), it->value.GetStringLength())
               : std::string();
}
int64_t intOf(const rapidjson::Value& o, const char* k) {
    auto it = o.FindMember(k);
    return it != o.MemberEnd() && it->value.IsInt64() ? it->value.GetInt64() : -1;
}

bool isCluster(std::string_view kind) {
    return kind.rfind("cluster_", 0) == 0;
}

}  // namespace

int AscendTable::column(std::string_view name) const {
    for (size_t i = 0; i < header.size(); ++i)
        if (header[i] == name) return static_cast<int>(i);
    for (size_t i = 0; i < header.size(); ++i)
        if (header[i].rfind(name, 0) == 0) return static_cast<int>(i);
    return -1;
}

int AscendTable::exactColumn(std::string_view name) const {
    for (size_t i = 0; i < header.size(); ++i)
        if (header[i] == name) return static_cast<int>(i);
    return -1;
}

const AscendTable* AscendTables::table(std::string_view kind) const {
    for (const auto& t : tables)
        if (t.kind == kind) return &t;
    return nullptr;
}

std::string AscendCommOp::opType() const {
    // "hcom_allReduce__123_0_1" -> "hcom_allReduce"; "hcom_send_1" -> "hcom_send".
    std::string t = op;
    const auto dd = t.find("__");
    if (dd != std::string::npos) return t.substr(0, dd);
    while (!t.empty() && (std::isdigit(static_cast<unsigned char>(t.back())) || t.back() == '_'))
        t.pop_back();
    return t.empty() ? op : t;
}

Result<AscendTables> loadAscendTables(store::TraceStore& store) {
    AscendTables out;
    Statement q = store.db().prepare(
        "SELECT id, path, COALESCE(stats, '') FROM sources WHERE kind = 'ascend_profiler' "
        "AND status IN ('complete', 'partial') ORDER BY id");
    if (!q.ok()) return Error{q.error()};
    while (q.step()) {
        const int64_t id = q.int64(0);
        const std::string path = q.text(1);
        const std::string stats = q.text(2);
        rapidjson::Document doc;
        if (!ts::json::parse(doc, stats) || !doc.IsObject()) continue;
        auto ex = doc.FindMember("extra");
        if (ex == doc.MemberEnd() || !ex->value.IsObject()) continue;
        const auto& e = ex->value;
        const std::string kind = text(e, "table");
        if (auto h = e.FindMember("header"); h != e.MemberEnd() && h->value.IsArray()) {
            AscendTable t;
            t.sourceId = id;
            t.kind = kind;
            t.path = path;
            for (const auto& c : h->value.GetArray())
                t.header.push_back(c.IsString() ? c.GetString() : "");
            if (auto rows = e.FindMember("rows"); rows != e.MemberEnd() && rows->value.IsArray()) {
                for (const auto& row : rows->value.GetArray()) {
                    if (!row.IsArray()) continue;
                    std::vector<std::string> tx;
                    std::vector<std::optional<double>> nu;
                    for (const auto& c : row.GetArray()) {
                        if (c.IsNumber()) {
                            nu.emplace_back(c.GetDouble());
                            char b[64];
                            std::snprintf(b, sizeof b, "%.15g", c.GetDouble());
                            tx.emplace_back(b);
                        } else {
                            nu.emplace_back(std::nullopt);
                            tx.emplace_back(c.IsString() ? c.GetString() : "");
                        }
                    }
                    t.text.push_back(std::move(tx));
                    t.numbers.push_back(std::move(nu));
                }
            }
            out.tables.push_back(std::move(t));
        }
        if (auto ops = e.FindMember("ops"); ops != e.MemberEnd() && ops->value.IsArray()) {
            for (const auto& o : ops->value.GetArray()) {
                if (!o.IsObject()) continue;
                AscendCommOp op;
                op.sourceId = id;
                op.cluster = isCluster(kind);
                op.step = text(o, "step");
                op.kind = text(o, "kind");
                op.op = text(o, "op");
                op.group = text(o, "group");
                op.rank = intOf(o, "rank");
                op.startUs = num(o, "start_us");
                op.elapseMs = num(o, "elapse_ms");
                op.transitMs = num(o, "transit_ms");
                op.waitMs = num(o, "wait_ms");
                op.syncMs = num(o, "sync_ms");
                op.idleMs = num(o, "idle_ms");
                if (auto ls = o.FindMember("links"); ls != o.MemberEnd() && ls->value.IsArray())
                    for (const auto& l : ls->value.GetArray()) {
                        if (!l.IsObject()) continue;
                        AscendLinkFigures f;
                        f.type = text(l, "type");
                        f.sizeMb = num(l, "size_mb");
                        f.timeMs = num(l, "time_ms");
                        f.bandwidthGBs = num(l, "bandwidth_gbps");
                        f.largePacketRatio = num(l, "large_packet_ratio");
                        if (auto sz = l.FindMember("sizes");
                            sz != l.MemberEnd() && sz->value.IsArray())
                            for (const auto& s : sz->value.GetArray())
                                if (s.IsArray() && s.Size() == 3 && s[0].IsNumber() &&
                                    s[1].IsNumber() && s[2].IsNumber())
                                    f.sizes.push_back(
                                        {s[0].GetDouble(), s[1].GetDouble(), s[2].GetDouble()});
                        op.links.push_back(std::move(f));
                    }
                out.ops.push_back(std::move(op));
            }
        }
        if (auto links = e.FindMember("links"); links != e.MemberEnd() && links->value.IsArray()) {
            for (const auto& l : links->value.GetArray()) {
                if (!l.IsObject()) continue;
                AscendLink k;
                k.sourceId = id;
                k.cluster = isCluster(kind);
                k.step = text(l, "step");
                k.kind = text(l, "kind");
                k.op = text(l, "op");
                k.group = text(l, "group");
                k.rank = intOf(l, "rank");
                k.src = text(l, "src");
                k.dst = text(l, "dst");
                k.transport = text(l, "transport");
                k.sizeMb = num(l, "size_mb");
                k.timeMs = num(l, "time_ms");
                k.bandwidthGBs = num(l, "bandwidth_gbps");
                out.links.push_back(std::move(k));
            }
        }
    }
    if (!q.error().empty()) return Error{q.error()};
    return out;
}

std::vector<AscendStep> ascendSteps(const AscendTables& t, bool cluster) {
    std::vector<AscendStep> out;
    const AscendTable* tab = t.table(cluster ? "cluster_step_trace_time" : "step_trace_time");
    if (!tab) return out;
    const int step = tab->column("Step"), type = tab->column("Type"), index = tab->column("Index"),
              comp = tab->column("Computing"), notOv = tab->column("Communication(Not Overlapped)"),
              ov = tab->column("Overlapped"), comm = tab->exactColumn("Communication"),
              fr = tab->column("Free"), st = tab->column("Stage"), bu = tab->column("Bubble"),
              excl = tab->column("Communication(Not Overlapped and Exclude Receive)"),
              prep = tab->column("Preparing");
    for (size_t r = 0; r < tab->text.size(); ++r) {
        auto n = [&](int c) {
            return c >= 0 && static_cast<size_t>(c) < tab->numbers[r].size()
                       ? tab->numbers[r][static_cast<size_t>(c)].value_or(0)
                       : 0.0;
        };
        auto s = [&](int c) {
            return c >= 0 && static_cast<size_t>(c) < tab->text[r].size()
                       ? tab->text[r][static_cast<size_t>(c)]
                       : std::string();
        };
        AscendStep a;
        a.step = s(step);
        if (cluster) {
            const std::string ty = s(type);
            a.rankOrStage = ty + " " + s(index);
            if (ty == "rank") {
                if (auto v = tab->numbers[r][static_cast<size_t>(index)])
                    a.rank = static_cast<int64_t>(*v);
            }
        }
        a.computing = n(comp);
        a.commNotOverlapped = n(notOv);
        a.overlapped = n(ov);
        a.communication = n(comm);
        a.free = n(fr);
        a.stage = n(st);
        a.bubble = n(bu);
        a.commExcludeReceive = n(excl);
        a.preparing = n(prep);
        out.push_back(std::move(a));
    }
    return out;
}

std::vector<AscendCommSummary> summarizeAscendComm(const AscendTables& t, bool cluster) {
    std::map<std::pair<std::string, std::string>, AscendCommSummary> by;
    for (const AscendCommOp& o : t.ops) {
        if (o.cluster != cluster) continue;
        AscendCommSummary& s = by[{o.opType(), o.group}];
        s.opType = o.opType();
        s.group = o.group;
        ++s.calls;
        s.elapseMs += o.elapseMs;
        s.transitMs += o.transitMs;
        s.waitMs += o.waitMs;
        s.syncMs += o.syncMs;
        s.idleMs += o.idleMs;
        for (const auto& l : o.links) {
            AscendLinkFigures& f = s.links[l.type];
            f.type = l.type;
            f.sizeMb += l.sizeMb;
            f.timeMs += l.timeMs;
        }
    }
    std::vector<AscendCommSummary> out;
    for (auto& [key, s] : by) {
        s.waitRatio = s.waitMs + s.transitMs > 0 ? s.waitMs / (s.waitMs + s.transitMs) : 0;
        s.syncRatio = s.syncMs + s.transitMs > 0 ? s.syncMs / (s.syncMs + s.transitMs) : 0;
        for (auto& [type, f] : s.links) f.bandwidthGBs = f.timeMs > 0 ? f.sizeMb / f.timeMs : 0;
        out.push_back(std::move(s));
    }
    std::stable_sort(out.begin(), out.end(),
                     [](const AscendCommSummary& a, const AscendCommSummary& b) {
                         return a.elapseMs > b.elapseMs;
                     });
    return out;
}

std::vector<AscendMatrixCell> ascendMatrix(const AscendTables& t, bool cluster) {
    std::map<std::pair<std::string, std::string>, AscendMatrixCell> by;
    for (const AscendLink& l : t.links) {
        if (l.cluster != cluster) continue;
        AscendMatrixCell& c = by[{l.src, l.dst}];
        c.src = l.src;
        c.dst = l.dst;
        if (c.transport.empty()) c.transport = l.transport;
        c.sizeMb += l.sizeMb;
        c.timeMs += l.timeMs;
        ++c.ops;
    }
    std::vector<AscendMatrixCell> out;
    for (auto& [k, c] : by) {
        c.bandwidthGBs = c.timeMs > 0 ? c.sizeMb / c.timeMs : 0;
        out.push_back(std::move(c));
    }
    return out;
}

void writeAscendJson(json::Writer& w, const AscendTables& t) {
    using json::kv;
    w.StartObject();
    w.Key("tables");
    w.StartArray();
    for (const auto& tab : t.tables) {
        w.StartObject();
        kv(w, "table", tab.kind);
        kv(w, "source_id", tab.sourceId);
        kv(w, "rows", static_cast<int64_t>(tab.text.size()));
        w.EndObject();
    }
    w.EndArray();
    for (bool cluster : {false, true}) {
        w.Key(cluster ? "cluster_steps" : "steps");
        w.StartArray();
        for (const AscendStep& s : ascendSteps(t, cluster)) {
            w.StartObject();
            kv(w, "step", s.step);
            if (cluster) kv(w, "index", s.rankOrStage);
            kv(w, "computing_us", s.computing);
            kv(w, "communication_not_overlapped_us", s.commNotOverlapped);
            kv(w, "overlapped_us", s.overlapped);
            kv(w, "communication_us", s.communication);
            kv(w, "free_us", s.free);
            kv(w, "stage_us", s.stage);
            kv(w, "bubble_us", s.bubble);
            w.EndObject();
        }
        w.EndArray();
        w.Key(cluster ? "cluster_communication" : "communication");
        w.StartArray();
        for (const AscendCommSummary& s : summarizeAscendComm(t, cluster)) {
            w.StartObject();
            kv(w, "op_type", s.opType);
            kv(w, "group", s.group);
            kv(w, "calls", s.calls);
            kv(w, "elapse_ms", s.elapseMs);
            kv(w, "transit_ms", s.transitMs);
            kv(w, "wait_ms", s.waitMs);
            kv(w, "synchronization_ms", s.syncMs);
            kv(w, "idle_ms", s.idleMs);
            kv(w, "wait_ratio", s.waitRatio);
            kv(w, "synchronization_ratio", s.syncRatio);
            w.Key("links");
            w.StartObject();
            for (const auto& [type, f] : s.links) {
                w.Key(type.c_str(), static_cast<rapidjson::SizeType>(type.size()));
                w.StartObject();
                kv(w, "size_mb", f.sizeMb);
                kv(w, "time_ms", f.timeMs);
                kv(w, "bandwidth_gbps", f.bandwidthGBs);
                w.EndObject();
            }
            w.EndObject();
            w.EndObject();
        }
        w.EndArray();
        w.Key(cluster ? "cluster_matrix" : "matrix");
        w.StartArray();
        for (const AscendMatrixCell& c : ascendMatrix(t, cluster)) {
            w.StartObject();
            kv(w, "src", c.src);
            kv(w, "dst", c.dst);
            kv(w, "transport", c.transport);
            kv(w, "size_mb", c.sizeMb);
            kv(w, "time_ms", c.timeMs);
            kv(w, "bandwidth_gbps", c.bandwidthGBs);
            kv(w, "ops", c.ops);
            w.EndObject();
        }
        w.EndArray();
    }
    w.EndObject();
}

}  // namespace ts::analysis::gpu
