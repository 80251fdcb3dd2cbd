// TraceEventParser: the hot path of the Chrome JSON import. Each event is parsed in one pass
// over the window: keys matched in place against the fifteen that matter, values assigned
// into the reused ChromeEvent strings, everything else checked and stepped over.
#include "importers/chrome_trace/trace_event_parser.h"

#include <cstring>
#include <string_view>

namespace ts::importers::chrome {

using json::Error;
using json::Scan;
using json::Status;

namespace {

enum Field : int {
    kNone,
    kPh,
    kName,
    kCat,
    kPid,
    kTid,
    kId,
    kBindId,
    kBp,
    kScope,
    kTs,
    kDur,
    kArgs,
    kId2,
    kFlowIn,
    kFlowOut
};

int fieldOf(std::string_view s) {
    if (s == "ph") return kPh;
    if (s == "name") return kName;
    if (s == "ts") return kTs;
    if (s == "dur") return kDur;
    if (s == "pid") return kPid;
    if (s == "tid") return kTid;
    if (s == "cat") return kCat;
    if (s == "args") return kArgs;
    if (s == "id") return kId;
    if (s == "bind_id") return kBindId;
    if (s == "bp") return kBp;
    if (s == "s") return kScope;
    if (s == "id2") return kId2;
    if (s == "flow_in") return kFlowIn;
    if (s == "flow_out") return kFlowOut;
    return kNone;
}

// Whether the key at p (after its opening quote) is `lit`, closing quote included. The
// window's padding makes the few bytes past its end readable; they never match.
template <size_t N>
inline bool is(const char* p, const char (&lit)[N]) {
    return std::memcmp(p, lit, N - 1) == 0;
}

// A known key written without escapes, matched in place; kNone for anything else.
inline int quickKey(const char* p, const char*& after) {
    int f = kNone;
    size_t n = 0;
    switch (p[0]) {
        case 'p':
            if (is(p, "ph\""))
                f = kPh, n = 3;
            else if (is(p, "pid\""))
                f = kPid, n = 4;
            break;
        case 'n':
            if (is(p, "name\"")) f = kName, n = 5;
            break;
        case 'c':
            if (is(p, "cat\"")) f = kCat, n = 4;
            break;
        case 't':
            if (is(p, "ts\""))
                f = kTs, n = 3;
            else if (is(p, "tid\""))
                f = kTid, n = 4;
            break;
        case 'd':
            if (is(p, "dur\"")) f = kDur, n = 4;
            break;
        case 'a':
            if (is(p, "args\"")) f = kArgs, n = 5;
            break;
        case 'i':
            if (is(p, "id\""))
                f = kId, n = 3;
            else if (is(p, "id2\""))
                f = kId2, n = 4;
            break;
        case 'b':
            if (is(p, "bp\""))
                f = kBp, n = 3;
            else if (is(p, "bind_id\""))
                f = kBindId, n = 8;
            break;
        case 's':
            if (is(p, "s\"")) f = kScope, n = 2;
            break;
        case 'f':
            if (is(p, "flow_in\""))
                f = kFlowIn, n = 8;
            else if (is(p, "flow_out\""))
                f = kFlowOut, n = 9;
            break;
        default:
            break;
    }
    after = p + n;
    return f;
}

bool isLiteral(char c) {
    return c == 't' || c == 'f' || c == 'n';
}

}  // namespace

Status TraceEventParser::parse(Scan& s, const char* p, const char*& out, ChromeEvent& e,
                               int64_t offset) {
    e.clear();
    e.offset = offset;
    p = json::skipWs(p + 1);
    if (*p != '}') {
        for (;;) {
            if (*p != '"') return s.fail(Error::ObjectMissName, p, p);
            int field = kNone;
            Status st = key(s, p, field);
            if (st != Status::Ok) return st;
            p = json::skipWs(p);
            if (*p != ':') return s.fail(Error::ObjectMissColon, p, p);
            p = json::skipWs(p + 1);
            bool unused = false;
            switch (field) {
                case kPh:
                    st = text(s, p, e.ph, e.hasPh);
                    break;
                case kName:
                    st = text(s, p, e.name, e.hasName);
                    break;
                case kCat:
                    st = text(s, p, e.cat, unused);
                    break;
                case kPid:
                    st = text(s, p, e.pid, e.hasPid);
                    break;
                case kTid:
                    st = text(s, p, e.tid, e.hasTid);
                    break;
                case kId:
                    st = text(s, p, e.id, e.hasId);
                    break;
                case kBindId:
                    st = text(s, p, e.bindId, e.hasBindId);
                    break;
                case kBp:
                    st = text(s, p, e.bp, unused);
                    break;
                case kScope:
                    st = text(s, p, e.scope, unused);
                    break;
                case kTs:
                    st = time(s, p, e.ts, e.hasTs);
                    break;
                case kDur:
                    st = time(s, p, e.dur, e.hasDur);
                    break;
                case kArgs:
                    st = args(s, p, e);
                    break;
                case kId2:
                    st = id2(s, p, e);
                    break;
                case kFlowIn:
                    st = flag(s, p, e.flowIn);
                    break;
                case kFlowOut:
                    st = flag(s, p, e.flowOut);
                    break;
                default:
                    st = skip(s, p);
                    break;
            }
            if (st != Status::Ok) return st;
            p = json::skipWs(p);
            if (*p == ',') {
                p = json::skipWs(p + 1);
                continue;
            }
            if (*p == '}') break;
            return s.fail(Error::ObjectMissCommaOrCurlyBracket, p, p);
        }
    }
    out = p + 1;
    e.tsNs = e.hasTs ? microsToNs(e.ts) : std::nullopt;
    e.durNs = e.hasDur ? microsToNs(e.dur) : std::nullopt;
    return Status::Ok;
}

// The key whose opening quote is at p; keys written with escapes are compared unescaped.
Status TraceEventParser::key(Scan& s, const char*& p, int& field) {
    const char* q = p + 1;
    const char* after = nullptr;
    field = quickKey(q, after);
    if (field != kNone) {
        p = after;
        return Status::Ok;
    }
    const char* r = json::findStringSpecial(q);
    if (*r == '"') {  // plain and not one we know
        p = r + 1;
        return Status::Ok;
    }
    const Status st = json::scanStringSlow(s, q, r, after, &m_key);
    if (st != Status::Ok) return st;
    field = fieldOf(m_key);
    p = after;
    return Status::Ok;
}

// Any scalar as its text (strings unescaped, numbers and literals as written); an object or
// array leaves the field as it was.
Status TraceEventParser::text(Scan& s, const char*& p, std::string& dst, bool& has) {
    const char* q = nullptr;
    Status st;
    const char c = *p;
    if (c == '"') {
        st = json::scanString(s, p + 1, q, &dst);
    } else if (c == '{' || c == '[') {
        return skipContainer(s, p);
    } else {
        st = isLiteral(c) ? json::scanLiteral(s, p, q) : json::scanNumber(s, p, q);
        if (st == Status::Ok) dst.assign(p, static_cast<size_t>(q - p));
    }
    if (st != Status::Ok) return st;
    has = true;
    p = q;
    return Status::Ok;
}

// ts and dur: a number or a string (Ascend writes "1704161511420306.491"); true, false and
// null leave them unset.
Status TraceEventParser::time(Scan& s, const char*& p, std::string& dst, bool& has) {
    if (isLiteral(*p)) return skip(s, p);
    return text(s, p, dst, has);
}

// flow_in / flow_out: true only for the literal true; another scalar makes it false.
Status TraceEventParser::flag(Scan& s, const char*& p, bool& flag) {
    const char c = *p;
    if (c == '{' || c == '[') return skipContainer(s, p);
    const Status st = skip(s, p);
    if (st == Status::Ok) flag = c == 't';
    return st;
}

// args: the object (or array) kept as its exact text; its top-level members collected when
// the builder needs them (counters read numbers, metadata strings), i.e. for C and M events
// and when "ph" has not been seen yet.
Status TraceEventParser::args(Scan& s, const char*& p, ChromeEvent& e) {
    if (*p != '{' && *p != '[') return skip(s, p);
    const char* start = p;
    const bool collect = !e.hasPh || e.ph == "C" || e.ph == "M";
    const Status st = collect ? collectArgs(s, p, e) : skipContainer(s, p);
    if (st != Status::Ok) return st;
    e.args.assign(start, static_cast<size_t>(p - start));
    return Status::Ok;
}

// id2: the object (or array) as its exact text, into id.
Status TraceEventParser::id2(Scan& s, const char*& p, ChromeEvent& e) {
    if (*p != '{' && *p != '[') return skip(s, p);
    const char* start = p;
    const Status st = skipContainer(s, p);
    if (st != Status::Ok) return st;
    e.id.assign(start, static_cast<size_t>(p - start));
    e.hasId = true;
    return Status::Ok;
}

Status TraceEventParser::collectArgs(Scan& s, const char*& p, ChromeEvent& e) {
    m_argKey.clear();  // an array's members have no key
    const bool object = *p == '{';
    p = json::skipWs(p + 1);
    if (*p == (object ? '}' : ']')) {
        ++p;
        return Status::Ok;
    }
    for (;;) {
        if (object) {
            if (*p != '"') return s.fail(Error::ObjectMissName, p, p);
            const char* q = nullptr;
            const Status st = json::scanString(s, p + 1, q, &m_argKey);
            if (st != Status::Ok) return st;
            p = json::skipWs(q);
            if (*p != ':') return s.fail(Error::ObjectMissColon, p, p);
            p = json::skipWs(p + 1);
        }
        const Status st = argValue(s, p, e);
        if (st != Status::Ok) return st;
        p = json::skipWs(p);
        if (*p == ',') {
            p = json::skipWs(p + 1);
            continue;
        }
        if (*p == (object ? '}' : ']')) {
            ++p;
            return Status::Ok;
        }
        return s.fail(
            object ? Error::ObjectMissCommaOrCurlyBracket : Error::ArrayMissCommaOrSquareBracket, p,
            p);
    }
}

// A top-level member of args: numbers (raw text) and strings (unescaped) are kept under the
// current key; literals and containers are only checked.
Status TraceEventParser::argValue(Scan& s, const char*& p, ChromeEvent& e) {
    const char c = *p;
    if (c == '{' || c == '[' || isLiteral(c)) return skip(s, p);
    const bool string = c == '"';
    auto& list = string ? e.argStrings : e.argNumbers;
    size_t& count = string ? e.argStringCount : e.argNumberCount;
    if (list.size() <= count) list.emplace_back();
    auto& [key, value] = list[count];
    const char* q = nullptr;
    const Status st = string ? json::scanString(s, p + 1, q, &value) : json::scanNumber(s, p, q);
    if (st != Status::Ok) return st;
    if (!string) value.assign(p, static_cast<size_t>(q - p));
    key = m_argKey;
    ++count;
    p = q;
    return Status::Ok;
}

// Any value, checked and stepped over.
Status TraceEventParser::skip(Scan& s, const char*& p) {
    const char c = *p;
    if (c == '{' || c == '[') return skipContainer(s, p);
    const char* q = nullptr;
    const Status st = c == '"'       ? json::scanString(s, p + 1, q, nullptr)
                      : isLiteral(c) ? json::scanLiteral(s, p, q)
                                     : json::scanNumber(s, p, q);
    if (st == Status::Ok) p = q;
    return st;
}

Status TraceEventParser::skipContainer(Scan& s, const char*& p) {
    m_skipper.begin();
    const char* q = nullptr;
    const Status st = m_skipper.run(s, p, q);
    if (st == Status::Ok) p = q;
    return st;
}

}  // namespace ts::importers::chrome
