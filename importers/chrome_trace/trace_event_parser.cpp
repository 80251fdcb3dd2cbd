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
    kFlowOut,
    kSf,
    kStack,
    kParent,
    kCategory
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
    if (s == "sf") return kSf;
    if (s == "stack") return kStack;
    if (s == "parent") return kParent;
    if (s == "category") return kCategory;
    return kNone;
}

// Whether the key at p (after its opening quote) is `lit`, closing quote included. The
// window's padding makes the few bytes past its end readable; they never match.
template <size_t N>
TS_JSON_INLINE bool is(const char* p, const char (&lit)[N]) {
    return std::memcmp(p, lit, N - 1) == 0;
}

bool isLiteral(char c) {
    return c == 't' || c == 'f' || c == 'n';
}

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
// n (1..8) ASCII digits at p as a number: the bytes read at once, moved up so that the
// missing leading digits are zero bytes, then combined pairwise (two, four, eight digits).
TS_JSON_INLINE uint64_t digitsValue8(const char* p, ptrdiff_t n) {
    uint64_t v;
    std::memcpy(&v, p, 8);
    v <<= 8 * (8 - n);
    v = (v & 0x0F0F0F0F0F0F0F0Full) * 2561 >> 8;
    v = (v & 0x00FF00FF00FF00FFull) * 6553601 >> 16;
    return (v & 0x0000FFFF0000FFFFull) * 42949672960001 >> 32;
}
#else
TS_JSON_INLINE uint64_t digitsValue8(const char* p, ptrdiff_t n) {
    uint64_t v = 0;
    for (ptrdiff_t i = 0; i < n; ++i) v = v * 10 + static_cast<uint64_t>(p[i] - '0');
    return v;
}
#endif

// microsToNs of the number [start, end) whose parts `n` describes, into ns: the same value,
// computed from the digits in place for plain decimals of up to 16 integer digits (all
// timestamps in practice), by microsToNs itself otherwise. (The value goes straight into the
// optional: returning one builds it in memory and reads it back whole, a stall per field.)
TS_JSON_INLINE void micros(const json::NumberShape& n, const char* start, const char* end,
                           std::optional<int64_t>& ns) {
    if (!n.plain || n.intLen > 16) [[unlikely]] {
        ns = microsToNs(std::string_view(start, static_cast<size_t>(end - start)));
        return;
    }
    const uint64_t whole = n.intLen <= 8 ? digitsValue8(n.digits, n.intLen)
                                         : digitsValue8(n.digits, n.intLen - 8) * 100000000 +
                                               digitsValue8(n.digits + n.intLen - 8, 8);
    // microsToNs refuses integer parts above INT64_MAX / 1000 - 1 (it stops at the 16th
    // digit when the first 15 are above a tenth of that, and checks the whole at the end)
    if (whole > INT64_MAX / 1000 - 1) [[unlikely]] {
        ns.reset();
        return;
    }
    const char* f = n.fraction;
    int64_t frac = 0;  // ns: the first three fraction digits, rounded by the fourth
    if (n.fracLen >= 3)
        frac =
            (f[0] - '0') * 100 + (f[1] - '0') * 10 + (f[2] - '0') + (n.fracLen > 3 && f[3] >= '5');
    else if (n.fracLen == 2)
        frac = (f[0] - '0') * 100 + (f[1] - '0') * 10;
    else if (n.fracLen == 1)
        frac = (f[0] - '0') * 100;
    const int64_t value = static_cast<int64_t>(whole) * 1000 + frac;
    ns = *start == '-' ? -value : value;
}

}  // namespace

// The value of the member whose key ends at k (past its closing quote): the colon, then
// the value into e's `field`. Inlined with a constant field for each known key.
TS_JSON_INLINE Status TraceEventParser::member(Scan& s, const char*& p, const char* k, int field,
                                               ChromeEvent& e) {
    p = json::skipWs(k);
    if (*p != ':') return s.fail(Error::ObjectMissColon, p, p);
    p = json::skipWs(p + 1);
    bool unused = false;
    switch (field) {
        case kPh:
            return text(s, p, e.ph, e.hasPh);
        case kName:
            return text(s, p, e.name, e.hasName);
        case kCat:
            return text(s, p, e.cat, unused);
        case kPid:
            return text(s, p, e.pid, e.hasPid);
        case kTid:
            return text(s, p, e.tid, e.hasTid);
        case kId:
            return text(s, p, e.id, e.hasId);
        case kBindId:
            return text(s, p, e.bindId, e.hasBindId);
        case kBp:
            return text(s, p, e.bp, unused);
        case kScope:
            return text(s, p, e.scope, unused);
        case kTs:
            return time(s, p, e.ts, e.hasTs, e.tsNs);
        case kDur:
            return time(s, p, e.dur, e.hasDur, e.durNs);
        case kArgs:
            return args(s, p, e);
        case kId2:
            return id2(s, p, e);
        case kFlowIn:
            return flag(s, p, e.flowIn);
        case kFlowOut:
            return flag(s, p, e.flowOut);
        case kSf:
            return text(s, p, e.sf, e.hasSf);
        case kParent:
            return text(s, p, e.parent, e.hasParent);
        case kCategory:
            return text(s, p, e.category, unused);
        case kStack:
            return raw(s, p, e.stack);
        default:
            return skip(s, p);
    }
}

// A member whose key (opening quote at p) is not a known one written plainly: an unknown
// key, flow_out, or a key written with escapes, which is compared unescaped.
Status TraceEventParser::otherMember(Scan& s, const char*& p, ChromeEvent& e) {
    const char* q = p + 1;
    const char* r = json::findStringSpecial(q);
    const char* after = r + 1;
    int field = kNone;
    if (*r == '"') {
        field = fieldOf(std::string_view(q, static_cast<size_t>(r - q)));
    } else {
        const Status st = json::scanStringSlow(s, q, r, after, &m_key);
        if (st != Status::Ok) return st;
        field = fieldOf(m_key);
    }
    return member(s, p, after, field, e);
}

// Any scalar as its text (strings unescaped, numbers and literals as written); an object or
// array leaves the field as it was.
TS_JSON_INLINE Status TraceEventParser::text(Scan& s, const char*& p, std::string& dst, bool& has) {
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

// ts and dur: a number or a string (Ascend writes "1704161511420306.491"), with its value
// in ns (microsToNs, computed from the digits just scanned when it is a plain decimal); true,
// false and null leave them as they were.
TS_JSON_INLINE Status TraceEventParser::time(Scan& s, const char*& p, std::string& dst, bool& has,
                                             std::optional<int64_t>& ns) {
    const char c = *p;
    if (isLiteral(c) || c == '{' || c == '[') return skip(s, p);
    const char* q = nullptr;
    if (c == '"') {
        const Status st = json::scanString(s, p + 1, q, &dst);
        if (st != Status::Ok) return st;
        ns = microsToNs(dst);
    } else {
        json::NumberShape shape;
        const Status st = json::scanNumber(s, p, q, &shape);
        if (st != Status::Ok) return st;
        dst.assign(p, static_cast<size_t>(q - p));
        micros(shape, p, q, ns);
    }
    has = true;
    p = q;
    return Status::Ok;
}

// flow_in / flow_out: true only for the literal true; another scalar makes it false.
TS_JSON_INLINE Status TraceEventParser::flag(Scan& s, const char*& p, bool& flag) {
    const char c = *p;
    if (c == '{' || c == '[') return skipContainer(s, p);
    const Status st = skip(s, p);
    if (st == Status::Ok) flag = c == 't';
    return st;
}

// id2: the object (or array) as its exact text, into id.
Status TraceEventParser::id2(Scan& s, const char*& p, ChromeEvent& e) {
    if (*p != '{' && *p != '[') return skip(s, p);
    const Status st = raw(s, p, e.id);
    if (st == Status::Ok) e.hasId = true;
    return st;
}

// An object or array as its exact text (id2, stack); a scalar is only checked.
Status TraceEventParser::raw(Scan& s, const char*& p, std::string& dst) {
    if (*p != '{' && *p != '[') return skip(s, p);
    const char* start = p;
    const Status st = skipContainer(s, p);
    if (st != Status::Ok) return st;
    dst.assign(start, static_cast<size_t>(p - start));
    return Status::Ok;
}

// The members of args (an object or an array), each checked; with Collect, numbers and
// strings at this level are kept (argValue). Nested values go to the skipper.
template <bool Collect>
Status TraceEventParser::members(Scan& s, const char*& p, ChromeEvent& e) {
    if constexpr (Collect) m_argKey.clear();  // an array's members have no key
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
            const Status st = json::scanString(s, p + 1, q, Collect ? &m_argKey : nullptr);
            if (st != Status::Ok) return st;
            p = json::skipWs(q);
            if (*p != ':') return s.fail(Error::ObjectMissColon, p, p);
            p = json::skipWs(p + 1);
        }
        const Status st = Collect ? argValue(s, p, e) : skip(s, p);
        if (st != Status::Ok) return st;
        p = json::skipWs(p);
        if (*p == ',') {
            p = json::skipWs(p + 1);
            if (*p == (object ? '}' : ']')) {  // a trailing comma
                m_trailing = true;
                ++p;
                return Status::Ok;
            }
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
TS_JSON_INLINE Status TraceEventParser::skip(Scan& s, const char*& p) {
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

// args: the object (or array) kept as its exact text; its top-level members collected when
// the builder needs them (counters read numbers, metadata strings), i.e. for C, M and c events
// and when "ph" has not been seen yet.
TS_JSON_INLINE Status TraceEventParser::args(Scan& s, const char*& p, ChromeEvent& e) {
    if (*p != '{' && *p != '[') return skip(s, p);
    const char* start = p;
    const bool collect =
        !e.hasPh || (e.ph.size() == 1 && (e.ph[0] == 'C' || e.ph[0] == 'M' || e.ph[0] == 'c'));
    m_trailing = false;
    const uint64_t trailing = m_skipper.trailingCommas();
    const Status st = collect ? members<true>(s, p, e) : members<false>(s, p, e);
    if (st != Status::Ok) return st;
    e.args.assign(start, static_cast<size_t>(p - start));
    e.argsTrailingCommas = m_trailing || m_skipper.trailingCommas() != trailing;
    return Status::Ok;
}

Status TraceEventParser::parse(Scan& s, const char* p, const char*& out, ChromeEvent& e,
                               int64_t offset) {
    e.clear();
    e.offset = offset;
    e.tsNs.reset();
    e.durNs.reset();
    p = json::skipWs(p + 1);
    if (*p != '}') {
        for (;;) {
            if (*p != '"') return s.fail(Error::ObjectMissName, p, p);
            // One dispatch per member, on the key's first letter, straight to the code for
            // its value; anything else goes the general way.
            const char* k = p + 1;
            Status st;
            switch (*k) {
                case 'p':
                    if (is(k, "ph\""))
                        st = member(s, p, k + 3, kPh, e);
                    else if (is(k, "pid\""))
                        st = member(s, p, k + 4, kPid, e);
                    else
                        st = otherMember(s, p, e);
                    break;
                case 'n':
                    st = is(k, "name\"") ? member(s, p, k + 5, kName, e) : otherMember(s, p, e);
                    break;
                case 'c':
                    st = is(k, "cat\"") ? member(s, p, k + 4, kCat, e) : otherMember(s, p, e);
                    break;
                case 't':
                    if (is(k, "ts\""))
                        st = member(s, p, k + 3, kTs, e);
                    else if (is(k, "tid\""))
                        st = member(s, p, k + 4, kTid, e);
                    else
                        st = otherMember(s, p, e);
                    break;
                case 'd':
                    st = is(k, "dur\"") ? member(s, p, k + 4, kDur, e) : otherMember(s, p, e);
                    break;
                case 'a':
                    st = is(k, "args\"") ? member(s, p, k + 5, kArgs, e) : otherMember(s, p, e);
                    break;
                case 'i':
                    if (is(k, "id\""))
                        st = member(s, p, k + 3, kId, e);
                    else if (is(k, "id2\""))
                        st = member(s, p, k + 4, kId2, e);
                    else
                        st = otherMember(s, p, e);
                    break;
                case 'b':
                    if (is(k, "bp\""))
                        st = member(s, p, k + 3, kBp, e);
                    else if (is(k, "bind_id\""))
                        st = member(s, p, k + 8, kBindId, e);
                    else
                        st = otherMember(s, p, e);
                    break;
                case 's':
                    st = is(k, "s\"") ? member(s, p, k + 2, kScope, e) : otherMember(s, p, e);
                    break;
                default:
                    st = otherMember(s, p, e);
                    break;
            }
            if (st != Status::Ok) return st;
            p = json::skipWs(p);
            if (*p == ',') {
                p = json::skipWs(p + 1);
                if (*p == '}') break;  // a trailing comma
                continue;
            }
            if (*p == '}') break;
            return s.fail(Error::ObjectMissCommaOrCurlyBracket, p, p);
        }
    }
    out = p + 1;
    return Status::Ok;
}

}  // namespace ts::importers::chrome
