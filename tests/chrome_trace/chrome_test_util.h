#pragma once
// Helpers for the Chrome trace tests: read a (gzip) file whole, count a trace's events
// independently of the importer with a RapidJSON DOM walk, import into a fresh session.
#include <zlib.h>

#include <cmath>

#include <rapidjson/document.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "importers/registry.h"
#include "tests/common/import_session.h"
#include "tests/common/test_support.h"

namespace ts::test {

inline std::string readAll(const std::string& path) {
    std::string out;
    gzFile f = gzopen(path.c_str(), "rb");
    if (!f) return out;
    char buf[1 << 16];
    int n;
    while ((n = gzread(f, buf, sizeof buf)) > 0) out.append(buf, static_cast<size_t>(n));
    gzclose(f);
    return out;
}

/// Every Chrome trace of the corpus, sorted: the JSON files (plain or gzip'd) of the folders
/// that hold traces, not the MANIFESTs, origin files, or the CSV and text files that Ascend
/// and MindSpore profilers write beside their timelines.
inline std::vector<std::filesystem::path> corpusTraces() {
    std::vector<std::filesystem::path> out;
    for (const char* dir : {"real/catapult", "real/ascend", "real/hta", "real/kineto",
                            "real/mindspore", "real/perfetto", "generated/torch"}) {
        for (const auto& e : std::filesystem::directory_iterator(corpusFile(dir))) {
            const std::string name = e.path().filename().string();
            if (name == "origin.json") continue;
            if (!name.ends_with(".json") && !name.ends_with(".gz")) continue;
            out.push_back(e.path());
        }
    }
    std::sort(out.begin(), out.end());
    return out;
}

struct ExpectedCounts {
    int64_t events = 0, slices = 0, asyncSlices = 0, instants = 0, counterSamples = 0;
    int64_t marks = 0, samples = 0;  // R events; P events and top-level samples
    int64_t flowPairs = 0;           // s->t/f links by (cat, id) in time order
    int64_t flows = 0;               // those links whose both ends find a slice on their thread
    int64_t processes = 0, threads = 0;
    int64_t tsMin = INT64_MAX, tsMax = INT64_MIN;  // ns, over timed events
};

/// A JSON number or numeric string (microseconds) as integer ns, via long double (64-bit
/// mantissa: exact for the magnitudes traces use) — a different road than the importer's.
inline std::optional<int64_t> usToNs(const rapidjson::Value& v) {
    if (!v.IsString() || v.GetStringLength() == 0) return std::nullopt;
    try {
        size_t used = 0;
        const long double us = std::stold(v.GetString(), &used);
        if (used != v.GetStringLength()) return std::nullopt;
        return static_cast<int64_t>(::llroundl(us * 1000.0L));
    } catch (...) {
        return std::nullopt;
    }
}

inline std::string idText(const rapidjson::Value& e, const char* k) {
    if (!e.HasMember(k)) return "<none>";
    const auto& v = e[k];
    return v.IsString() ? v.GetString() : v.IsBool() ? (v.GetBool() ? "true" : "false") : "?";
}

/// Counts what an import of `text` must produce, walking a RapidJSON DOM (numbers kept as
/// their text) with rules written from the Trace Event Format, not from the importer.
inline ExpectedCounts countJson(const std::string& text) {
    ExpectedCounts c;
    rapidjson::Document d;
    d.Parse<rapidjson::kParseNumbersAsStringsFlag | rapidjson::kParseNanAndInfFlag>(text.c_str(),
                                                                                    text.size());
    if (d.HasParseError()) return c;
    const rapidjson::Value* events = d.IsArray() ? &d : nullptr;
    if (d.IsObject() && d.HasMember("traceEvents")) events = &d["traceEvents"];
    if (!events || !events->IsArray()) return c;
    struct Span {
        int64_t ts, end;
    };
    struct Point {
        int64_t ts;
        int rank;  // s 0, t 1, f 2
        bool enclosing;
        std::string thread;
    };
    std::map<std::string, std::vector<Span>> spans;   // thread -> slices
    std::map<std::string, std::vector<size_t>> open;  // thread -> open B (index in spans)
    std::map<std::string, int64_t> threadEnd;         // thread -> last time seen
    std::map<std::string, std::vector<Point>> flows;  // cat|id -> points
    std::set<std::string> pids, threads;
    auto see = [&](int64_t a, int64_t b) {
        c.tsMin = std::min(c.tsMin, a);
        c.tsMax = std::max(c.tsMax, b);
    };
    for (const auto& e : events->GetArray()) {
        if (!e.IsObject()) continue;
        ++c.events;
        if (!e.HasMember("ph") || !e["ph"].IsString() || e["ph"].GetStringLength() == 0) continue;
        const char ph = e["ph"].GetString()[0];
        // without a tid (or with one that is no scalar), the process's main thread: tid = pid
        const bool hasTid = e.HasMember("tid") && !e["tid"].IsObject() && !e["tid"].IsArray();
        const std::string pid = idText(e, "pid");
        const std::string thread = pid + "/" + (hasTid ? idText(e, "tid") : pid);
        if (ph == 'M') {
            pids.insert(pid);
            const std::string name = idText(e, "name");
            if (name == "thread_name" || name == "thread_sort_index") threads.insert(thread);
            continue;
        }
        const auto ts = e.HasMember("ts") ? usToNs(e["ts"]) : std::nullopt;
        if (!ts) continue;
        // An X without a dur (absent, or a literal or container the format cannot mean as
        // one) is a slice left open, as a B without E; a dur that is text but no number
        // (or negative) makes it skipped.
        const bool noDur = !e.HasMember("dur") || !e["dur"].IsString();
        const int64_t dur = noDur ? 0 : usToNs(e["dur"]).value_or(-1);
        const std::string scope = idText(e, "s");
        const bool onThread = ph == 'X' || ph == 'B' || ph == 'E' || ph == 'N' || ph == 'O' ||
                              ph == 'D' || ph == 's' || ph == 't' || ph == 'f' || ph == 'R' ||
                              ((ph == 'i' || ph == 'I') && scope != "g" && scope != "p");
        if (ph == 'X' && dur < 0) continue;
        if (onThread) {
            threads.insert(thread);
            pids.insert(pid);
        }
        if (ph == 'C' || ph == 'b' || ph == 'e' || ph == 'n' || ph == 'S' || ph == 'T' ||
            ph == 'F' || ph == 'p' || ((ph == 'i' || ph == 'I') && scope == "p"))
            pids.insert(pid);
        if (ph == 'P') {  // a stack sample: on its thread, not part of the thread's slices
            pids.insert(pid);
            threads.insert(thread);
            ++c.samples;
            see(*ts, *ts);
        }
        if (ph == 'X') {
            ++c.slices;
            spans[thread].push_back({*ts, noDur ? INT64_MIN : *ts + dur});
            see(*ts, *ts + dur);
        } else if (ph == 'B') {
            ++c.slices;
            open[thread].push_back(spans[thread].size());
            spans[thread].push_back({*ts, INT64_MIN});
            see(*ts, *ts);
        } else if (ph == 'E') {
            if (!open[thread].empty()) {
                spans[thread][open[thread].back()].end =
                    std::max(*ts, spans[thread][open[thread].back()].ts);
                open[thread].pop_back();
            }
            see(*ts, *ts);
        } else if (ph == 'b' || ph == 'S' || ph == 'n' || ph == 'T' || ph == 'p') {
            ++c.asyncSlices;
            see(*ts, *ts);
        } else if (ph == 'e' || ph == 'F') {  // the end of an async slice is a time too
            see(*ts, *ts);
        } else if (ph == 'i' || ph == 'I' || ph == 'N' || ph == 'O' || ph == 'D') {
            ++c.instants;
            see(*ts, *ts);
        } else if (ph == 'R') {
            ++c.marks;
            see(*ts, *ts);
        } else if (ph == 'C' && e.HasMember("args") && e["args"].IsObject()) {
            int64_t n = 0;
            for (const auto& m : e["args"].GetObject()) n += usToNs(m.value) ? 1 : 0;
            c.counterSamples += n;
            if (n) see(*ts, *ts);
        } else if ((ph == 's' || ph == 't' || ph == 'f') && e.HasMember("id")) {
            const std::string key = idText(e, "cat") + "|" + idText(e, "id");
            flows[key].push_back({*ts,
                                  ph == 's'   ? 0
                                  : ph == 't' ? 1
                                              : 2,
                                  ph != 'f' || idText(e, "bp") == "e", thread});
        }
        if (onThread) {
            int64_t& last = threadEnd.try_emplace(thread, INT64_MIN).first->second;
            last = std::max(last, *ts + (ph == 'X' ? dur : 0));
        }
    }
    // Global samples (top-level "samples": tid, no pid) go to the first thread with their tid,
    // or to a thread of their own in the process without a pid.
    if (d.IsObject() && d.HasMember("samples") && d["samples"].IsArray()) {
        for (const auto& smp : d["samples"].GetArray()) {
            if (!smp.IsObject()) continue;
            const auto ts = smp.HasMember("ts") ? usToNs(smp["ts"]) : std::nullopt;
            if (!ts) continue;
            ++c.samples;
            see(*ts, *ts);
            const std::string tid = idText(smp, "tid");
            const bool known = std::any_of(threads.begin(), threads.end(), [&](const auto& t) {
                return t.substr(t.find('/') + 1) == tid;
            });
            if (!known) {
                pids.insert("<none>");
                threads.insert("<none>/" + tid);
            }
        }
    }
    for (auto& [thread, list] : spans)  // a B without E (X without dur) runs to its thread's end
        for (Span& s : list)
            if (s.end == INT64_MIN) s.end = std::max(s.ts, threadEnd[thread]);
    // A flow end binds to a slice of its thread: one enclosing its time (s, t, f with
    // bp "e"), else the next one starting at or after it.
    auto binds = [&](const Point& p) {
        for (const Span& s : spans[p.thread])
            if (p.enclosing ? (s.ts <= p.ts && (p.ts < s.end || p.ts == s.ts)) : s.ts >= p.ts)
                return true;
        return false;
    };
    for (auto& [key, pts] : flows) {
        std::stable_sort(pts.begin(), pts.end(), [](const Point& a, const Point& b) {
            return a.ts != b.ts ? a.ts < b.ts : a.rank < b.rank;
        });
        bool open = false, prevBound = false;
        for (const Point& p : pts) {
            const bool bound = binds(p);
            if (p.rank == 0) {
                open = true;
                prevBound = bound;
                continue;
            }
            if (!open) continue;
            ++c.flowPairs;
            if (prevBound && bound) ++c.flows;
            if (p.rank == 2)
                open = false;
            else if (bound)
                prevBound = true;
        }
    }
    c.processes = static_cast<int64_t>(pids.size());
    c.threads = static_cast<int64_t>(threads.size());
    return c;
}

}  // namespace ts::test
