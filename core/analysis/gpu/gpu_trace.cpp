#include "core/analysis/gpu/gpu_trace.h"
#include "core/common/json_read.h"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cctype>
#include <climits>
#include <cstdlib>

#include "core/analysis/gpu/kernel_rules.h"
#include "core/store/trace_store.h"

namespace ts::analysis::gpu {

using store::Statement;

namespace {

enum class SliceClass : uint8_t { Activity, Host, GpuAnnotation, Skip };

struct Category {
    SliceClass cls = SliceClass::Host;
    ActivityKind activity = ActivityKind::Kernel;
    HostKind host = HostKind::Other;
};

bool ieq(std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) ==
                      std::tolower(static_cast<unsigned char>(y));
           });
}

bool endsWith(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

/// Kineto's categories (PyTorch 1.8's capitalised ones too), the studio's GPU rows' (the
/// same names), and what the rest of a host's events are.
Category classify(std::string_view cat) {
    Category c;
    if (ieq(cat, "kernel") || cat == "mtia_ccp_events") {
        c.cls = SliceClass::Activity;
        c.activity = ActivityKind::Kernel;
    } else if (cat == "gpu_memcpy" || cat == "Memcpy") {
        c.cls = SliceClass::Activity;
        c.activity = ActivityKind::Memcpy;
    } else if (cat == "gpu_memset" || cat == "Memset") {
        c.cls = SliceClass::Activity;
        c.activity = ActivityKind::Memset;
    } else if (cat == "cuda_sync") {
        c.cls = SliceClass::Activity;
        c.activity = ActivityKind::Sync;
    } else if (cat == "gpu_user_annotation") {
        c.cls = SliceClass::GpuAnnotation;
    } else if (cat == "cpu_op" || cat == "Operator") {
        c.host = HostKind::CpuOp;
    } else if (cat == "user_annotation") {
        c.host = HostKind::UserAnnotation;
    } else if (cat == "cuda_driver") {
        c.host = HostKind::Driver;
    } else if (cat == "Runtime" || endsWith(cat, "_runtime")) {
        c.host = HostKind::Runtime;
    } else if (cat == "python_function") {
        c.host = HostKind::Python;
    } else if (cat == "Trace") {
        c.cls = SliceClass::Skip;
    }
    return c;
}

int64_t intOf(const rapidjson::Value& v, int64_t fallback = -1) {
    if (v.IsInt64()) return v.GetInt64();
    if (v.IsUint64()) return static_cast<int64_t>(std::min<uint64_t>(v.GetUint64(), INT64_MAX));
    if (v.IsDouble()) {
        const double d = v.GetDouble();
        if (d > -9e18 && d < 9e18) return static_cast<int64_t>(d);
    }
    if (v.IsString()) {  // Ascend writes some numbers as text
        const char* s = v.GetString();
        char* end = nullptr;
        const long long n = std::strtoll(s, &end, 10);
        if (end != s && *end == '\0') return n;
    }
    return fallback;
}

double realOf(const rapidjson::Value& v, double fallback = -1) {
    if (v.IsNumber()) return v.GetDouble();
    return fallback;
}

std::string textOf(const rapidjson::Value& v) {
    if (v.IsString()) return std::string(v.GetString(), v.GetStringLength());
    if (v.IsInt64()) return std::to_string(v.GetInt64());
    return {};
}

/// The compact JSON text of a value (Input Dims, Process Group Ranks).
std::string jsonText(const rapidjson::Value& v) {
    if (v.IsString()) return std::string(v.GetString(), v.GetStringLength());
    std::string out;
    if (v.IsArray()) {
        out += '[';
        bool first = true;
        for (const auto& e : v.GetArray()) {
            if (!first) out += ',';
            first = false;
            out += jsonText(e);
        }
        out += ']';
    } else if (v.IsInt64()) {
        out = std::to_string(v.GetInt64());
    } else if (v.IsNumber()) {
        out = std::to_string(v.GetDouble());
    } else if (v.IsNull()) {
        out = "null";
    } else if (v.IsBool()) {
        out = v.GetBool() ? "true" : "false";
    }
    return out;
}

void dims3(const rapidjson::Value& v, std::array<int64_t, 3>& out) {
    if (!v.IsArray()) return;
    rapidjson::SizeType i = 0;
    for (const auto& e : v.GetArray()) {
        if (i >= 3) break;
        out[i++] = std::max<int64_t>(0, intOf(e, 0));
    }
    for (; i < 3; ++i) out[i] = 1;
}

/// Kineto's collective arguments; empty when the args hold none.
CollectiveArgs collectiveOf(const rapidjson::Value& a) {
    CollectiveArgs c;
    auto it = a.FindMember("Collective name");
    if (it == a.MemberEnd()) return c;
    c.name = textOf(it->value);
    if (auto m = a.FindMember("dtype"); m != a.MemberEnd()) c.dtype = textOf(m->value);
    if (auto m = a.FindMember("In msg nelems"); m != a.MemberEnd()) c.inNelems = intOf(m->value);
    if (auto m = a.FindMember("Out msg nelems"); m != a.MemberEnd()) c.outNelems = intOf(m->value);
    if (auto m = a.FindMember("Group size"); m != a.MemberEnd()) c.groupSize = intOf(m->value);
    if (auto m = a.FindMember("Process Group Name"); m != a.MemberEnd())
        c.processGroup = textOf(m->value);
    if (auto m = a.FindMember("Process Group Description"); m != a.MemberEnd()) {
        const std::string d = textOf(m->value);
        if (!d.empty()) c.processGroup += (c.processGroup.empty() ? "" : " ") + d;
    }
    if (auto m = a.FindMember("Process Group Ranks"); m != a.MemberEnd())
        c.groupRanks = jsonText(m->value);
    if (auto m = a.FindMember("Rank"); m != a.MemberEnd()) c.rank = intOf(m->value);
    return c;
}

struct Loaded {
    int64_t sliceId, trackId, ts, dur, nameId, argId;
    int32_t depth;
    int64_t catId;
};

}  // namespace

const char* vendorKey(Vendor v) {
    switch (v) {
        case Vendor::None:
            return "none";
        case Vendor::Nvidia:
            return "cuda";
        case Vendor::Amd:
            return "rocm";
        case Vendor::Ascend:
            return "ascend";
        case Vendor::Engine:
            return "engine";
        case Vendor::Unknown:
            return "unknown";
    }
    return "unknown";
}

const char* activityKindKey(ActivityKind k) {
    switch (k) {
        case ActivityKind::Kernel:
            return "kernel";
        case ActivityKind::Memcpy:
            return "memcpy";
        case ActivityKind::Memset:
            return "memset";
        case ActivityKind::Sync:
            return "sync";
    }
    return "kernel";
}

const std::string& GpuTrace::str(int64_t id) const {
    static const std::string kEmpty;
    auto it = strings.find(id);
    return it == strings.end() ? kEmpty : it->second;
}

const HostEvent* GpuTrace::launchingOp(const DeviceActivity& a) const {
    if (a.launch < 0) return nullptr;
    const int32_t op = host[static_cast<size_t>(a.launch)].op;
    return op < 0 ? nullptr : &host[static_cast<size_t>(op)];
}

Result<std::vector<int64_t>> listDeviceSources(store::TraceStore& store) {
    // A stream's track starts with its GPU rows (PyTorch 2.x's gpu_user_annotation may come
    // first): its first 64 slices decide, so no track is scanned whole. A track with host
    // calls among them is a host thread's, whatever else it carries (see loadGpuTrace).
    Statement q = store.db().prepare(
        "SELECT t.source_id, COALESCE(p.name, ''), EXISTS ("
        "  SELECT 1 FROM (SELECT cat_id FROM slices WHERE track_id = t.id LIMIT 64) f"
        "  JOIN strings c ON c.id = f.cat_id WHERE c.str IN ('kernel', 'Kernel', 'gpu_memcpy',"
        "  'Memcpy', 'gpu_memset', 'Memset', 'cuda_sync', 'mtia_ccp_events')) AND NOT EXISTS ("
        "  SELECT 1 FROM (SELECT cat_id FROM slices WHERE track_id = t.id LIMIT 64) f"
        "  JOIN strings c ON c.id = f.cat_id WHERE c.str IN ('cpu_op', 'Operator',"
        "  'user_annotation', 'cuda_driver', 'Runtime', 'python_function')"
        "  OR c.str LIKE '%\\_runtime' ESCAPE '\\') "
        "FROM tracks t LEFT JOIN processes p ON p.id = t.process_id "
        "WHERE t.kind <> 'counter' ORDER BY t.source_id DESC");
    if (!q.ok()) return Error{q.error()};
    std::vector<int64_t> out;
    while (q.step()) {
        const int64_t id = q.int64(0);
        if (!out.empty() && out.back() == id) continue;
        if (q.int64(2) != 0 || q.textView(1).rfind("Ascend Hardware", 0) == 0) out.push_back(id);
    }
    if (!q.error().empty()) return Error{q.error()};
    return out;
}

Result<int64_t> resolveDeviceSource(store::TraceStore& store, std::optional<int64_t> sourceId) {
    if (sourceId) {
        Statement q = store.db().prepare("SELECT 1 FROM sources WHERE id = ?");
        q.bind(1, *sourceId);
        if (!q.step()) return Error{"no source " + std::to_string(*sourceId) + " in this session"};
        return *sourceId;
    }
    auto list = listDeviceSources(store);
    if (!list) return Error{list.error()};
    if (list.value().empty())
        return Error{"no device work in this session (no kernel, memcpy or memset rows)"};
    return list.value().front();
}

Result<GpuTrace> loadGpuTrace(store::TraceStore& store, int64_t sourceId, JobControl* job) {
    GpuTrace g;
    g.sourceId = sourceId;
    std::string stats;
    {
        Statement q =
            store.db().prepare("SELECT kind, COALESCE(stats, '') FROM sources WHERE id = ?");
        q.bind(1, sourceId);
        if (!q.step()) return Error{"no source " + std::to_string(sourceId) + " in this session"};
        g.sourceKind = q.text(0);
        stats = q.text(1);
    }
    if (!stats.empty()) {
        rapidjson::Document doc;
        if (ts::json::parse(doc, stats) && doc.IsObject()) {
            auto extra = doc.FindMember("extra");
            if (extra != doc.MemberEnd() && extra->value.IsObject()) {
                auto dp = extra->value.FindMember("device_properties");
                if (dp != extra->value.MemberEnd()) {
                    rapidjson::StringBuffer buf;
                    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
                    dp->value.Accept(w);
                    g.devices = parseDeviceProperties({buf.GetString(), buf.GetSize()});
                }
            }
        }
    }

    // Tracks and the names of their processes (Ascend's device rows sit on "Ascend Hardware").
    struct TrackInfo {
        int64_t id;
        std::string kind, process;
    };
    std::vector<TrackInfo> tracks;
    {
        Statement q = store.db().prepare(
            "SELECT t.id, t.kind, COALESCE(p.name, '') FROM tracks t "
            "LEFT JOIN processes p ON p.id = t.process_id WHERE t.source_id = ? ORDER BY t.id");
        q.bind(1, sourceId);
        while (q.step()) tracks.push_back({q.int64(0), q.text(1), q.text(2)});
        if (!q.error().empty()) return Error{q.error()};
    }
    std::unordered_map<int64_t, Category> catOf;
    Statement catq = store.db().prepare("SELECT str FROM strings WHERE id = ?");
    auto category = [&](int64_t catId) -> Category {
        auto it = catOf.find(catId);
        if (it != catOf.end()) return it->second;
        std::string s;
        if (catId != 0) {
            catq.reset();
            catq.bind(1, catId);
            if (catq.step()) s = catq.text(0);
        }
        return catOf.emplace(catId, classify(s)).first->second;
    };

    // Slices, classified. Argument sets to read: every GPU row and host call, ops lazily.
    std::unordered_map<int64_t, std::pair<SliceClass, int32_t>> argTarget;  // arg id -> row
    Statement sq = store.db().prepare(
        "SELECT id, ts, dur, depth, name_id, COALESCE(cat_id, 0), COALESCE(arg_set_id, 0) "
        "FROM slices WHERE track_id = ? ORDER BY ts, depth, id");
    if (!sq.ok()) return Error{sq.error()};
    bool ascendDevice = false, hip = false;
    for (const TrackInfo& t : tracks) {
        if (job && job->cancelled()) return Error{"cancelled"};
        if (t.kind == "counter") continue;
        // Named "Ascend Hardware" by torch_npu and the Ascend importer; a session of several
        // sources labels it "Ascend Hardware · <file>".
        const bool ascendHw = t.process.rfind("Ascend Hardware", 0) == 0;
        sq.reset();
        sq.bind(1, t.id);
        // A track's rows are read whole first: device rows on a track that also carries host
        // calls (a recorder's copy op tagged gpu_memcpy on its own thread) are host work.
        // Kineto never mixes the two; its device rows have a stream's track to themselves.
        struct Row {
            int64_t id, ts, dur, nameId, argId;
            int32_t depth;
            Category c;
        };
        std::vector<Row> rows;
        bool hostCalls = false;
        while (sq.step()) {
            const int64_t catId = sq.int64(5);
            Category c = ascendHw
                             ? Category{SliceClass::Activity, ActivityKind::Kernel, HostKind::Other}
                             : category(catId);
            if (c.cls == SliceClass::Skip) continue;
            hostCalls = hostCalls || (c.cls == SliceClass::Host && c.host != HostKind::Other);
            rows.push_back({sq.int64(0), sq.int64(1), std::max<int64_t>(0, sq.int64(2)),
                            sq.int64(4), sq.int64(6), static_cast<int32_t>(sq.int64(3)), c});
        }
        if (!sq.error().empty()) return Error{sq.error()};
        for (const Row& r : rows) {
            const Category& c = r.c;
            const int64_t id = r.id, ts = r.ts, dur = r.dur, nameId = r.nameId, argId = r.argId;
            const int32_t depth = r.depth;
            if (c.cls == SliceClass::Activity && !hostCalls) {
                ascendDevice = ascendDevice || ascendHw;
                DeviceActivity a;
                a.sliceId = id;
                a.trackId = t.id;
                a.ts = ts;
                a.dur = dur;
                a.nameId = nameId;
                a.kind = c.activity;
                if (argId)
                    argTarget[argId] = {SliceClass::Activity,
                                        static_cast<int32_t>(g.activities.size())};
                g.activities.push_back(a);
            } else if (c.cls == SliceClass::GpuAnnotation && !hostCalls) {
                g.annotations.push_back({id, t.id, ts, dur, nameId, depth});
            } else {
                HostEvent h;
                h.sliceId = id;
                h.trackId = t.id;
                h.ts = ts;
                h.dur = dur;
                h.nameId = nameId;
                h.depth = depth;
                h.kind = c.cls == SliceClass::Host ? c.host : HostKind::Other;
                if (argId && h.kind != HostKind::Python)
                    argTarget[argId] = {SliceClass::Host, static_cast<int32_t>(g.host.size())};
                g.host.push_back(h);
            }
        }
    }

    // Names.
    {
        Statement nq = store.db().prepare(
            "SELECT st.id, st.str FROM strings st WHERE st.id IN ("
            " SELECT s.name_id FROM slices s JOIN tracks t ON t.id = s.track_id"
            " WHERE t.source_id = ?1)");
        nq.bind(1, sourceId);
        while (nq.step()) g.strings.emplace(nq.int64(0), nq.text(1));
        if (!nq.error().empty()) return Error{nq.error()};
    }
    for (const HostEvent& h : g.host) {
        const std::string& n = g.str(h.nameId);
        if (n.rfind("hip", 0) == 0) {
            hip = true;
            break;
        }
    }

    // Parents: the innermost op around every host event (ops are nested by depth on a track).
    std::vector<int32_t> parentOp(g.host.size(), -1);
    {
        std::vector<int32_t> stack;
        for (size_t i = 0; i < g.host.size(); ++i) {
            const HostEvent& h = g.host[i];
            if (i == 0 || g.host[i - 1].trackId != h.trackId) stack.clear();
            while (!stack.empty() && (g.host[static_cast<size_t>(stack.back())].end() <= h.ts ||
                                      g.host[static_cast<size_t>(stack.back())].depth >= h.depth))
                stack.pop_back();
            for (auto it = stack.rbegin(); it != stack.rend(); ++it)
                if (g.host[static_cast<size_t>(*it)].kind == HostKind::CpuOp) {
                    parentOp[i] = *it;
                    break;
                }
            stack.push_back(static_cast<int32_t>(i));
        }
    }
    for (size_t i = 0; i < g.host.size(); ++i)
        if (g.host[i].kind == HostKind::Runtime || g.host[i].kind == HostKind::Driver)
            g.host[i].op = parentOp[i];

    // Arguments.
    {
        Statement aq = store.db().prepare("SELECT id, json FROM args WHERE source_id = ?");
        aq.bind(1, sourceId);
        rapidjson::Document doc;
        int64_t seen = 0;
        while (aq.step()) {
            if (job && (++seen & 0xFFFF) == 0 && job->cancelled()) return Error{"cancelled"};
            auto it = argTarget.find(aq.int64(0));
            if (it == argTarget.end()) continue;
            if (!ts::json::parse(doc, aq.textView(1)) || !doc.IsObject()) continue;
            const rapidjson::Value& a = doc;
            auto get = [&](const char* key) -> const rapidjson::Value* {
                auto m = a.FindMember(key);
                return m == a.MemberEnd() ? nullptr : &m->value;
            };
            if (it->second.first == SliceClass::Activity) {
                DeviceActivity& d = g.activities[static_cast<size_t>(it->second.second)];
                if (auto* v = get("device")) d.device = intOf(*v);
                if (auto* v = get("stream")) d.stream = intOf(*v);
                if (auto* v = get("Stream Id")) d.stream = intOf(*v);  // Ascend
                if (auto* v = get("correlation")) d.correlation = intOf(*v);
                if (auto* v = get("External id")) d.externalId = intOf(*v);
                if (auto* v = get("grid")) dims3(*v, d.grid);
                if (auto* v = get("block")) dims3(*v, d.block);
                if (auto* v = get("registers per thread")) d.registers = intOf(*v);
                if (auto* v = get("shared memory")) d.sharedMemory = intOf(*v);
                if (auto* v = get("blocks per SM")) d.blocksPerSm = realOf(*v);
                if (auto* v = get("warps per SM")) d.warpsPerSm = realOf(*v);
                if (auto* v = get("est. achieved occupancy %")) d.occupancyPct = realOf(*v);
                if (auto* v = get("bytes")) d.bytes = intOf(*v);
                if (auto* v = get("memory bandwidth (GB/s)")) d.bandwidthGBs = realOf(*v);
                if (auto* v = get("Task Type");
                    v && v->IsString() && std::string_view(v->GetString()) == "HCCL")
                    d.communication = true;
                CollectiveArgs c = collectiveOf(a);
                if (!c.empty()) {
                    d.collective = static_cast<int32_t>(g.collectives.size());
                    g.collectives.push_back(std::move(c));
                }
                if (auto* v = get("Accelerator Core"); v && v->IsString()) {
                    AscendKernelInfo k;
                    k.acceleratorCore = v->GetString();
                    if (auto* t = get("Type"); t && t->IsString()) k.type = t->GetString();
                    if (auto* b = get("Block Dim")) k.blockDim = intOf(*b);
                    if (auto* sh = get("Input Shapes")) k.inputShapes = jsonText(*sh);
                    if (auto* sid = get("Stream ID")) d.stream = intOf(*sid);
                    for (const auto& m : a.GetObject()) {
                        const std::string_view key(m.name.GetString(), m.name.GetStringLength());
                        const bool pipe =
                            (key.rfind("aic_", 0) == 0 || key.rfind("aiv_", 0) == 0) &&
                            (endsWith(key, "_ratio") || endsWith(key, "_rate"));
                        if ((pipe || key == "cube_utilization(%)") && m.value.IsNumber())
                            k.pipeline.emplace_back(std::string(key), m.value.GetDouble());
                    }
                    d.ascend = static_cast<int32_t>(g.ascend.size());
                    g.ascend.push_back(std::move(k));
                }
            } else {
                HostEvent& h = g.host[static_cast<size_t>(it->second.second)];
                if (auto* v = get("correlation")) h.correlation = intOf(*v);
                if (auto* v = get("External id")) h.externalId = intOf(*v);
                if (auto* v = get("stream")) h.stream = intOf(*v);
                if (h.kind == HostKind::CpuOp) {
                    const rapidjson::Value* dims = get("Input Dims");
                    if (!dims) dims = get("Input dims");
                    if (dims) h.inputDims = jsonText(*dims);
                    CollectiveArgs c = collectiveOf(a);
                    if (!c.empty()) {
                        h.collective = static_cast<int32_t>(g.collectives.size());
                        g.collectives.push_back(std::move(c));
                    }
                }
            }
        }
        if (!aq.error().empty()) return Error{aq.error()};
    }
    // Input shapes are kept only for ops that launched GPU work (the rest are not shown).
    {
        std::vector<char> launches(g.host.size(), 0);
        for (const HostEvent& h : g.host)
            if (h.op >= 0) launches[static_cast<size_t>(h.op)] = 1;
        for (size_t i = 0; i < g.host.size(); ++i)
            if (!launches[i]) std::string().swap(g.host[i].inputDims);
    }

    // Launches: the runtime or driver call with the GPU row's correlation id.
    {
        std::unordered_map<int64_t, int32_t> byCorrelation;
        for (size_t i = 0; i < g.host.size(); ++i) {
            const HostEvent& h = g.host[i];
            if ((h.kind == HostKind::Runtime || h.kind == HostKind::Driver) && h.correlation >= 0)
                byCorrelation.emplace(h.correlation, static_cast<int32_t>(i));
        }
        for (DeviceActivity& a : g.activities) {
            if (a.correlation >= 0) {
                auto it = byCorrelation.find(a.correlation);
                if (it != byCorrelation.end()) a.launch = it->second;
            }
            const std::string& n = g.name(a);
            if (a.kind == ActivityKind::Kernel) {
                a.tensorCore = usesTensorCores(n);
                if (isCommunicationKernelName(n)) a.communication = true;
            }
            if (a.kind != ActivityKind::Kernel) continue;
            // A kernel launched from inside a collective op is communication; its op (or an
            // op around it) may carry the collective's arguments.
            for (int32_t op = a.launch >= 0 ? g.host[static_cast<size_t>(a.launch)].op : -1;
                 op >= 0; op = parentOp[static_cast<size_t>(op)]) {
                const HostEvent& h = g.host[static_cast<size_t>(op)];
                if (isCollectiveOpName(g.name(h))) a.communication = true;
                if (a.collective < 0 && h.collective >= 0) a.collective = h.collective;
                if (a.communication && a.collective >= 0) break;
            }
        }
    }
    std::stable_sort(g.activities.begin(), g.activities.end(),
                     [](const DeviceActivity& x, const DeviceActivity& y) { return x.ts < y.ts; });
    // The launch index of each activity stays valid: host was not reordered.
    std::stable_sort(g.annotations.begin(), g.annotations.end(),
                     [](const GpuAnnotation& x, const GpuAnnotation& y) { return x.ts < y.ts; });

    if (g.sourceKind == "profiler")
        g.vendor = Vendor::Engine;
    else if (ascendDevice || !g.ascend.empty())
        g.vendor = Vendor::Ascend;
    else if (g.activities.empty())
        g.vendor = Vendor::None;
    else if (hip)
        g.vendor = Vendor::Amd;
    else
        g.vendor = Vendor::Nvidia;
    for (const auto& d : g.devices)
        if (d.name.find("AMD") != std::string::npos || d.name.find("Instinct") != std::string::npos)
            if (g.vendor == Vendor::Nvidia) g.vendor = Vendor::Amd;
    return g;
}

}  // namespace ts::analysis::gpu
