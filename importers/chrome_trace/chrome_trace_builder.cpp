#include "importers/chrome_trace/chrome_trace_builder.h"

#include <algorithm>
#include <cstdlib>

namespace ts::importers::chrome {

ChromeTraceBuilder::ChromeTraceBuilder(store::StoreWriter& writer, ImportReport& report)
    : m_w(writer), m_report(report) {}

void ChromeTraceBuilder::skip(const char* key, const ChromeEvent& e, const std::string& msg) {
    m_report.skip(key);
    m_w.logProblem(key, e.offset, e.ph, msg);
}

ChromeTraceBuilder::Process& ChromeTraceBuilder::process(const std::string& pid) {
    auto it = m_processes.find(pid);
    if (it != m_processes.end()) return it->second;
    Process& p = m_processes[pid];
    p.id = m_w.addProcess(pid);
    ++m_report.processes;
    return p;
}

uint32_t ChromeTraceBuilder::thread(const ChromeEvent& e) {
    // Consecutive events mostly share their thread: skip two hash lookups then.
    if (m_lastThread != UINT32_MAX && e.pid == m_lastPid && e.tid == m_lastTid) return m_lastThread;
    m_lastThread = threadLookup(e);
    m_lastPid = e.pid;
    m_lastTid = e.tid;
    return m_lastThread;
}

uint32_t ChromeTraceBuilder::threadLookup(const ChromeEvent& e) {
    Process& p = process(e.pid);
    auto it = p.threads.find(e.tid);
    if (it != p.threads.end()) return it->second;
    const int64_t threadId = m_w.addThread(p.id, e.tid);
    ++m_report.threads;
    TrackBuf t;
    t.threadRowId = threadId;
    t.trackId = m_w.addTrack("thread", p.id, threadId, {});
    m_tracks.push_back(std::move(t));
    const auto idx = static_cast<uint32_t>(m_tracks.size() - 1);
    p.threads.emplace(e.tid, idx);
    return idx;
}

int64_t ChromeTraceBuilder::args(const ChromeEvent& e) {
    if (e.args.empty() || e.args == "{}") return 0;
    return m_w.addArgs(e.args);
}

void ChromeTraceBuilder::add(const ChromeEvent& e) {
    ++m_report.events;
    if (!e.hasPh || e.ph.empty()) return skip("json_missing_ph", e, "event without \"ph\"");
    const char ph = e.ph[0];
    if (ph == 'M') return metadata(e);
    const std::optional<int64_t> ts = e.tsNs;
    if (!ts) {
        if (e.hasTs) return skip("json_bad_ts", e, "\"ts\" is not a number: " + e.ts);
        return skip("json_missing_ts", e, std::string("event '") + e.ph + "' without \"ts\"");
    }
    switch (ph) {
        case 'X':
            return complete(e, *ts);
        case 'B':
        case 'E':
            return beginEnd(e, *ts);
        case 'i':
        case 'I':
            return instant(e, *ts, e.scope.empty() ? 't' : e.scope[0]);
        case 'N':
        case 'O':
        case 'D':
            return instant(e, *ts, 'o');
        case 'C':
            return counter(e, *ts);
        case 'b':
        case 'e':
        case 'n':
        case 'S':
        case 'T':
        case 'F':
        case 'p':
            return async(e, *ts);
        case 's':
        case 't':
        case 'f':
            return flow(e, *ts, ph);
        case 'P':
            return skip("json_sample_event", e, "sample events ('P') are not imported");
        default:
            return skip("json_unknown_phase", e, "unknown phase '" + e.ph + "'");
    }
}

void ChromeTraceBuilder::complete(const ChromeEvent& e, int64_t ts) {
    const std::optional<int64_t> dur = e.durNs;
    if (!dur) return skip("json_missing_dur", e, "'X' event without a numeric \"dur\"");
    if (*dur < 0) return skip("json_negative_dur", e, "'X' event with negative \"dur\"");
    const uint32_t ti = thread(e);
    TrackBuf& t = m_tracks[ti];
    const auto seq = static_cast<uint32_t>(t.slices.size());
    t.slices.push_back({ts, *dur, m_w.intern(e.name), m_w.intern(e.cat), args(e), 0, seq});
    t.maxTs = std::max(t.maxTs, ts + *dur);
    ++m_report.slices;
    m_report.seeTime(ts, ts + *dur);
    if (e.hasBindId && (e.flowIn || e.flowOut)) {
        auto [it, _] =
            m_flowKeys.emplace("bind:" + e.bindId, static_cast<uint32_t>(m_flowKeys.size()));
        const auto fseq = static_cast<uint32_t>(m_flows.size());
        if (e.flowIn)
            m_flows.push_back(
                {it->second, ti, fseq, ts, 'f', true, seq, m_w.intern(e.name), m_w.intern(e.cat)});
        if (e.flowOut)
            m_flows.push_back({it->second, ti, fseq + (e.flowIn ? 1u : 0u), ts, 's', true, seq,
                               m_w.intern(e.name), m_w.intern(e.cat)});
    }
}

void ChromeTraceBuilder::beginEnd(const ChromeEvent& e, int64_t ts) {
    const uint32_t ti = thread(e);
    TrackBuf& t = m_tracks[ti];
    t.maxTs = std::max(t.maxTs, ts);
    m_report.seeTime(ts, ts);
    if (e.ph[0] == 'B') {
        const auto seq = static_cast<uint32_t>(t.slices.size());
        t.slices.push_back(
            {ts, 0, m_w.intern(e.name), m_w.intern(e.cat), args(e), store::kSliceUnfinished, seq});
        t.open.push_back(seq);
        ++m_report.slices;
        return;
    }
    if (t.open.empty()) return skip("json_unmatched_end", e, "'E' event without an open 'B'");
    Slice& s = t.slices[t.open.back()];
    t.open.pop_back();
    if (ts < s.ts) {
        s.dur = 0;
    } else {
        s.dur = ts - s.ts;
    }
    s.flags = 0;
    if (s.argId == 0) s.argId = args(e);
}

void ChromeTraceBuilder::instant(const ChromeEvent& e, int64_t ts, char scope) {
    int64_t track = 0;
    if (scope == 'g') {
        if (!m_globalTrack) m_globalTrack = m_w.addTrack("thread", 0, 0, "Global instants");
        track = m_globalTrack;
    } else if (scope == 'p') {
        Process& p = process(e.pid);
        if (!p.instantTrack) p.instantTrack = m_w.addTrack("thread", p.id, 0, "Process instants");
        track = p.instantTrack;
    } else {
        scope = scope == 'o' ? 'o' : 't';
        TrackBuf& t = m_tracks[thread(e)];
        t.maxTs = std::max(t.maxTs, ts);
        track = t.trackId;
    }
    m_w.addInstant(track, ts, m_w.intern(e.name), m_w.intern(e.cat), scope, args(e));
    ++m_report.instants;
    m_report.seeTime(ts, ts);
}

void ChromeTraceBuilder::counter(const ChromeEvent& e, int64_t ts) {
    Process& p = process(e.pid);
    for (size_t i = 0; i < e.argNumberCount; ++i) {
        const auto& [series, text] = e.argNumbers[i];
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        m_key.assign(std::to_string(p.id)).append("|").append(e.name).append("|");
        if (e.hasId) m_key.append(e.id);
        m_key.append("|").append(series);
        auto it = m_counterTracks.find(m_key);
        if (it == m_counterTracks.end()) {
            std::string name = e.name;
            if (e.hasId) name += " " + e.id;
            if (series != "value" || e.argNumberCount > 1) name += " " + series;
            it = m_counterTracks.emplace(m_key, m_w.addTrack("counter", p.id, 0, name)).first;
        }
        m_w.addCounter(it->second, ts, v);
        ++m_report.counterSamples;
    }
    if (e.argNumberCount == 0)
        return skip("json_counter_without_values", e, "'C' event without numeric args");
    m_report.seeTime(ts, ts);
}

void ChromeTraceBuilder::metadata(const ChromeEvent& e) {
    const std::string* s = nullptr;
    if (e.name == "process_name" && (s = e.argString("name"))) {
        m_w.setProcessName(process(e.pid).id, *s);
    } else if (e.name == "process_labels" && (s = e.argString("labels"))) {
        m_w.setProcessLabels(process(e.pid).id, *s);
    } else if (e.name == "process_sort_index" && (s = e.argNumber("sort_index"))) {
        m_w.setProcessSortIndex(process(e.pid).id, std::strtoll(s->c_str(), nullptr, 10));
    } else if (e.name == "thread_name" && (s = e.argString("name"))) {
        m_w.setThreadName(m_tracks[thread(e)].threadRowId, *s);
    } else if (e.name == "thread_sort_index" && (s = e.argNumber("sort_index"))) {
        m_w.setThreadSortIndex(m_tracks[thread(e)].threadRowId,
                               std::strtoll(s->c_str(), nullptr, 10));
    }
}

}  // namespace ts::importers::chrome
