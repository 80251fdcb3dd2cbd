#include "core/timeline/op_stats.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <charconv>
#include <cstdio>
#include <limits>
#include <map>
#include <tuple>
#include <unordered_map>

#include "core/common/csv.h"
#include "core/common/json_read.h"
#include "core/store/slice_scan.h"
#include "core/store/trace_store.h"

namespace ts::timeline {
namespace {

using store::Statement;

struct Row {
    int64_t ts, dur, nameId, catId, argId, id;
    int64_t self;
};

struct Key {
    int64_t name, cat;
    uint32_t shape;
    auto operator<=>(const Key&) const = default;
};

struct Acc {
    int64_t calls = 0, self = 0, total = 0, min = 0, max = 0, maxId = 0;
};

class ShapeCache {
public:
    explicit ShapeCache(store::TraceStore& s)
        : m_args(s.db().prepare("SELECT json FROM args WHERE id = ?")) {
        m_texts.emplace_back();
    }
    uint32_t shapeOf(int64_t argId) {
        if (argId == 0) return 0;
        auto it = m_byArg.find(argId);
        if (it != m_byArg.end()) return it->second;
        std::string text;
        m_args.reset();
        m_args.bind(1, argId);
        if (m_args.step()) text = inputShapesOf(m_args.textView(0));
        m_args.reset();
        auto [t, fresh] = m_byText.emplace(text, static_cast<uint32_t>(m_texts.size()));
        if (fresh) m_texts.push_back(text);
        m_byArg.emplace(argId, t->second);
        return t->second;
    }
    const std::string& text(uint32_t id) const { return m_texts[id]; }

private:
    Statement m_args;
    std::unordered_map<int64_t, uint32_t> m_byArg;
    std::map<std::string, uint32_t> m_byText;
    std::vector<std::string> m_texts;
};

/// isTraceSpan by string ids, each id looked up once (a string read per slice would cost
/// more than the statistics).
class SpanCheck {
public:
    explicit SpanCheck(store::TraceStore& s) : m_store(s) {}
    bool is(int64_t nameId, int64_t catId) {
        auto c = m_traceCat.find(catId);
        if (c == m_traceCat.end())
            c = m_traceCat.emplace(catId, catId != 0 && m_store.string(catId) == "Trace").first;
        if (!c->second) return false;
        auto n = m_spanName.find(nameId);
        if (n == m_spanName.end())
            n = m_spanName.emplace(nameId, isTraceSpan(m_store.string(nameId), "Trace")).first;
        return n->second;
    }

private:
    store::TraceStore& m_store;
    std::unordered_map<int64_t, bool> m_traceCat, m_spanName;
};

/// Self times by containment: rows sorted by start, parents before children on ties.
void computeSelf(std::vector<Row>& rows) {
    std::sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
        return a.ts != b.ts ? a.ts < b.ts : a.dur > b.dur;
    });
    std::vector<size_t> stack;
    for (size_t i = 0; i < rows.size(); ++i) {
        Row& r = rows[i];
        r.self = r.dur;
        while (!stack.empty()) {
            const Row& top = rows[stack.back()];
            if (top.ts + top.dur <= r.ts && !(top.dur == 0 && top.ts == r.ts && r.dur == 0))
                stack.pop_back();
            else
                break;
        }
        if (!stack.empty()) {
            Row& parent = rows[stack.back()];
            if (r.ts + r.dur <= parent.ts + parent.dur) parent.self -= r.dur;
        }
        stack.push_back(i);
    }
    for (Row& r : rows) r.self = std::max<int64_t>(r.self, 0);
}

Result<std::optional<int64_t>> resolveSource(store::TraceStore& s, const OpStatsOptions& o) {
    std::optional<int64_t> source = o.sourceId;
    if (o.runId) {
        Statement st = s.db().prepare("SELECT profile_source_id FROM runs WHERE id = ?");
        st.bind(1, *o.runId);
        if (!st.step()) return Error{"no run " + std::to_string(*o.runId)};
        if (st.isNull(0)) return Error{"run " + std::to_string(*o.runId) + " has no profile"};
        const int64_t runSource = st.int64(0);
        if (source && *source != runSource)
            return Error{"run " + std::to_string(*o.runId) + " is profiled in source " +
                         std::to_string(runSource) + ", not " + std::to_string(*source)};
        source = runSource;
    }
    if (source) {
        Statement st = s.db().prepare("SELECT 1 FROM sources WHERE id = ?");
        st.bind(1, *source);
        if (!st.step()) return Error{"no source " + std::to_string(*source)};
    }
    return source;
}

}  // namespace

namespace {
/// The rows of a step query (name, source, ts, dur, id) as ProfilerSteps.
void stepsOf(Statement& st, std::vector<ProfilerStep>& steps) {
    while (st.step()) {
        const std::string_view name = st.textView(0);
        int64_t n = 0;
        const char* b = name.data() + 13;
        const char* e = name.data() + name.size();
        auto [p, ec] = std::from_chars(b, e, n);
        if (ec != std::errc() || p != e) continue;
        steps.push_back({n, st.int64(1), st.int64(2), st.int64(3), st.int64(4)});
    }
}
}  // namespace

Result<std::vector<ProfilerStep>> listProfilerSteps(store::TraceStore& s) {
    std::vector<ProfilerStep> steps;
    // The (track, name) pairs holding steps come from the per-track totals; then only those
    // ranges of the slices table are read (it is clustered by track), not all of it.
    std::vector<std::pair<int64_t, int64_t>> where;
    {
        Statement w = s.db().prepare(
            "SELECT n.track_id, n.name_id FROM slice_name_stats n JOIN strings str ON "
            "str.id = n.name_id WHERE str.str LIKE 'ProfilerStep#%'");
        while (w.step()) where.emplace_back(w.int64(0), w.int64(1));
        if (!w.error().empty()) return Error{w.error()};
    }
    Statement st = s.db().prepare(
        "SELECT str.str, t.source_id, sl.ts, sl.dur, sl.id FROM slices sl "
        "JOIN strings str ON str.id = sl.name_id JOIN tracks t ON t.id = sl.track_id "
        "WHERE sl.track_id = ? AND sl.name_id = ?");
    for (const auto& [track, name] : where) {
        st.reset();
        st.bind(1, track).bind(2, name);
        stepsOf(st, steps);
        if (!st.error().empty()) return Error{st.error()};
    }
    std::sort(steps.begin(), steps.end(), [](const ProfilerStep& a, const ProfilerStep& b) {
        return std::tie(a.sourceId, a.ts, a.number) < std::tie(b.sourceId, b.ts, b.number);
    });
    return steps;
}

Result<OpStats> computeOpStats(store::TraceStore& s, const OpStatsOptions& o, JobControl* job) {
    auto sourceR = resolveSource(s, o);
    if (!sourceR) return Error{sourceR.error()};
    std::optional<int64_t> source = sourceR.value();
    std::optional<std::pair<int64_t, int64_t>> range = o.range;
    if (o.step) {
        auto steps = listProfilerSteps(s);
        if (!steps) return Error{steps.error()};
        const ProfilerStep* found = nullptr;
        for (const auto& st : steps.value())
            if (st.number == *o.step && (!source || st.sourceId == *source)) {
                found = &st;
                break;
            }
        if (!found) return Error{"no slice ProfilerStep#" + std::to_string(*o.step)};
        if (!source) source = found->sourceId;  // steps of other ranks use other clocks
        range = std::make_pair(found->ts, found->ts + std::max<int64_t>(found->dur, 1));
    }

    std::vector<int64_t> tracks;
    {
        Statement st = s.db().prepare(
            "SELECT id FROM tracks WHERE kind != 'counter' AND (?1 IS NULL OR source_id = ?1) "
            "ORDER BY id");
        if (source)
            st.bind(1, *source);
        else
            st.bindNull(1);
        while (st.step()) tracks.push_back(st.int64(0));
        if (!st.error().empty()) return Error{st.error()};
    }
    if (!o.trackIds.empty())
        std::erase_if(tracks, [&](int64_t t) {
            return std::find(o.trackIds.begin(), o.trackIds.end(), t) == o.trackIds.end();
        });

    // The slices of each track in time order, straight from their chunks (no SQL per row).
    auto dir = store::SliceDirectory::load(s.db().handle());
    if (!dir) return Error{dir.error()};
    store::SliceScanner scan(s.db().handle());
    constexpr uint32_t kColumns = (1u << store::kSliceDur) | (1u << store::kSliceName) |
                                  (1u << store::kSliceCat) | (1u << store::kSliceArgs);
    const int64_t lo = range ? range->first : std::numeric_limits<int64_t>::min();
    const int64_t hi = range ? range->second : std::numeric_limits<int64_t>::max();
    std::optional<ShapeCache> shapes;
    if (o.groupByInputShape) shapes.emplace(s);
    std::map<Key, Acc> acc;
    OpStats out;
    int64_t seenLo = std::numeric_limits<int64_t>::max(),
            seenHi = std::numeric_limits<int64_t>::min();
    if (job) job->setTotal(tracks.size());
    std::vector<Row> rows;
    int64_t spansBefore = 0;
    SpanCheck spans(s);
    for (int64_t track : tracks) {
        rows.clear();
        store::SliceBounds b;
        b.trackLo = b.trackHi = track;
        b.tsLo = lo;
        b.tsHi = hi == std::numeric_limits<int64_t>::min() ? lo - 1 : hi - 1;  // ts < hi
        Status st = scan.start(dir.value(), b, kColumns);
        while (st && !scan.atEnd()) {
            rows.push_back({scan.ts(), std::max<int64_t>(0, scan.dur()), scan.nameId(),
                            scan.catId(), scan.argSetId(), scan.id(), 0});
            st = scan.next();
        }
        if (!st) return Error{st.error()};
        computeSelf(rows);
        for (const Row& r : rows) {
            seenLo = std::min(seenLo, r.ts);
            seenHi = std::max(seenHi, r.ts + r.dur);
            if (!o.includeTraceSpans && spans.is(r.nameId, r.catId)) {
                ++out.traceSpans;
                continue;
            }
            Key k{r.nameId, r.catId, 0};
            if (o.by == StatsGroupBy::Category)
                k = {r.catId, r.catId, 0};
            else if (shapes)
                k.shape = shapes->shapeOf(r.argId);
            Acc& a = acc[k];
            a.min = a.calls ? std::min(a.min, r.dur) : r.dur;
            if (!a.calls || r.dur > a.max) a.maxId = r.id;
            a.max = a.calls ? std::max(a.max, r.dur) : r.dur;
            ++a.calls;
            a.total += r.dur;
            a.self += r.self;
        }
        out.slices += static_cast<int64_t>(rows.size());
        out.slices -= out.traceSpans - spansBefore;
        spansBefore = out.traceSpans;
        if (job) {
            job->addDone(1);
            if (job->cancelled()) return Error{"cancelled"};
        }
    }
    if (range) {
        out.rangeStart = range->first;
        out.rangeEnd = range->second;
    } else if (out.slices) {
        out.rangeStart = seenLo;
        out.rangeEnd = seenHi;
    }
    const double span = static_cast<double>(std::max<int64_t>(out.rangeEnd - out.rangeStart, 1));
    for (const auto& [k, a] : acc) out.selfNs += a.self;
    const double selfAll = static_cast<double>(std::max<int64_t>(out.selfNs, 1));
    for (const auto& [k, a] : acc) {
        OpStatsRow r;
        r.category = s.string(k.cat);
        r.name = o.by == StatsGroupBy::Category ? (r.category.empty() ? "(none)" : r.category)
                                                : s.string(k.name);
        if (shapes) r.inputShapes = shapes->text(k.shape);
        r.calls = a.calls;
        r.selfNs = a.self;
        r.totalNs = a.total;
        r.minNs = a.min;
        r.maxNs = a.max;
        r.avgNs = static_cast<double>(a.total) / static_cast<double>(a.calls);
        r.selfPercent = 100.0 * static_cast<double>(a.self) / selfAll;
        r.totalPercent = 100.0 * static_cast<double>(a.total) / span;
        r.maxSliceId = a.maxId;
        out.rows.push_back(std::move(r));
    }
    std::sort(out.rows.begin(), out.rows.end(), [](const OpStatsRow& a, const OpStatsRow& b) {
        return std::tie(b.selfNs, b.totalNs, a.name, a.inputShapes) <
               std::tie(a.selfNs, a.totalNs, b.name, b.inputShapes);
    });
    return out;
}

Result<OpStats> computeOpStats(const std::string& path, const OpStatsOptions& o, JobControl* job) {
    auto opened = store::TraceStore::open(path, store::TraceStore::Mode::ReadOnly);
    if (!opened) return Error{opened.error()};
    return computeOpStats(*opened.value(), o, job);
}

namespace {}  // namespace

std::string opStatsCsv(const OpStats& st) {
    std::string out =
        "name,category,input_shapes,calls,self_ns,total_ns,avg_ns,min_ns,max_ns,self_percent,"
        "total_percent\n";
    char num[64];
    for (const auto& r : st.rows) {
        out += csvField(r.name) + ',' + csvField(r.category) + ',' + csvField(r.inputShapes) + ',';
        out += std::to_string(r.calls) + ',' + std::to_string(r.selfNs) + ',' +
               std::to_string(r.totalNs) + ',';
        std::snprintf(num, sizeof num, "%.1f,", r.avgNs);
        out += num;
        out += std::to_string(r.minNs) + ',' + std::to_string(r.maxNs) + ',';
        std::snprintf(num, sizeof num, "%.4f,%.4f\n", r.selfPercent, r.totalPercent);
        out += num;
    }
    return out;
}

bool isTraceSpan(std::string_view name, std::string_view category) {
    return category == "Trace" && name.starts_with("PyTorch Profiler");
}

std::string inputShapesOf(std::string_view json) {
    rapidjson::Document d;
    if (!ts::json::parse(d, json) || !d.IsObject()) return {};
    for (const char* key : {"Input Dims", "input_shapes", "Input dims", "input_dims"}) {
        auto it = d.FindMember(key);
        if (it == d.MemberEnd()) continue;
        if (it->value.IsString()) return it->value.GetString();
        rapidjson::StringBuffer buf;
        rapidjson::Writer<rapidjson::StringBuffer> w(buf);
        it->value.Accept(w);
        return buf.GetString();
    }
    return {};
}

}  // namespace ts::timeline
