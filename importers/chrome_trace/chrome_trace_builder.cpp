#include "importers/chrome_trace/chrome_trace_builder.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>

namespace ts::importers::chrome {

const std::string ChromeTraceBuilder::kNoText;

ChromeTraceBuilder::ChromeTraceBuilder(store::StoreWriter& writer, ImportReport& report)
    : m_w(writer), m_report(report), m_samples(writer) {
    if (const char* w = std::getenv("TRAINSCOPE_IMPORT_WINDOW")) {
        char* end = nullptr;
        const unsigned long long n = std::strtoull(w, &end, 10);
        if (end != w && *end == '\0' && n > 0) m_window = static_cast<size_t>(n);
    }
}

void ChromeTraceBuilder::hold(TrackBuf& t, const Slice& s) {
    t.slices.push_back(s);
    m_heldPeak = std::max(m_heldPeak, ++m_held);
    if (m_held >= m_window) spill();
}

void ChromeTraceBuilder::spill() {
    if (!m_spill) {
        auto opened =
            SliceSpill::open(std::filesystem::path(m_w.store().path()).parent_path().string());
        if (!opened) {  // no file to spill to: hold everything, as before the window
            m_window = SIZE_MAX;
            m_spillError.clear();
            return;
        }
        m_spill.emplace(std::move(opened.value()));
    }
    for (TrackBuf& t : m_tracks) {
        if (t.slices.empty()) continue;
        std::sort(t.slices.begin(), t.slices.end(), heldBefore);
        auto run = m_spill->write(t.slices.data(), t.slices.size());
        if (!run) {  // a full disk: keep the rest in memory
            m_window = SIZE_MAX;
            return;
        }
        t.runs.push_back({run.value(), 0});
        m_held -= t.slices.size();
        std::vector<Slice>().swap(t.slices);
        ++m_spilledRuns;
    }
}

std::string ChromeTraceBuilder::windowJson() const {
    return "{\"window\":" + std::to_string(m_window == SIZE_MAX ? 0 : m_window) +
           ",\"held_peak\":" + std::to_string(m_heldPeak) +
           ",\"spilled_slices\":" + std::to_string(m_spill ? m_spill->records() : 0) +
           ",\"spilled_runs\":" + std::to_string(m_spilledRuns) + "}";
}

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
    const std::string& pid = pidOf(e);
    const std::string& tid = tidOf(e);
    // Consecutive events mostly share their thread: skip two hash lookups then.
    if (m_lastThread != UINT32_MAX && pid == m_lastPid && tid == m_lastTid) return m_lastThread;
    m_lastThread = threadLookup(pid, tid);
    m_lastPid = pid;
    m_lastTid = tid;
    return m_lastThread;
}

uint32_t ChromeTraceBuilder::threadLookup(const std::string& pid, const std::string& tid) {
    Process& p = process(pid);
    auto it = p.threads.find(tid);
    if (it != p.threads.end()) return it->second;
    const int64_t threadId = m_w.addThread(p.id, tid);
    ++m_report.threads;
    TrackBuf t;
    t.threadRowId = threadId;
    t.processRowId = p.id;
    t.trackId = m_w.addTrack("thread", p.id, threadId, {});
    m_tracks.push_back(std::move(t));
    const auto idx = static_cast<uint32_t>(m_tracks.size() - 1);
    p.threads.emplace(tid, idx);
    m_firstThreadOfTid.try_emplace(tid, idx);
    return idx;
}

int64_t ChromeTraceBuilder::args(const ChromeEvent& e) {
    if (e.args.empty() || e.args == "{}") return 0;
    if (e.argsTrailingCommas) [[unlikely]]  // stored as strict JSON
        return m_w.addArgs(withoutTrailingCommas(e.args));
    return m_w.addArgs(e.args);
}

void ChromeTraceBuilder::add(const ChromeEvent& e) {
    if (e.kind != ChromeEvent::Kind::Event) return auxiliary(e);
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
        case 'R':  // a mark (performance.mark): an instant on its thread, whatever "s" says
            return instant(e, *ts, 'm');
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
            m_samples.sample(thread(e), *ts, e);
            ++m_report.samples;
            m_report.seeTime(*ts, *ts);
            return;
        case 'c':
            return clockSync(e, *ts);
        default:
            return skip("json_unknown_phase", e, "unknown phase '" + e.ph + "'");
    }
}

void ChromeTraceBuilder::complete(const ChromeEvent& e, int64_t ts) {
    const std::optional<int64_t> dur = e.durNs;
    // Without a dur (a tracer cut off before it wrote one) the slice is kept, as
    // chrome://tracing keeps it: it runs to the end of its thread's data, unfinished.
    if (!dur && e.hasDur)
        return skip("json_missing_dur", e, "'X' event whose \"dur\" is not a number");
    if (dur && *dur < 0) return skip("json_negative_dur", e, "'X' event with negative \"dur\"");
    const uint32_t ti = thread(e);
    TrackBuf& t = m_tracks[ti];
    const uint32_t seq = t.nextSeq++;
    const int64_t d = dur.value_or(0);
    const Slice s{
        ts, d, m_w.intern(e.name), m_w.intern(e.cat), args(e), dur ? 0 : store::kSliceUnfinished,
        seq};
    if (dur)
        hold(t, s);
    else
        t.unfinished.push_back(s);
    t.maxTs = std::max(t.maxTs, ts + d);
    ++m_report.slices;
    m_report.seeTime(ts, ts + d);
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
        t.open.push_back({ts, 0, m_w.intern(e.name), m_w.intern(e.cat), args(e),
                          store::kSliceUnfinished, t.nextSeq++});
        ++m_report.slices;
        return;
    }
    if (t.open.empty()) return skip("json_unmatched_end", e, "'E' event without an open 'B'");
    Slice s = t.open.back();
    t.open.pop_back();
    s.dur = ts < s.ts ? 0 : ts - s.ts;
    s.flags = 0;
    if (s.argId == 0) s.argId = args(e);
    hold(t, s);
}

void ChromeTraceBuilder::instant(const ChromeEvent& e, int64_t ts, char scope) {
    int64_t track = 0;
    if (scope == 'g') {
        if (!m_globalTrack) m_globalTrack = m_w.addTrack("thread", 0, 0, "Global instants");
        track = m_globalTrack;
    } else if (scope == 'p') {
        Process& p = process(pidOf(e));
        if (!p.instantTrack) p.instantTrack = m_w.addTrack("thread", p.id, 0, "Process instants");
        track = p.instantTrack;
    } else {
        if (scope != 'o' && scope != 'm') scope = 't';
        TrackBuf& t = m_tracks[thread(e)];
        t.maxTs = std::max(t.maxTs, ts);
        track = t.trackId;
    }
    m_w.addInstant(track, ts, m_w.intern(e.name), m_w.intern(e.cat), scope, args(e));
    ++(scope == 'm' ? m_report.marks : m_report.instants);
    m_report.seeTime(ts, ts);
}

// Members of stackFrames and elements of the top-level samples array.
void ChromeTraceBuilder::auxiliary(const ChromeEvent& e) {
    if (e.kind == ChromeEvent::Kind::StackFrame) return m_samples.frame(e);
    if (!e.tsNs) {
        m_report.skip("json_sample_without_ts");
        m_w.logProblem("json_sample_without_ts", e.offset, {},
                       "an element of \"samples\" without a numeric \"ts\"");
        return;
    }
    m_samples.sample(StackSampleTracker::kByTid, *e.tsNs, e);
    ++m_report.samples;
    m_report.seeTime(*e.tsNs, *e.tsNs);
}

// A clock sync marker: {"ph":"c","args":{"sync_id":..., "issue_ts":...}}, kept for finish().
void ChromeTraceBuilder::clockSync(const ChromeEvent& e, int64_t ts) {
    const std::string* id = e.argString("sync_id");
    if (!id) id = e.argNumber("sync_id");
    if (!id) return skip("json_clock_sync_without_id", e, "'c' event without args.sync_id");
    ClockSync c{*id, ts, std::nullopt};
    if (const std::string* issue = e.argNumber("issue_ts")) c.issueTs = microsToNs(*issue);
    m_clockSyncs.push_back(std::move(c));
}

namespace {

// A string counter value ("25.7", "+10.5", ".75", "246.") as Perfetto takes it: a decimal
// number, optionally signed, with an optional exponent, and nothing else.
bool isDecimal(const std::string& s) {
    size_t i = s.size() && (s[0] == '+' || s[0] == '-') ? 1 : 0, digits = 0;
    for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) ++digits;
    if (i < s.size() && s[i] == '.')
        for (++i; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) ++digits;
    if (digits == 0) return false;
    if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
        ++i;
        if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
        size_t exp = 0;
        for (; i < s.size() && std::isdigit(static_cast<unsigned char>(s[i])); ++i) ++exp;
        if (exp == 0) return false;
    }
    return i == s.size();
}

}  // namespace

void ChromeTraceBuilder::counter(const ChromeEvent& e, int64_t ts) {
    Process& p = process(pidOf(e));
    m_counterValues.clear();
    for (size_t i = 0; i < e.argNumberCount; ++i) m_counterValues.push_back(&e.argNumbers[i]);
    for (size_t i = 0; i < e.argStringCount; ++i)
        if (isDecimal(e.argStrings[i].second)) m_counterValues.push_back(&e.argStrings[i]);
    for (const auto* value : m_counterValues) {
        const auto& [series, text] = *value;
        char* end = nullptr;
        const double v = std::strtod(text.c_str(), &end);
        m_key.assign(std::to_string(p.id)).append("|").append(e.name).append("|");
        if (e.hasId) m_key.append(e.id);
        m_key.append("|").append(series);
        auto it = m_counterTracks.find(m_key);
        if (it == m_counterTracks.end()) {
            std::string name = e.name;
            if (e.hasId) name += " " + e.id;
            if (series != "value" || m_counterValues.size() > 1) name += " " + series;
            it = m_counterTracks.emplace(m_key, m_w.addTrack("counter", p.id, 0, name)).first;
        }
        m_w.addCounter(it->second, ts, v);
        ++m_report.counterSamples;
    }
    if (m_counterValues.empty())
        return skip("json_counter_without_values", e, "'C' event without numeric args");
    m_report.seeTime(ts, ts);
}

void ChromeTraceBuilder::metadata(const ChromeEvent& e) {
    const std::string* s = nullptr;
    if (e.name == "process_name" && (s = e.argString("name"))) {
        m_w.setProcessName(process(pidOf(e)).id, *s);
    } else if (e.name == "process_labels" && (s = e.argString("labels"))) {
        m_w.setProcessLabels(process(pidOf(e)).id, *s);
    } else if (e.name == "process_sort_index" && (s = e.argNumber("sort_index"))) {
        m_w.setProcessSortIndex(process(pidOf(e)).id, std::strtoll(s->c_str(), nullptr, 10));
    } else if (e.name == "thread_name" && (s = e.argString("name"))) {
        m_w.setThreadName(m_tracks[thread(e)].threadRowId, *s);
    } else if (e.name == "thread_sort_index" && (s = e.argNumber("sort_index"))) {
        m_w.setThreadSortIndex(m_tracks[thread(e)].threadRowId,
                               std::strtoll(s->c_str(), nullptr, 10));
    }
}

}  // namespace ts::importers::chrome
