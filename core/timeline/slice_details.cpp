#include "core/timeline/slice_details.h"

#include <rapidjson/prettywriter.h>
#include <rapidjson/stringbuffer.h>

#include <algorithm>
#include <optional>

#include "core/common/json_read.h"
#include "core/store/trace_store.h"
#include "core/timeline/timeline_model.h"

namespace ts::timeline {

namespace {
/// Forwards SAX events to a PrettyWriter, writing numbers as their exact source text (so
/// integers beyond 64 bits and long decimals survive).
struct ExactNumbers {
    using W = rapidjson::PrettyWriter<rapidjson::StringBuffer>;
    W& w;
    bool Null() { return w.Null(); }
    bool Bool(bool b) { return w.Bool(b); }
    bool Int(int i) { return w.Int(i); }
    bool Uint(unsigned u) { return w.Uint(u); }
    bool Int64(int64_t i) { return w.Int64(i); }
    bool Uint64(uint64_t u) { return w.Uint64(u); }
    bool Double(double d) { return w.Double(d); }
    bool RawNumber(const char* s, rapidjson::SizeType n, bool) {
        return w.RawValue(s, n, rapidjson::kNumberType);
    }
    bool String(const char* s, rapidjson::SizeType n, bool c) { return w.String(s, n, c); }
    bool StartObject() { return w.StartObject(); }
    bool Key(const char* s, rapidjson::SizeType n, bool c) { return w.Key(s, n, c); }
    bool EndObject(rapidjson::SizeType n) { return w.EndObject(n); }
    bool StartArray() { return w.StartArray(); }
    bool EndArray(rapidjson::SizeType n) { return w.EndArray(n); }
};
}  // namespace

std::string prettyJson(std::string_view json) {
    rapidjson::StringBuffer buf;
    rapidjson::PrettyWriter<rapidjson::StringBuffer> w(buf);
    w.SetIndent(' ', 2);
    ExactNumbers h{w};
    if (!ts::json::parseSax<rapidjson::kParseNumbersAsStringsFlag>(json, h))
        return std::string(json);
    return buf.GetString();
}

namespace {

/// The (track, ts) of slice `id`: from `known`, else by a scan of the slices table.
std::optional<SliceKey> locate(store::TraceStore& s, int64_t id,
                               const std::vector<SliceKey>& known) {
    for (const SliceKey& k : known)
        if (k.id == id) return k;
    store::Statement st = s.db().prepare("SELECT track_id, ts FROM slices WHERE id = ?");
    st.bind(1, id);
    if (!st.step()) return std::nullopt;
    return SliceKey{id, st.int64(0), st.int64(1)};
}

void readFlows(store::TraceStore& s, const char* sql, int64_t id,
               const std::vector<SliceKey>& known, std::vector<FlowLink>& out) {
    store::Statement f = s.db().prepare(sql);
    f.bind(1, id);
    store::Statement end =
        s.db().prepare("SELECT name_id, ts FROM slices WHERE track_id = ? AND ts = ? AND id = ?");
    while (f.step()) {
        FlowLink link{f.int64(0), {}, s.string(f.int64(1)), 0, {}};
        if (auto k = locate(s, link.sliceId, known)) {
            end.reset();
            end.bind(1, k->trackId).bind(2, k->ts).bind(3, k->id);
            if (end.step()) {
                link.name = s.string(end.int64(0));
                link.ts = end.int64(1);
            }
        }
        out.push_back(std::move(link));
    }
}

}  // namespace

Result<SliceDetails> readSliceDetails(store::TraceStore& s, const SliceKey& key,
                                      const std::vector<SliceKey>& known) {
    store::Statement st = s.db().prepare(
        "SELECT sl.ts, sl.dur, sl.depth, sl.name_id, coalesce(sl.cat_id, 0), sl.flags, "
        "a.json, sl.track_id, coalesce(t.name_id, 0), coalesce(th.name, ''), coalesce(th.tid, '') "
        "FROM slices sl LEFT JOIN args a ON a.id = sl.arg_set_id "
        "LEFT JOIN tracks t ON t.id = sl.track_id LEFT JOIN threads th ON th.id = t.thread_id "
        "WHERE sl.track_id = ? AND sl.ts = ? AND sl.id = ?");
    st.bind(1, key.trackId).bind(2, key.ts).bind(3, key.id);
    const int64_t id = key.id;
    if (!st.step())
        return Error{st.error().empty() ? "no slice " + std::to_string(id) : st.error()};
    SliceDetails d;
    d.id = id;
    d.ts = st.int64(0);
    d.dur = st.int64(1);
    d.depth = static_cast<int32_t>(st.int64(2));
    d.name = s.string(st.int64(3));
    d.category = s.string(st.int64(4));
    d.unfinished = (st.int64(5) & 1) != 0;
    if (!st.isNull(6)) d.argsJson = prettyJson(st.textView(6));
    const int64_t track = st.int64(7);
    d.track = s.string(st.int64(8));
    if (d.track.empty() && !st.textView(10).empty()) d.track = threadTitle(st.text(9), st.text(10));
    // Direct children: slices one level deeper on the same track that start inside it.
    store::Statement ch = s.db().prepare(
        "SELECT ts, dur FROM slices WHERE track_id = ? AND depth = ? AND ts >= ? AND ts < ?");
    ch.bind(1, track)
        .bind(2, int64_t{d.depth} + 1)
        .bind(3, d.ts)
        .bind(4, d.ts + std::max<int64_t>(d.dur, 1));
    int64_t children = 0;
    while (ch.step()) children += std::min(ch.int64(0) + ch.int64(1), d.ts + d.dur) - ch.int64(0);
    d.selfNs = std::max<int64_t>(0, d.dur - children);
    readFlows(s, "SELECT slice_in, coalesce(name_id, 0) FROM flows WHERE slice_out = ?", id, known,
              d.flowsOut);
    readFlows(s, "SELECT slice_out, coalesce(name_id, 0) FROM flows WHERE slice_in = ?", id, known,
              d.flowsIn);
    // Nested slices (a range of the table's key) and the flows leaving them (by index).
    store::Statement nested = s.db().prepare(
        "SELECT f.slice_in, coalesce(f.name_id, 0), n.name_id FROM slices n JOIN flows f ON "
        "f.slice_out = n.id WHERE n.track_id = ? AND n.ts >= ? AND n.ts < ? AND n.depth > ? "
        "AND n.id != ? ORDER BY n.ts");
    nested.bind(1, track).bind(2, d.ts).bind(3, d.ts + std::max<int64_t>(d.dur, 1));
    nested.bind(4, int64_t{d.depth}).bind(5, id);
    while (nested.step()) {
        if (static_cast<int>(d.nestedFlowsOut.size()) >= SliceDetails::kMaxNestedFlows) {
            ++d.nestedFlowsMore;
            continue;
        }
        FlowLink link{nested.int64(0), {}, s.string(nested.int64(1)), 0, s.string(nested.int64(2))};
        if (auto k = locate(s, link.sliceId, known)) {
            store::Statement end = s.db().prepare(
                "SELECT name_id, ts FROM slices WHERE track_id = ? AND ts = ? AND id = ?");
            end.bind(1, k->trackId).bind(2, k->ts).bind(3, k->id);
            if (end.step()) {
                link.name = s.string(end.int64(0));
                link.ts = end.int64(1);
            }
        }
        d.nestedFlowsOut.push_back(std::move(link));
    }
    return d;
}

Result<SliceDetails> readSliceDetails(const std::string& path, const SliceKey& key,
                                      const std::vector<SliceKey>& known) {
    auto opened = store::TraceStore::open(path, store::TraceStore::Mode::ReadOnly);
    if (!opened) return Error{opened.error()};
    return readSliceDetails(*opened.value(), key, known);
}

Result<SliceDetails> readSliceDetails(store::TraceStore& s, int64_t id) {
    auto key = locate(s, id, {});
    if (!key) return Error{"no slice " + std::to_string(id)};
    return readSliceDetails(s, *key);
}

Result<SliceDetails> readSliceDetails(const std::string& path, int64_t id) {
    auto opened = store::TraceStore::open(path, store::TraceStore::Mode::ReadOnly);
    if (!opened) return Error{opened.error()};
    return readSliceDetails(*opened.value(), id);
}

}  // namespace ts::timeline
