// The trace JSON tokenizer: a window over the document and a state machine over its outer
// levels (the root, the top-level object, the events array). Each state consumes whole
// tokens; when the window ends inside one, the state is kept, the window drops the bytes
// before the token (or before the event, which is always parsed whole) and reads more.
#include "importers/chrome_trace/trace_json_tokenizer.h"

#include <charconv>

#include <algorithm>
#include <cstring>
#include <memory>
#include <optional>

#include "importers/chrome_trace/json_scan.h"
#include "importers/chrome_trace/json_skipper.h"
#include "importers/chrome_trace/trace_event_parser.h"

namespace ts::importers::chrome {
namespace {

using json::Error;
using json::Scan;
using json::Status;

// The part of the document in memory: [data, data + len), then a NUL and padding.
class Window {
public:
    Window(ByteSource& src, size_t chunk) : m_src(src), m_chunk(std::max<size_t>(chunk, 1)) {
        reserve(2 * m_chunk);
    }
    /// Drops the bytes before `keepFrom` and reads more after the rest: a chunk, or as many
    /// bytes as it keeps when that is more, so a value spanning many chunks is parsed again
    /// only a logarithmic number of times.
    void refill(size_t keepFrom) {
        const size_t keep = len - keepFrom;
        if (keep > 0 && keepFrom > 0) std::memmove(data, data + keepFrom, keep);
        base += static_cast<int64_t>(keepFrom);
        len = keep;
        const size_t want = std::max(m_chunk, keep);
        reserve(len + want);
        const size_t n = m_src.read(data + len, want);
        len += n;
        eof = n == 0;
        std::memset(data + len, 0, json::kPadding);
    }

    char* data = nullptr;
    size_t len = 0;
    int64_t base = 0;  // document offset of data[0]
    bool eof = false;

private:
    void reserve(size_t n) {
        if (n <= m_cap) return;
        const size_t cap = std::max(n, 2 * m_cap);
        auto mem = std::make_unique<char[]>(cap + json::kPadding);
        if (len > 0) std::memcpy(mem.get(), data, len);
        m_mem = std::move(mem);
        m_cap = cap;
        data = m_mem.get();
    }
    ByteSource& m_src;
    size_t m_chunk;
    std::unique_ptr<char[]> m_mem;
    size_t m_cap = 0;
};

class Tokenizer {
public:
    Tokenizer(ByteSource& src, JobControl& control, EventSink& sink, size_t chunk)
        : m_src(src), m_control(control), m_sink(sink), m_win(src, chunk) {}

    ReadOutcome run() {
        bool failed = false;
        for (bool go = refill(0); go; go = refill(m_pos)) {
            const Step step = advance();
            if (step == Step::More && !m_win.eof) continue;
            // (More at the end of the data cannot happen: every NeedMore checks eof)
            failed = step != Step::Done;
            if (step == Step::More) m_scan.fail(Error::ValueInvalid, m_scan.end, m_scan.end);
            break;
        }
        if (m_control.cancelled()) {
            m_out.kind = ReadOutcome::Kind::Cancelled;
            return m_out;
        }
        if (failed) finishError();
        return m_out;
    }

private:
    enum class State : uint8_t {
        Start,         // before the root value (a BOM, whitespace)
        RootScalar,    // the root is not an object or array
        ObjectFirst,   // after the root '{'
        ObjectKey,     // a top-level key
        ObjectColon,   // after a top-level key
        ObjectValue,   // a top-level value
        ObjectSkip,    // inside a top-level value that is not the events
        ObjectAfter,   // after a top-level value
        EventsFirst,   // after the events array's '['
        Events,        // an element of the events array
        EventsScalar,  // inside an element that is not an object
        EventsAfter,   // after an element
        // The top-level `stackFrames` object and `samples` array: each member that is an
        // object is parsed as an event is (a frame from its key on), any other value skipped.
        FramesFirst,   // after the stackFrames '{'
        Frame,         // a member: key, colon, value
        FrameScalar,   // inside a member's value that is not an object
        FrameAfter,    // after a member
        SamplesFirst,  // after the samples '['
        Sample,        // an element
        SampleScalar,  // inside an element that is not an object
        SampleAfter    // after an element
    };
    enum class Step : uint8_t { More, Failed, Done };

    bool refill(size_t keepFrom) {
        m_win.refill(keepFrom);
        m_pos = 0;
        m_scan.end = m_win.data + m_win.len;
        m_scan.eof = m_win.eof;
        m_control.setDone(m_src.progress());
        return !m_control.cancelled();
    }
    int64_t offsetOf(const char* p) const { return m_win.base + (p - m_win.data); }
    // The window ends at p and more data will come.
    bool cut(const char* p) const { return p >= m_scan.end && !m_scan.eof; }
    Step more(const char* resume) {
        m_pos = static_cast<size_t>(resume - m_win.data);
        return Step::More;
    }
    Step stop(Status st, const char* resume) {
        return st == Status::NeedMore ? more(resume) : Step::Failed;
    }
    Step notChromeTrace(std::string message) {
        m_out.kind = ReadOutcome::Kind::NotChromeTrace;
        m_out.error = std::move(message);
        return Step::Done;
    }
    Step rootObjectEnd() {
        if (m_sawTraceEvents) return Step::Done;
        std::string keys;
        for (size_t i = 0; i < m_out.topLevelKeys.size() && i < 8; ++i)
            keys += (i ? ", " : "") + m_out.topLevelKeys[i];
        return notChromeTrace(
            "not a Chrome trace: JSON object without \"traceEvents\" (keys: " + keys + ")");
    }

    Step advance();
    std::optional<Step> events(const char*& p);
    std::optional<Step> stackFrames(const char*& p);
    std::optional<Step> samples(const char*& p);
    void finishError();

    ByteSource& m_src;
    JobControl& m_control;
    EventSink& m_sink;
    Window m_win;
    Scan m_scan;
    size_t m_pos = 0;  // where advance() goes on, in the window
    State m_state = State::Start;
    ReadOutcome m_out;
    TraceEventParser m_event;
    json::JsonSkipper m_skipper;
    /// Keeps the text of a small top-level value (deviceProperties, distributedInfo) as the
    /// skipper passes over it, window after window; one too large is dropped.
    void capture(const char* from, const char* to) {
        if (!from || !to || to <= from) return;
        const size_t n = static_cast<size_t>(to - from);
        if (m_captured.size() + n > kMaxCapturedValue) {
            m_capturing = false;
            m_captured.clear();
            return;
        }
        m_captured.append(from, n);
    }
    static constexpr size_t kMaxCapturedValue = 1 << 20;

    std::string m_topKey, m_unit, m_frameKey, m_captured;
    bool m_capturing = false;
    bool m_sawRoot = false, m_rootIsArray = false, m_eventsOpen = false, m_inEvent = false,
         m_sawTraceEvents = false;
};

Tokenizer::Step Tokenizer::advance() {
    const char* p = m_win.data + m_pos;
    for (;;) {
        switch (m_state) {
            case State::Start: {
                if (m_win.base == 0 && p == m_win.data) {  // a UTF-8 BOM
                    const size_t have = std::min<size_t>(3, m_win.len);
                    if (std::memcmp(p, "\xEF\xBB\xBF", have) == 0) {
                        if (have < 3 && !m_scan.eof) return more(p);
                        if (have == 3) p += 3;
                    }
                }
                p = json::skipWs(p);
                if (*p == '\0') return stop(m_scan.fail(Error::DocumentEmpty, p, p), p);
                if (*p == '{') {
                    m_sawRoot = true;
                    ++p;
                    m_state = State::ObjectFirst;
                } else if (*p == '[') {
                    m_sawRoot = m_rootIsArray = m_eventsOpen = true;
                    ++p;
                    m_state = State::EventsFirst;
                } else {
                    m_skipper.begin();
                    m_state = State::RootScalar;
                }
                continue;
            }
            case State::RootScalar: {
                const char* next = nullptr;
                const Status st = m_skipper.run(m_scan, p, next);
                if (st != Status::Ok) return stop(st, next);
                m_sawRoot = true;
                return notChromeTrace("not a Chrome trace: the JSON document is a single value");
            }
            case State::ObjectFirst:
                p = json::skipWs(p);
                if (*p == '}') return rootObjectEnd();
                if (cut(p)) return more(p);
                m_state = State::ObjectKey;
                [[fallthrough]];
            case State::ObjectKey: {
                p = json::skipWs(p);
                if (*p == '}') return rootObjectEnd();  // after a trailing comma
                if (*p != '"') return stop(m_scan.fail(Error::ObjectMissName, p, p), p);
                const char* q = nullptr;
                const Status st = json::scanString(m_scan, p + 1, q, &m_topKey);
                if (st != Status::Ok) return stop(st, p);
                m_out.topLevelKeys.push_back(m_topKey);
                p = q;
                m_state = State::ObjectColon;
                [[fallthrough]];
            }
            case State::ObjectColon:
                p = json::skipWs(p);
                if (*p != ':') return stop(m_scan.fail(Error::ObjectMissColon, p, p), p);
                ++p;
                m_state = State::ObjectValue;
                [[fallthrough]];
            case State::ObjectValue:
                p = json::skipWs(p);
                if (*p == '[' && m_topKey == "traceEvents") {
                    ++p;
                    m_eventsOpen = m_sawTraceEvents = true;
                    m_state = State::EventsFirst;
                    continue;
                }
                if (*p == '{' && m_topKey == "stackFrames") {
                    ++p;
                    m_state = State::FramesFirst;
                    continue;
                }
                if (*p == '[' && m_topKey == "samples") {
                    ++p;
                    m_state = State::SamplesFirst;
                    continue;
                }
                if (*p == '"' && m_topKey == "displayTimeUnit") {
                    const char* q = nullptr;
                    const Status st = json::scanString(m_scan, p + 1, q, &m_unit);
                    if (st != Status::Ok) return stop(st, p);
                    m_out.displayTimeUnit = m_unit;
                    p = q;
                    m_state = State::ObjectAfter;
                    continue;
                }
                if (m_topKey == "baseTimeNanoseconds" && (*p == '-' || (*p >= '0' && *p <= '9'))) {
                    // Kineto's epoch: its ts are microseconds after it (memory snapshots align
                    // by it). Read here, then skipped as any value.
                    const char* q = p + 1;
                    while (*q >= '0' && *q <= '9') ++q;
                    if (cut(q)) return more(p);
                    int64_t v = 0;
                    if (std::from_chars(p, q, v).ec == std::errc()) m_out.baseTimeNs = v;
                }
                if (cut(p)) return more(p);  // its first byte decides what it is
                m_skipper.begin();
                m_capturing = m_topKey == "deviceProperties" || m_topKey == "distributedInfo";
                m_captured.clear();
                m_state = State::ObjectSkip;
                [[fallthrough]];
            case State::ObjectSkip: {
                const char* next = nullptr;
                const Status st = m_skipper.run(m_scan, p, next);
                if (m_capturing && (st == Status::Ok || st == Status::NeedMore)) capture(p, next);
                if (st != Status::Ok) return stop(st, next);
                if (m_capturing && !m_captured.empty())
                    m_out.metadata.emplace_back(m_topKey, std::move(m_captured));
                m_capturing = false;
                p = next;
                m_state = State::ObjectAfter;
                [[fallthrough]];
            }
            case State::ObjectAfter:
                p = json::skipWs(p);
                if (*p == ',') {
                    ++p;
                    m_state = State::ObjectKey;
                    continue;
                }
                if (*p == '}') return rootObjectEnd();
                return stop(m_scan.fail(Error::ObjectMissCommaOrCurlyBracket, p, p), p);
            case State::EventsFirst:
                p = json::skipWs(p);
                if (*p == ']') {  // an empty array: EventsAfter closes it
                    m_state = State::EventsAfter;
                    continue;
                }
                if (cut(p)) return more(p);
                m_state = State::Events;
                [[fallthrough]];
            case State::Events:
                if (const auto step = events(p)) return *step;
                continue;  // m_state says what comes next
            case State::EventsScalar: {
                const char* next = nullptr;
                const Status st = m_skipper.run(m_scan, p, next);
                if (st != Status::Ok) return stop(st, next);
                ++m_out.nonObjectEvents;
                p = next;
                m_state = State::EventsAfter;
                [[fallthrough]];
            }
            case State::EventsAfter:
                p = json::skipWs(p);
                if (*p == ',') {
                    ++p;
                    m_state = State::Events;
                    continue;
                }
                if (*p == ']') {
                    ++p;
                    m_eventsOpen = false;
                    if (m_rootIsArray) return Step::Done;
                    m_state = State::ObjectAfter;
                    continue;
                }
                return stop(m_scan.fail(Error::ArrayMissCommaOrSquareBracket, p, p), p);
            case State::FramesFirst:
            case State::Frame:
            case State::FrameScalar:
            case State::FrameAfter:
                if (const auto step = stackFrames(p)) return *step;
                continue;
            case State::SamplesFirst:
            case State::Sample:
            case State::SampleScalar:
            case State::SampleAfter:
                if (const auto step = samples(p)) return *step;
                continue;
        }
    }
}

// The events array, element after element, as long as they are objects (the hot loop).
// Nothing when it leaves to another state (m_state), else the step advance() returns.
std::optional<Tokenizer::Step> Tokenizer::events(const char*& p) {
    for (;;) {
        p = json::skipWs(p);
        if (*p == '{') {
            ChromeEvent& e = m_sink.slot();
            m_inEvent = true;
            const char* q = nullptr;
            const Status st = m_event.parse(m_scan, p, q, e, offsetOf(p));
            if (st != Status::Ok) return stop(st, p);  // parsed again from its '{'
            m_inEvent = false;
            ++m_out.eventObjects;
            m_sink.commit();
            p = json::skipWs(q);
            if (*p == ',') {
                ++p;
                continue;
            }
            m_state = State::EventsAfter;  // ']', an error, or the end of the window
            return std::nullopt;
        }
        if (*p == '[')
            return notChromeTrace(
                "not a Chrome trace: the events array holds arrays (a list of lists)");
        if (*p == ']') {  // after a trailing comma: EventsAfter closes the array
            m_state = State::EventsAfter;
            return std::nullopt;
        }
        if (cut(p)) return more(p);
        m_skipper.begin();
        m_state = State::EventsScalar;
        return std::nullopt;
    }
}

// The members of the top-level stackFrames object, until its '}' (then ObjectAfter). A
// member is parsed whole from its key: when the window ends inside it, it starts again there.
std::optional<Tokenizer::Step> Tokenizer::stackFrames(const char*& p) {
    for (;;) {
        switch (m_state) {
            case State::FramesFirst:
                p = json::skipWs(p);
                if (*p == '}') {
                    ++p;
                    m_state = State::ObjectAfter;
                    return std::nullopt;
                }
                if (cut(p)) return more(p);
                m_state = State::Frame;
                [[fallthrough]];
            case State::Frame: {
                p = json::skipWs(p);
                if (*p == '}') {  // after a trailing comma
                    ++p;
                    m_state = State::ObjectAfter;
                    return std::nullopt;
                }
                const char* key = p;
                if (*p != '"') return stop(m_scan.fail(Error::ObjectMissName, p, p), p);
                const char* q = nullptr;
                Status st = json::scanString(m_scan, p + 1, q, &m_frameKey);
                if (st != Status::Ok) return stop(st, key);
                p = json::skipWs(q);
                if (*p != ':') return stop(m_scan.fail(Error::ObjectMissColon, p, p), key);
                p = json::skipWs(p + 1);
                if (*p != '{') {
                    if (cut(p)) return more(key);
                    m_skipper.begin();
                    m_state = State::FrameScalar;
                    continue;
                }
                ChromeEvent& e = m_sink.slot();
                st = m_event.parse(m_scan, p, q, e, offsetOf(p));
                if (st != Status::Ok) return stop(st, key);
                e.kind = ChromeEvent::Kind::StackFrame;
                e.id = m_frameKey;
                e.hasId = true;
                m_sink.commit();
                p = q;
                m_state = State::FrameAfter;
                continue;
            }
            case State::FrameScalar: {
                const char* next = nullptr;
                const Status st = m_skipper.run(m_scan, p, next);
                if (st != Status::Ok) return stop(st, next);
                p = next;
                m_state = State::FrameAfter;
                [[fallthrough]];
            }
            case State::FrameAfter:
                p = json::skipWs(p);
                if (*p == ',') {
                    ++p;
                    m_state = State::Frame;
                    continue;
                }
                if (*p == '}') {
                    ++p;
                    m_state = State::ObjectAfter;
                    return std::nullopt;
                }
                return stop(m_scan.fail(Error::ObjectMissCommaOrCurlyBracket, p, p), p);
            default:
                return std::nullopt;
        }
    }
}

// The elements of the top-level samples array, until its ']' (then ObjectAfter).
std::optional<Tokenizer::Step> Tokenizer::samples(const char*& p) {
    for (;;) {
        switch (m_state) {
            case State::SamplesFirst:
                p = json::skipWs(p);
                if (*p == ']') {
                    ++p;
                    m_state = State::ObjectAfter;
                    return std::nullopt;
                }
                if (cut(p)) return more(p);
                m_state = State::Sample;
                [[fallthrough]];
            case State::Sample: {
                p = json::skipWs(p);
                if (*p == ']') {  // after a trailing comma
                    ++p;
                    m_state = State::ObjectAfter;
                    return std::nullopt;
                }
                if (*p != '{') {
                    if (cut(p)) return more(p);
                    m_skipper.begin();
                    m_state = State::SampleScalar;
                    continue;
                }
                ChromeEvent& e = m_sink.slot();
                const char* q = nullptr;
                const Status st = m_event.parse(m_scan, p, q, e, offsetOf(p));
                if (st != Status::Ok) return stop(st, p);
                e.kind = ChromeEvent::Kind::Sample;
                m_sink.commit();
                p = q;
                m_state = State::SampleAfter;
                continue;
            }
            case State::SampleScalar: {
                const char* next = nullptr;
                const Status st = m_skipper.run(m_scan, p, next);
                if (st != Status::Ok) return stop(st, next);
                p = next;
                m_state = State::SampleAfter;
                [[fallthrough]];
            }
            case State::SampleAfter:
                p = json::skipWs(p);
                if (*p == ',') {
                    ++p;
                    m_state = State::Sample;
                    continue;
                }
                if (*p == ']') {
                    ++p;
                    m_state = State::ObjectAfter;
                    return std::nullopt;
                }
                return stop(m_scan.fail(Error::ArrayMissCommaOrSquareBracket, p, p), p);
            default:
                return std::nullopt;
        }
    }
}

void Tokenizer::finishError() {
    const int64_t at = offsetOf(m_scan.errorAt);
    const std::string where = std::to_string(at);
    const std::string readError = m_src.error();
    m_out.errorOffset = at;
    if (!readError.empty() && m_sawRoot) {
        m_out.kind = ReadOutcome::Kind::Truncated;
        m_out.error = readError + "; JSON cut at byte " + where;
        return;
    }
    const bool atEnd = m_scan.eof && m_scan.errorSeen >= m_scan.end;  // all data was read
    // The array form may legally omit its closing ']' (Trace Event Format spec).
    if (atEnd && m_eventsOpen && !m_inEvent && m_scan.error != Error::DocumentEmpty) return;
    const std::string message = json::errorText(m_scan.error);
    if (!m_sawRoot || (m_out.eventObjects == 0 && !m_inEvent)) {
        m_out.kind = ReadOutcome::Kind::NotJson;
        m_out.error = "not JSON: " + message + " at byte " + where;
    } else {
        m_out.kind = ReadOutcome::Kind::Truncated;
        m_out.error =
            (atEnd ? "JSON ends early at byte " : "JSON damaged at byte ") + where + ": " + message;
    }
}

}  // namespace

ReadOutcome tokenizeChromeJson(ByteSource& src, JobControl& control, EventSink& sink,
                               size_t chunkBytes) {
    return Tokenizer(src, control, sink, chunkBytes).run();
}

}  // namespace ts::importers::chrome
