#include "core/export/chrome/chrome_export.h"

#include "core/common/file_io.h"
#include "core/common/json.h"

#include <algorithm>
#include <cstdio>
#include <memory>
#include <unordered_map>
#include <vector>

namespace ts::chrome_export {
namespace {

// pid/tid as a JSON number when the stored text is a plain integer, else a string.
std::string idValue(std::string_view s) {
    if (s.empty() || s.size() > 18) return json::quote(s);
    for (size_t i = 0; i < s.size(); ++i)
        if (!(s[i] >= '0' && s[i] <= '9') && !(i == 0 && s[i] == '-' && s.size() > 1))
            return json::quote(s);
    if (s.size() > 1 && s[0] == '0') return json::quote(s);
    return std::string(s);
}

struct Where {
    std::string pid, tid;  // JSON values
    std::string kind;
    bool hasThread = false, hasProcess = false;
};

/// Where a flow end binds: the slice's track and a time inside it.
struct FlowEnd {
    int64_t track = -1, point = 0;
};

/// Follows the direct children of one slice (the rows after it on its track, in start
/// order) to find the first time inside it that no child covers.
struct GapFinder {
    int64_t id, track, start, end;
    int32_t depth;
    int64_t covered;  // [start, covered) is covered by children seen so far
    /// Takes the next slice of the track; false once the answer is known.
    bool see(int64_t ts, int64_t dur, int32_t d) {
        if (ts >= end || covered >= end) return false;
        if (d != depth + 1) return true;
        if (ts > covered) return false;  // a gap before this child
        covered = std::max(covered, dur > 0 ? ts + dur : ts + 1);
        return true;
    }
    /// The free time, or the start when children cover all of it.
    int64_t point() const { return covered < end ? covered : start; }
};

class Out {
public:
    explicit Out(FILE* f) : m_f(f) {}
    void event(const std::string& body) {
        std::fputs(m_first ? "\n" : ",\n", m_f);
        m_first = false;
        std::fputs(body.c_str(), m_f);
        ++count;
    }
    int64_t count = 0;

private:
    FILE* m_f;
    bool m_first = true;
};

}  // namespace

std::string nsToMicros(int64_t ns) {
    const bool neg = ns < 0;
    const uint64_t a = neg ? 0 - static_cast<uint64_t>(ns) : static_cast<uint64_t>(ns);
    char buf[40];
    std::snprintf(buf, sizeof buf, "%s%llu.%03llu", neg ? "-" : "",
                  static_cast<unsigned long long>(a / 1000),
                  static_cast<unsigned long long>(a % 1000));
    return buf;
}

Result<ChromeExportStats> exportChromeTrace(store::TraceStore& store, const std::string& outPath,
                                            std::optional<int64_t> sourceId) {
    store::SqliteDb& db = store.db();
    const std::string srcFilter =
        sourceId ? " = " + std::to_string(*sourceId) : " IN (SELECT id FROM sources)";
    // The session is an input: exporting over it would destroy it (and the trace is written
    // whole or not at all).
    auto file = AtomicFile::create(outPath, {store.path()});
    if (!file) return Error{file.error()};
    FILE* f = file.value().stream();
    std::fputs(
        "{\"displayTimeUnit\":\"ns\",\"otherData\":{\"exporter\":\"trainscope\"},\"traceEvents\":[",
        f);
    Out out(f);
    ChromeExportStats st;

    // processes and threads: M events; pids get the process row id when two sources clash
    std::unordered_map<int64_t, std::string> procPid;
    std::unordered_map<int64_t, std::pair<std::string, std::string>> threadIds;
    {
        store::Statement q = db.prepare(
            "SELECT id, pid, name, sort_index, labels FROM processes WHERE source_id" + srcFilter);
        while (q.step()) {
            const std::string pid = sourceId ? idValue(q.textView(1)) : std::to_string(q.int64(0));
            procPid[q.int64(0)] = pid;
            if (!q.isNull(2))
                out.event("{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":" + pid +
                          ",\"tid\":0,\"args\":{\"name\":" + json::quote(q.textView(2)) + "}}");
            if (!q.isNull(3) && q.int64(3) != 0)
                out.event("{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":" + pid +
                          ",\"tid\":0,\"args\":{\"sort_index\":" + std::to_string(q.int64(3)) +
                          "}}");
            if (!q.isNull(4))
                out.event("{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":" + pid +
                          ",\"tid\":0,\"args\":{\"labels\":" + json::quote(q.textView(4)) + "}}");
        }
        store::Statement t = db.prepare(
            "SELECT t.id, t.process_id, t.tid, t.name, t.sort_index, (SELECT count(*) FROM tracks "
            "k WHERE k.thread_id = t.id AND k.kind <> 'samples') FROM threads t JOIN processes p "
            "ON p.id = t.process_id "
            "WHERE p.source_id" +
            srcFilter);
        while (t.step()) {
            const std::string pid = procPid[t.int64(1)];
            const std::string tid = idValue(t.textView(2));
            threadIds[t.int64(0)] = {pid, tid};
            if (t.int64(5) > 1) continue;
            if (!t.isNull(3))
                out.event("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" + pid + ",\"tid\":" +
                          tid + ",\"args\":{\"name\":" + json::quote(t.textView(3)) + "}}");
            if (!t.isNull(4) && t.int64(4) != 0)
                out.event("{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":" + pid +
                          ",\"tid\":" + tid +
                          ",\"args\":{\"sort_index\":" + std::to_string(t.int64(4)) + "}}");
        }
    }
    // tracks: where their events go. A slice track without a thread (a GPU stream) and
    // each track of a thread that has several (nsys: NVTX, CUDA API) become a thread of
    // their own, named after the track, so nothing merges on the way back in.
    std::unordered_map<int64_t, Where> where;
    {
        std::unordered_map<int64_t, int> tracksOfThread;
        // (a thread's samples track goes with its thread, whatever else it has)
        store::Statement n = db.prepare(
            "SELECT thread_id, count(*) FROM tracks WHERE thread_id IS NOT NULL AND "
            "kind <> 'samples' AND source_id" +
            srcFilter + " GROUP BY thread_id");
        while (n.step()) tracksOfThread[n.int64(0)] = static_cast<int>(n.int64(1));
        store::Statement q = db.prepare(
            "SELECT t.id, t.kind, t.process_id, t.thread_id, coalesce(s.str, ''), "
            "EXISTS(SELECT 1 FROM slices x WHERE x.track_id = t.id) FROM tracks t "
            "LEFT JOIN strings s ON s.id = t.name_id WHERE t.source_id" +
            srcFilter);
        while (q.step()) {
            Where w;
            w.kind = q.text(1);
            w.hasProcess = !q.isNull(2);
            w.hasThread = !q.isNull(3);
            w.pid = w.hasProcess ? procPid[q.int64(2)] : "0";
            w.tid = w.hasThread ? threadIds[q.int64(3)].second : "0";
            const bool ownThread =
                w.kind != "async" && w.kind != "counter" && w.kind != "samples" &&
                ((w.hasThread && tracksOfThread[q.int64(3)] > 1) || (!w.hasThread && q.int64(5)));
            if (ownThread) {
                w.tid = json::quote(q.textView(4).empty() ? "track " + q.text(0) : q.text(4));
                w.hasThread = true;
                out.event("{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":" + w.pid +
                          ",\"tid\":" + w.tid + ",\"args\":{\"name\":" + w.tid + "}}");
            }
            if (w.kind == "counter") w.tid = json::quote(q.textView(4));  // counter name
            where[q.int64(0)] = std::move(w);
        }
    }
    auto nameCat = [](store::Statement& q, int nameCol) {
        std::string s = ",\"name\":" + json::quote(q.textView(nameCol));
        if (!q.isNull(nameCol + 1)) s += ",\"cat\":" + json::quote(q.textView(nameCol + 1));
        if (!q.isNull(nameCol + 2)) s += ",\"args\":" + std::string(q.textView(nameCol + 2));
        return s;
    };
    // Flow ends: for each slice a flow binds to, a time inside it that none of its children
    // covers, so that the importer's rule (the deepest slice enclosing the time on the
    // thread) finds exactly that slice again, even when a child starts with its parent.
    std::unordered_map<int64_t, FlowEnd> ends;
    {
        store::Statement q =
            db.prepare("SELECT slice_out, slice_in FROM flows WHERE source_id" + srcFilter);
        while (q.step()) {
            ends[q.int64(0)];
            ends[q.int64(1)];
        }
    }
    std::vector<GapFinder> watching;
    auto settle = [&](const GapFinder& g) { ends[g.id] = {g.track, g.point()}; };
    // slices, one track at a time in (ts, depth) order
    {
        store::Statement q = db.prepare(
            "SELECT s.id, s.track_id, s.ts, s.dur, s.flags, n.str, c.str, a.json, s.depth "
            "FROM slices s "
            "JOIN tracks t ON t.id = s.track_id LEFT JOIN strings n ON n.id = s.name_id "
            "LEFT JOIN strings c ON c.id = s.cat_id LEFT JOIN args a ON a.id = s.arg_set_id "
            "WHERE t.source_id" +
            srcFilter + " ORDER BY s.track_id, s.ts, s.dur DESC, s.id");
        struct Open {
            int64_t end;
            std::string id, cat;  // cat: ",\"cat\":..." or ""
        };
        std::vector<Open> asyncOpen;
        int64_t curTrack = -1;
        auto closeAsync = [&](int64_t upTo, const Where& w) {
            while (!asyncOpen.empty() && asyncOpen.back().end <= upTo) {
                const Open& o = asyncOpen.back();
                out.event("{\"ph\":\"e\",\"pid\":" + w.pid + ",\"tid\":0,\"id\":\"" + o.id +
                          "\",\"ts\":" + nsToMicros(o.end) + o.cat + "}");
                asyncOpen.pop_back();
            }
        };
        while (q.step()) {
            const int64_t track = q.int64(1), ts = q.int64(2), dur = q.int64(3);
            const Where& w = where[track];
            if (track != curTrack) {
                if (curTrack >= 0) closeAsync(INT64_MAX, where[curTrack]);
                curTrack = track;
                for (const GapFinder& g : watching) settle(g);
                watching.clear();
            }
            const auto depth = static_cast<int32_t>(q.int64(8));
            std::erase_if(watching, [&](GapFinder& g) {
                const bool done = !g.see(ts, dur, depth);
                if (done) settle(g);
                return done;
            });
            if (!ends.empty() && ends.contains(q.int64(0))) {
                GapFinder g{q.int64(0), track, ts, ts + dur, depth, ts};
                if (dur > 0)
                    watching.push_back(g);
                else
                    settle(g);
            }
            const bool unfinished = (q.int64(4) & 1) != 0;
            if (w.kind == "async") {
                closeAsync(ts, w);
                const std::string id = "t" + std::to_string(track);
                // n: zero-length markers; b without e: unfinished slices
                const char* ph = dur == 0 && !unfinished ? "n" : "b";
                out.event(std::string("{\"ph\":\"") + ph + "\",\"pid\":" + w.pid +
                          ",\"tid\":0,\"id\":\"" + id + "\",\"ts\":" + nsToMicros(ts) +
                          nameCat(q, 5) + "}");
                if (*ph == 'b' && !unfinished)
                    asyncOpen.push_back(
                        {ts + dur, id,
                         q.isNull(6) ? "" : ",\"cat\":" + json::quote(q.textView(6))});
                ++st.asyncSlices;
                continue;
            }
            const std::string head =
                "{\"pid\":" + w.pid + ",\"tid\":" + w.tid + ",\"ts\":" + nsToMicros(ts);
            if (unfinished)
                out.event(head + ",\"ph\":\"B\"" + nameCat(q, 5) + "}");
            else
                out.event(head + ",\"ph\":\"X\",\"dur\":" + nsToMicros(dur) + nameCat(q, 5) + "}");
            ++st.slices;
        }
        if (curTrack >= 0) closeAsync(INT64_MAX, where[curTrack]);
        for (const GapFinder& g : watching) settle(g);
    }
    // instants, marks (R) and stack samples (P, sf: the frame's id, written below)
    bool anyFrame = false;
    {
        store::Statement q = db.prepare(
            "SELECT i.track_id, i.ts, coalesce(i.scope, 't'), n.str, c.str, a.json, i.frame_id "
            "FROM instants i "
            "JOIN tracks t ON t.id = i.track_id LEFT JOIN strings n ON n.id = i.name_id "
            "LEFT JOIN strings c ON c.id = i.cat_id LEFT JOIN args a ON a.id = i.arg_set_id "
            "WHERE t.source_id" +
            srcFilter + " ORDER BY i.ts");
        while (q.step()) {
            const Where& w = where[q.int64(0)];
            const std::string scope = q.text(2);
            const char s = !w.hasProcess ? 'g' : !w.hasThread ? 'p' : 't';
            std::string ph = scope == "o" ? "\"O\"" : "\"i\",\"s\":\"" + std::string(1, s) + "\"";
            if (scope == "m") ph = "\"R\"";
            if (scope == "s") {
                ph = "\"P\"";
                if (!q.isNull(6)) {
                    ph += ",\"sf\":\"" + std::to_string(q.int64(6)) + "\"";
                    anyFrame = true;
                }
            }
            out.event("{\"ph\":" + ph + ",\"pid\":" + w.pid +
                      ",\"tid\":" + (w.hasThread ? w.tid : "0") +
                      ",\"ts\":" + nsToMicros(q.int64(1)) + nameCat(q, 3) + "}");
            ++(scope == "m" ? st.marks : scope == "s" ? st.samples : st.instants);
        }
    }
    // clock syncs, as the source wrote them (in session time)
    {
        store::Statement q =
            db.prepare("SELECT sync_id, ts, issue_ts FROM clock_syncs WHERE source_id" + srcFilter +
                       " ORDER BY id");
        while (q.step())
            out.event("{\"ph\":\"c\",\"name\":\"clock_sync\",\"pid\":0,\"tid\":0,\"ts\":" +
                      nsToMicros(q.int64(1)) +
                      ",\"args\":{\"sync_id\":" + json::quote(q.textView(0)) +
                      (q.isNull(2) ? "" : ",\"issue_ts\":" + nsToMicros(q.int64(2))) + "}}");
    }
    // counters: one C series per track, named as the track
    {
        store::Statement q = db.prepare(
            "SELECT c.track_id, c.ts, c.value FROM counters c JOIN tracks t ON t.id = c.track_id "
            "WHERE t.source_id" +
            srcFilter + " ORDER BY c.track_id, c.ts");
        char num[64];
        while (q.step()) {
            const Where& w = where[q.int64(0)];
            std::snprintf(num, sizeof num, "%.17g", q.real(2));
            out.event("{\"ph\":\"C\",\"pid\":" + w.pid +
                      ",\"tid\":0,\"ts\":" + nsToMicros(q.int64(1)) + ",\"name\":" + w.tid +
                      ",\"args\":{\"value\":" + num + "}}");
            ++st.counterSamples;
        }
    }
    // flows: s at the source slice, f (bp e) at the target slice
    {
        store::Statement q = db.prepare(
            "SELECT f.id, f.slice_out, f.slice_in, n.str, c.str FROM flows f "
            "LEFT JOIN strings n ON n.id = f.name_id LEFT JOIN strings c ON c.id = f.cat_id "
            "WHERE f.source_id" +
            srcFilter);
        while (q.step()) {
            auto a = ends.find(q.int64(1)), b = ends.find(q.int64(2));
            if (a == ends.end() || b == ends.end() || a->second.track < 0 || b->second.track < 0)
                continue;
            const Where& wa = where[a->second.track];
            const Where& wb = where[b->second.track];
            if (!wa.hasThread || !wb.hasThread) continue;
            const std::string id = std::to_string(q.int64(0));
            const std::string nc =
                ",\"name\":" + json::quote(q.isNull(3) ? "flow" : q.textView(3)) +
                ",\"cat\":" + json::quote(q.isNull(4) ? "flow" : q.textView(4));
            out.event("{\"ph\":\"s\",\"id\":" + id + ",\"pid\":" + wa.pid + ",\"tid\":" + wa.tid +
                      ",\"ts\":" + nsToMicros(a->second.point) + nc + "}");
            out.event("{\"ph\":\"f\",\"bp\":\"e\",\"id\":" + id + ",\"pid\":" + wb.pid +
                      ",\"tid\":" + wb.tid + ",\"ts\":" + nsToMicros(b->second.point) + nc + "}");
            ++st.flows;
        }
    }
    std::fputs("\n]", f);
    if (anyFrame) {  // every frame of the exported sources, by id
        store::Statement q = db.prepare(
            "SELECT f.id, f.parent_id, n.str, c.str FROM stack_frames f "
            "LEFT JOIN strings n ON n.id = f.name_id LEFT JOIN strings c ON c.id = f.cat_id "
            "WHERE f.source_id" +
            srcFilter + " ORDER BY f.id");
        std::fputs(",\"stackFrames\":{", f);
        for (bool first = true; q.step(); first = false) {
            std::string frame = (first ? "\n\"" : ",\n\"") + std::to_string(q.int64(0)) +
                                "\":{\"name\":" + json::quote(q.textView(2));
            if (!q.isNull(3)) frame += ",\"category\":" + json::quote(q.textView(3));
            if (!q.isNull(1)) frame += ",\"parent\":\"" + std::to_string(q.int64(1)) + "\"";
            std::fputs((frame + "}").c_str(), f);
        }
        std::fputs("}", f);
    }
    std::fputs("}\n", f);
    st.events = out.count;
    if (auto written = file.value().commit(); !written) return Error{written.error()};
    return st;
}

}  // namespace ts::chrome_export
