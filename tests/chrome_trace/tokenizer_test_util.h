#pragma once
// Helpers for the trace JSON tokenizer tests: a byte source over a string that hands the
// bytes out in pieces of chosen sizes, the events of a run as comparable records, and one
// call that tokenizes a string.
#include <algorithm>
#include <cstring>
#include <optional>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "core/common/job_control.h"
#include "importers/chrome_trace/trace_json_tokenizer.h"

namespace ts::test {

using importers::chrome::ByteSource;
using importers::chrome::ChromeEvent;
using importers::chrome::EventSink;
using importers::chrome::ReadOutcome;

/// The bytes of a string: the first read gives at most `first` bytes (0: no limit), every
/// read at most `most`; error() says `error` once all is read (a cut gzip stream).
class MemorySource : public ByteSource {
public:
    explicit MemorySource(std::string text, size_t most = SIZE_MAX, size_t first = 0,
                          std::string error = {})
        : m_text(std::move(text)), m_most(most), m_first(first), m_error(std::move(error)) {}
    size_t read(char* buf, size_t n) override {
        largestRequest = std::max(largestRequest, n);
        n = std::min({n, m_most, m_text.size() - m_pos});
        if (m_reads++ == 0 && m_first > 0) n = std::min(n, m_first);
        if (n > 0) std::memcpy(buf, m_text.data() + m_pos, n);
        m_pos += n;
        return n;
    }
    uint64_t progress() const override { return m_pos; }
    std::string error() const override { return m_pos == m_text.size() ? m_error : ""; }
    /// The most bytes the tokenizer asked for at once: more than its chunk only when it
    /// had to keep more than a chunk of the document.
    size_t largestRequest = 0;

private:
    std::string m_text;
    size_t m_pos = 0, m_reads = 0;
    size_t m_most, m_first;
    std::string m_error;
};

/// What a ChromeEvent means: the fields whose flag says they are there, the others empty.
struct EventRecord {
    int kind = 0;
    std::string ph, name, cat, pid, tid, id, bindId, bp, scope, ts, dur, args;
    std::string sf, parent, category, stack;
    bool hasPh = false, hasName = false, hasTs = false, hasDur = false, hasPid = false,
         hasTid = false, hasId = false, hasBindId = false, flowIn = false, flowOut = false;
    std::vector<std::pair<std::string, std::string>> argNumbers, argStrings;
    int64_t offset = 0;
    std::optional<int64_t> tsNs, durNs;
    bool operator==(const EventRecord&) const = default;
};

inline EventRecord recordOf(const ChromeEvent& e) {
    EventRecord r;
    auto take = [](bool has, const std::string& s) { return has ? s : std::string(); };
    r.ph = take(e.hasPh, e.ph);
    r.name = take(e.hasName, e.name);
    r.pid = take(e.hasPid, e.pid);
    r.tid = take(e.hasTid, e.tid);
    r.id = take(e.hasId, e.id);
    r.bindId = take(e.hasBindId, e.bindId);
    r.ts = take(e.hasTs, e.ts);
    r.dur = take(e.hasDur, e.dur);
    r.kind = static_cast<int>(e.kind);
    r.sf = take(e.hasSf, e.sf);
    r.parent = take(e.hasParent, e.parent);
    r.category = e.category;
    r.stack = e.stack;
    r.cat = e.cat;
    r.bp = e.bp;
    r.scope = e.scope;
    r.args = e.args;
    r.hasPh = e.hasPh;
    r.hasName = e.hasName;
    r.hasTs = e.hasTs;
    r.hasDur = e.hasDur;
    r.hasPid = e.hasPid;
    r.hasTid = e.hasTid;
    r.hasId = e.hasId;
    r.hasBindId = e.hasBindId;
    r.flowIn = e.flowIn;
    r.flowOut = e.flowOut;
    r.argNumbers.assign(e.argNumbers.begin(),
                        e.argNumbers.begin() + static_cast<ptrdiff_t>(e.argNumberCount));
    r.argStrings.assign(e.argStrings.begin(),
                        e.argStrings.begin() + static_cast<ptrdiff_t>(e.argStringCount));
    r.offset = e.offset;
    r.tsNs = e.tsNs;
    r.durNs = e.durNs;
    return r;
}

inline std::ostream& operator<<(std::ostream& os, const EventRecord& r) {
    os << "{kind " << r.kind << " offset " << r.offset << " ph '" << r.ph << "' name '" << r.name
       << "' cat '" << r.cat << "' pid '" << r.pid << "' tid '" << r.tid << "' id '" << r.id
       << "' bind_id '" << r.bindId << "' bp '" << r.bp << "' s '" << r.scope << "' ts '" << r.ts
       << "' dur '" << r.dur << "' args '" << r.args << "' sf '" << r.sf << "' parent '" << r.parent
       << "' category '" << r.category << "' stack '" << r.stack << "' flow " << r.flowIn
       << r.flowOut << " tsNs " << (r.tsNs ? std::to_string(*r.tsNs) : "-") << " durNs "
       << (r.durNs ? std::to_string(*r.durNs) : "-") << " argNumbers";
    for (const auto& [k, v] : r.argNumbers) os << " " << k << "=" << v;
    os << " argStrings";
    for (const auto& [k, v] : r.argStrings) os << " " << k << "=" << v;
    return os << "}";
}

/// Keeps every event as a record (one ChromeEvent reused, as the importer's sinks do).
class RecordingSink : public EventSink {
public:
    ChromeEvent& slot() override { return m_event; }
    void commit() override { events.push_back(recordOf(m_event)); }
    std::vector<EventRecord> events;

private:
    ChromeEvent m_event;
};

struct Tokenized {
    ReadOutcome outcome;
    std::vector<EventRecord> events;
};

/// `text` through the tokenizer, `chunk` bytes at a time from a source that gives at most
/// `most` bytes per read.
inline Tokenized tokenize(const std::string& text,
                          size_t chunk = importers::chrome::kTokenizerChunk,
                          size_t most = SIZE_MAX) {
    MemorySource source(text, most);
    JobControl control;
    RecordingSink sink;
    Tokenized t;
    t.outcome = importers::chrome::tokenizeChromeJson(source, control, sink, chunk);
    t.events = std::move(sink.events);
    return t;
}

inline const char* kindName(ReadOutcome::Kind k) {
    switch (k) {
        case ReadOutcome::Kind::Complete:
            return "Complete";
        case ReadOutcome::Kind::Truncated:
            return "Truncated";
        case ReadOutcome::Kind::NotJson:
            return "NotJson";
        case ReadOutcome::Kind::NotChromeTrace:
            return "NotChromeTrace";
        case ReadOutcome::Kind::Cancelled:
            return "Cancelled";
    }
    return "?";
}

/// Everything a ReadOutcome says, in one line (for comparisons that print well).
inline std::string describe(const ReadOutcome& o) {
    std::string s = std::string(kindName(o.kind)) + " | " + o.error + " | offset " +
                    std::to_string(o.errorOffset) + " | events " + std::to_string(o.eventObjects) +
                    " | non-objects " + std::to_string(o.nonObjectEvents) + " | unit '" +
                    o.displayTimeUnit + "' | keys";
    for (const auto& k : o.topLevelKeys) s += " '" + k + "'";
    return s;
}

}  // namespace ts::test
