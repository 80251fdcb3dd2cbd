#pragma once
// The reader the importer had before the trace JSON tokenizer: RapidJSON's SAX Reader over
// a chunk stream, kept here (from importers/chrome_trace/chrome_json_reader.cpp at dc843e9)
// as the reference the differential test compares the tokenizer with. Changed since: the
// keys sf, stack, parent and category, args collected for 'c' events too, the members of the
// top-level stackFrames object and samples array handed over as events of their kind, and
// trailing commas accepted (kParseTrailingCommasFlag, as Perfetto reads JSON traces).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>

#include <rapidjson/error/en.h>
#include <rapidjson/reader.h>

#include "core/common/job_control.h"
#include "importers/chrome_trace/chrome_event.h"
#include "importers/chrome_trace/trace_json_tokenizer.h"
#include "tokenizer_test_util.h"

namespace ts::test {
namespace reference {

using importers::chrome::ByteSource;
using importers::chrome::ChromeEvent;
using importers::chrome::EventSink;
using importers::chrome::microsToNs;
using importers::chrome::ReadOutcome;

// RapidJSON input stream over a ByteSource, refilled 1 MiB at a time ('\0' past the end).
// (The only change to the old reader: a leading UTF-8 BOM is stepped over, and counted in
// the offsets, as the tokenizer does.)
class ChunkStream {
public:
    using Ch = char;
    ChunkStream(ByteSource& in, JobControl& control) : m_in(in), m_control(control) {
        m_buf.resize(kChunk + 1);
        m_cur = m_end = m_buf.data();
        fill();
        if (m_end - m_cur >= 3 && std::memcmp(m_cur, "\xEF\xBB\xBF", 3) == 0) {
            m_cur += 3;
            if (m_cur == m_end) fill();
        }
    }
    Ch Peek() const { return *m_cur; }
    Ch Take() {
        const Ch c = *m_cur;
        if (++m_cur == m_end) fill();
        return c;
    }
    size_t Tell() const { return m_base + static_cast<size_t>(m_cur - m_buf.data()); }
    Ch* PutBegin() { return nullptr; }
    void Put(Ch) {}
    void Flush() {}
    size_t PutEnd(Ch*) { return 0; }
    bool atEnd() const { return m_eof && m_cur == m_end; }

    /// Starts keeping the text from absolute offset `at` (in the current chunk) on: the
    /// args of an event are copied as the file wrote them, not re-serialised.
    /// `open` is the character at `at`, which may already be behind the chunk when it
    /// was the chunk's last one (Take() refills right after it).
    void pin(size_t at, char open) {
        m_pinned = true;
        m_spill.clear();
        if (at < m_base) {
            m_spill.push_back(open);
            m_pinAt = 0;
        } else {
            m_pinAt = at - m_base;
        }
    }
    /// The text from the pin up to the current position; ends the pin.
    void takePinned(std::string& out) {
        const size_t here = static_cast<size_t>(m_cur - m_buf.data());
        out.assign(m_spill);
        if (here > m_pinAt) out.append(m_buf.data() + m_pinAt, here - m_pinAt);
        m_pinned = false;
    }

private:
    static constexpr size_t kChunk = 1 << 20;
    void fill() {
        if (m_eof) return;
        if (m_pinned) {  // a capture spans chunks: keep what it has of this one
            m_spill.append(m_buf.data() + m_pinAt,
                           static_cast<size_t>(m_end - m_buf.data()) - m_pinAt);
            m_pinAt = 0;
        }
        m_base += static_cast<size_t>(m_end - m_buf.data());
        const size_t n = m_in.read(m_buf.data(), kChunk);
        m_buf[n] = '\0';
        m_cur = m_buf.data();
        m_end = m_buf.data() + n;
        if (n == 0) m_eof = true;
        m_control.setDone(m_in.progress());
        if (m_control.cancelled()) m_eof = true;
    }
    ByteSource& m_in;
    JobControl& m_control;
    std::string m_buf;
    char* m_cur = nullptr;
    char* m_end = nullptr;
    size_t m_base = 0;
    bool m_eof = false;
    bool m_pinned = false;
    size_t m_pinAt = 0;   // pin position in m_buf
    std::string m_spill;  // pinned text of earlier chunks
};

enum class Field {
    None,
    Ph,
    Name,
    Cat,
    Pid,
    Tid,
    Id,
    BindId,
    Bp,
    Scope,
    Ts,
    Dur,
    Args,
    Id2,
    FlowIn,
    FlowOut,
    Sf,
    Stack,
    Parent,
    Category
};

inline Field fieldOf(const char* k, size_t n) {
    const std::string_view s(k, n);
    if (s == "ph") return Field::Ph;
    if (s == "name") return Field::Name;
    if (s == "ts") return Field::Ts;
    if (s == "dur") return Field::Dur;
    if (s == "pid") return Field::Pid;
    if (s == "tid") return Field::Tid;
    if (s == "cat") return Field::Cat;
    if (s == "args") return Field::Args;
    if (s == "id") return Field::Id;
    if (s == "bind_id") return Field::BindId;
    if (s == "bp") return Field::Bp;
    if (s == "s") return Field::Scope;
    if (s == "id2") return Field::Id2;
    if (s == "flow_in") return Field::FlowIn;
    if (s == "flow_out") return Field::FlowOut;
    if (s == "sf") return Field::Sf;
    if (s == "stack") return Field::Stack;
    if (s == "parent") return Field::Parent;
    if (s == "category") return Field::Category;
    return Field::None;
}

// The SAX handler: a small state machine over the document's nesting.
class Handler : public rapidjson::BaseReaderHandler<rapidjson::UTF8<>, Handler> {
public:
    Handler(ReadOutcome& out, EventSink& sink, ChunkStream& stream)
        : m_out(out), m_sink(sink), m_stream(stream) {}

    bool inEvent() const { return m_inEvent && m_kind == ChromeEvent::Kind::Event; }
    bool betweenEvents() const { return m_eventsOpen && !m_inEvent && m_skipDepth == 0; }
    bool sawRoot() const { return m_rootSeen; }

    bool Null() { return scalar("null", 4, false, false); }
    bool Bool(bool b) {
        return b ? scalar("true", 4, false, true) : scalar("false", 5, false, true);
    }
    bool RawNumber(const char* s, rapidjson::SizeType n, bool) { return scalar(s, n, true, false); }
    bool String(const char* s, rapidjson::SizeType n, bool) {
        return scalar(s, n, false, false, true);
    }

    bool Key(const char* s, rapidjson::SizeType n, bool) {
        if (m_capture > 0) {
            if (m_capture == 1 && m_collectArgs) m_argKey.assign(s, n);
            return true;
        }
        if (m_skipDepth > 0) return true;
        if (m_inEvent) {
            m_field = fieldOf(s, n);
            return true;
        }
        if (m_framesOpen) {  // a stack frame's key
            m_frameKey.assign(s, n);
            return true;
        }
        // top-level object key
        m_topKey.assign(s, n);
        m_out.topLevelKeys.push_back(m_topKey);
        return true;
    }

    bool StartObject() { return start(true); }
    bool StartArray() { return start(false); }
    bool EndObject(rapidjson::SizeType) { return end(true); }
    bool EndArray(rapidjson::SizeType) { return end(false); }

private:
    bool start(bool object) {
        if (m_capture > 0) {
            ++m_capture;
            return true;
        }
        if (m_skipDepth > 0) {
            ++m_skipDepth;
            return true;
        }
        if (!m_rootSeen) {
            m_rootSeen = true;
            m_rootIsArray = !object;
            if (!object) m_eventsOpen = true;
            return true;
        }
        if (m_inEvent) {
            if (m_field == Field::Args || m_field == Field::Id2 || m_field == Field::Stack) {
                m_captureField = m_field;
                m_capture = 1;
                m_argKey.clear();
                // Top-level values of args are needed by counters (numbers) and metadata
                // (strings) only; when "ph" came first (as writers put it) others skip them.
                m_collectArgs = m_field == Field::Args &&
                                (!m_e->hasPh || m_e->ph == "C" || m_e->ph == "M" || m_e->ph == "c");
                m_stream.pin(m_stream.Tell() - 1, object ? '{' : '[');  // just read
                return true;
            }
            m_skipDepth = 1;
            return true;
        }
        if (m_framesOpen || m_samplesOpen) {  // a frame or a global sample, or another value
            if (!object) {
                m_skipDepth = 1;
                return true;
            }
            beginEvent(m_framesOpen ? ChromeEvent::Kind::StackFrame : ChromeEvent::Kind::Sample);
            return true;
        }
        if (m_eventsOpen) {
            if (!object) {
                m_out.kind = ReadOutcome::Kind::NotChromeTrace;
                m_out.error = "not a Chrome trace: the events array holds arrays (a list of lists)";
                return false;
            }
            beginEvent(ChromeEvent::Kind::Event);
            return true;
        }
        // a value of a top-level key
        if (!object && m_topKey == "traceEvents" && !m_rootIsArray) {
            m_eventsOpen = true;
            m_sawTraceEvents = true;
            return true;
        }
        if (object && m_topKey == "stackFrames" && !m_rootIsArray) {
            m_framesOpen = true;
            return true;
        }
        if (!object && m_topKey == "samples" && !m_rootIsArray) {
            m_samplesOpen = true;
            return true;
        }
        m_skipDepth = 1;
        return true;
    }

    void beginEvent(ChromeEvent::Kind kind) {
        m_inEvent = true;
        m_kind = kind;
        m_e = &m_sink.slot();
        m_e->clear();
        m_e->offset = static_cast<int64_t>(m_stream.Tell()) - 1;
        m_field = Field::None;
    }

    bool end(bool object) {
        if (m_capture > 0) {
            if (--m_capture == 0) {  // the text as written, from '{' to the '}' just read
                std::string& text = m_captureField == Field::Args    ? m_e->args
                                    : m_captureField == Field::Stack ? m_e->stack
                                                                     : m_e->id;
                m_stream.takePinned(text);
                // After a trailing comma RapidJSON ends the container before it takes the
                // bracket: the text stops short of it.
                const char close = object ? '}' : ']';
                if (text.empty() || text.back() != close) text += close;
                if (m_captureField == Field::Id2) m_e->hasId = true;
            }
            return true;
        }
        if (m_skipDepth > 0) {
            --m_skipDepth;
            return true;
        }
        if (m_inEvent) {
            m_inEvent = false;
            if (m_kind == ChromeEvent::Kind::Event) ++m_out.eventObjects;
            m_e->kind = m_kind;
            if (m_kind == ChromeEvent::Kind::StackFrame) {
                m_e->id = m_frameKey;
                m_e->hasId = true;
            }
            m_e->tsNs = m_e->hasTs ? microsToNs(m_e->ts) : std::nullopt;
            m_e->durNs = m_e->hasDur ? microsToNs(m_e->dur) : std::nullopt;
            m_sink.commit();
            return true;
        }
        if (m_framesOpen || m_samplesOpen) {
            m_framesOpen = m_samplesOpen = false;
            return true;
        }
        if (m_eventsOpen) {
            m_eventsOpen = false;
            return true;
        }
        // end of the root object
        if (object && !m_sawTraceEvents) {
            m_out.kind = ReadOutcome::Kind::NotChromeTrace;
            std::string keys;
            for (size_t i = 0; i < m_out.topLevelKeys.size() && i < 8; ++i)
                keys += (i ? ", " : "") + m_out.topLevelKeys[i];
            m_out.error =
                "not a Chrome trace: JSON object without \"traceEvents\" (keys: " + keys + ")";
            return false;
        }
        return true;
    }

    bool scalar(const char* s, size_t n, bool number, bool boolean, bool string = false) {
        if (m_capture > 0) {
            if (m_capture == 1 && m_collectArgs) {
                auto& vec = number ? m_e->argNumbers : m_e->argStrings;
                size_t& count = number ? m_e->argNumberCount : m_e->argStringCount;
                if (number || string) {
                    if (vec.size() <= count) vec.emplace_back();
                    vec[count].first = m_argKey;
                    vec[count].second.assign(s, n);
                    ++count;
                }
            }
            return true;
        }
        if (m_skipDepth > 0) return true;
        if (!m_rootSeen) {
            m_rootSeen = true;
            m_out.kind = ReadOutcome::Kind::NotChromeTrace;
            m_out.error = "not a Chrome trace: the JSON document is a single value";
            return false;
        }
        if (m_inEvent) {
            ChromeEvent& e = *m_e;
            auto set = [&](std::string& dst, bool& has) {
                dst.assign(s, n);
                has = true;
            };
            bool dummy = false;
            switch (m_field) {
                case Field::Ph:
                    set(e.ph, e.hasPh);
                    break;
                case Field::Name:
                    set(e.name, e.hasName);
                    break;
                case Field::Cat:
                    set(e.cat, dummy);
                    break;
                case Field::Pid:
                    set(e.pid, e.hasPid);
                    break;
                case Field::Tid:
                    set(e.tid, e.hasTid);
                    break;
                case Field::Id:
                    set(e.id, e.hasId);
                    break;
                case Field::BindId:
                    set(e.bindId, e.hasBindId);
                    break;
                case Field::Bp:
                    set(e.bp, dummy);
                    break;
                case Field::Scope:
                    set(e.scope, dummy);
                    break;
                case Field::Ts:
                    if (number || string) set(e.ts, e.hasTs);
                    break;
                case Field::Dur:
                    if (number || string) set(e.dur, e.hasDur);
                    break;
                case Field::FlowIn:
                    e.flowIn = boolean && n == 4;
                    break;
                case Field::FlowOut:
                    e.flowOut = boolean && n == 4;
                    break;
                case Field::Sf:
                    set(e.sf, e.hasSf);
                    break;
                case Field::Parent:
                    set(e.parent, e.hasParent);
                    break;
                case Field::Category:
                    set(e.category, dummy);
                    break;
                default:
                    break;
            }
            return true;
        }
        if (m_eventsOpen) {
            ++m_out.nonObjectEvents;
            return true;
        }
        if (m_framesOpen || m_samplesOpen) return true;
        if (m_topKey == "displayTimeUnit" && string) m_out.displayTimeUnit.assign(s, n);
        return true;
    }

    ReadOutcome& m_out;
    EventSink& m_sink;
    ChunkStream& m_stream;
    ChromeEvent* m_e = nullptr;  // the event being filled (a slot of the sink)
    Field m_field = Field::None;
    Field m_captureField = Field::None;
    ChromeEvent::Kind m_kind = ChromeEvent::Kind::Event;
    std::string m_topKey, m_argKey, m_frameKey;
    bool m_collectArgs = false;
    int m_capture = 0;
    int m_skipDepth = 0;
    bool m_rootSeen = false, m_rootIsArray = false, m_eventsOpen = false, m_inEvent = false,
         m_sawTraceEvents = false, m_framesOpen = false, m_samplesOpen = false;
};

inline ReadOutcome referenceRead(ByteSource& in, JobControl& control, EventSink& sink) {
    ReadOutcome out;
    ChunkStream stream(in, control);
    Handler handler(out, sink, stream);
    rapidjson::Reader reader;
    constexpr unsigned kFlags = rapidjson::kParseNumbersAsStringsFlag |
                                rapidjson::kParseStopWhenDoneFlag | rapidjson::kParseNanAndInfFlag |
                                rapidjson::kParseTrailingCommasFlag;
    const rapidjson::ParseResult r = reader.Parse<kFlags>(stream, handler);
    if (control.cancelled()) {
        out.kind = ReadOutcome::Kind::Cancelled;
        return out;
    }
    if (out.kind == ReadOutcome::Kind::NotChromeTrace) return out;
    if (!r && !in.error().empty() && handler.sawRoot()) {
        out.kind = ReadOutcome::Kind::Truncated;
        out.errorOffset = static_cast<int64_t>(r.Offset());
        out.error = in.error() + "; JSON cut at byte " + std::to_string(r.Offset());
        return out;
    }
    if (!r) {
        out.errorOffset = static_cast<int64_t>(r.Offset());
        // The array form may legally omit its closing ']' (Trace Event Format spec).
        if (stream.atEnd() && handler.betweenEvents() &&
            r.Code() != rapidjson::kParseErrorDocumentEmpty)
            return out;
        const std::string msg = rapidjson::GetParseError_En(r.Code());
        if (!handler.sawRoot() || (out.eventObjects == 0 && !handler.inEvent())) {
            out.kind = ReadOutcome::Kind::NotJson;
            out.error = "not JSON: " + msg + " at byte " + std::to_string(r.Offset());
        } else {
            out.kind = ReadOutcome::Kind::Truncated;
            out.error = (stream.atEnd() ? "JSON ends early at byte " : "JSON damaged at byte ") +
                        std::to_string(r.Offset()) + ": " + msg;
        }
    }
    return out;
}

}  // namespace reference

/// The events and outcome of the reference reader on `text`.
inline Tokenized referenceOf(const std::string& text) {
    MemorySource source(text);
    JobControl control;
    RecordingSink sink;
    Tokenized t;
    t.outcome = reference::referenceRead(source, control, sink);
    t.events = std::move(sink.events);
    return t;
}

inline std::string printable(const std::string& text) {
    std::string out;
    for (const char c : text.substr(0, 600)) {
        const auto u = static_cast<unsigned char>(c);
        if (u >= 0x20 && u < 0x7F) {
            out += c;
        } else {
            char buf[8];
            std::snprintf(buf, sizeof buf, "\\x%02X", u);
            out += buf;
        }
    }
    return text.size() > 600 ? out + "..." : out;
}

// Both readers on `text`; the tokenizer with `chunk`-byte chunks from reads of at most
// `most` bytes.
inline ::testing::AssertionResult sameAsReference(const std::string& text, size_t chunk,
                                                  size_t most = SIZE_MAX) {
    const Tokenized want = referenceOf(text);
    const Tokenized got = tokenize(text, chunk, most);
    auto fail = [&]() {
        return ::testing::AssertionFailure()
               << "chunk " << chunk << ", reads of at most " << most << "\ninput: \""
               << printable(text) << "\"\nreference: " << describe(want.outcome)
               << "\ntokenizer: " << describe(got.outcome) << "\n";
    };
    if (describe(got.outcome) != describe(want.outcome)) return fail() << "outcomes differ";
    if (got.events.size() != want.events.size())
        return fail() << "events: " << got.events.size() << " vs " << want.events.size();
    for (size_t i = 0; i < got.events.size(); ++i)
        if (!(got.events[i] == want.events[i]))
            return fail() << "event " << i << ":\n  reference " << want.events[i]
                          << "\n  tokenizer " << got.events[i];
    return ::testing::AssertionSuccess();
}

}  // namespace ts::test
