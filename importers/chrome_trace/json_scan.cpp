// The rarer paths of json_scan.h: escapes, NaN/Infinity, and RapidJSON's "number too big"
// rule, reproduced step by step so that the same inputs are refused at the same offsets.
#include "importers/chrome_trace/json_scan.h"

namespace ts::importers::chrome::json {

const char* errorText(Error e) {
    switch (e) {
        case Error::None:
            return "No error.";
        case Error::DocumentEmpty:
            return "The document is empty.";
        case Error::ValueInvalid:
            return "Invalid value.";
        case Error::ObjectMissName:
            return "Missing a name for object member.";
        case Error::ObjectMissColon:
            return "Missing a colon after a name of object member.";
        case Error::ObjectMissCommaOrCurlyBracket:
            return "Missing a comma or '}' after an object member.";
        case Error::ArrayMissCommaOrSquareBracket:
            return "Missing a comma or ']' after an array element.";
        case Error::StringUnicodeEscapeInvalidHex:
            return "Incorrect hex digit after \\u escape in string.";
        case Error::StringUnicodeSurrogateInvalid:
            return "The surrogate pair in string is invalid.";
        case Error::StringEscapeInvalid:
            return "Invalid escape character in string.";
        case Error::StringMissQuotationMark:
            return "Missing a closing quotation mark in string.";
        case Error::NumberTooBig:
            return "Number too big to be stored in double.";
        case Error::NumberMissFraction:
            return "Miss fraction part in number.";
        case Error::NumberMissExponent:
            return "Miss exponent in number.";
    }
    return "Unknown error.";
}

namespace {

// Four hex digits at p into cp; false with p at the first byte that is not one.
bool hex4(const char*& p, unsigned& cp) {
    cp = 0;
    for (int i = 0; i < 4; ++i, ++p) {
        const char c = *p;
        unsigned v;
        if (c >= '0' && c <= '9')
            v = static_cast<unsigned>(c - '0');
        else if (c >= 'a' && c <= 'f')
            v = static_cast<unsigned>(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v = static_cast<unsigned>(c - 'A' + 10);
        else
            return false;
        cp = cp << 4 | v;
    }
    return true;
}

void appendUtf8(unsigned cp, std::string& dst) {
    if (cp <= 0x7F) {
        dst.push_back(static_cast<char>(cp));
    } else if (cp <= 0x7FF) {
        dst.push_back(static_cast<char>(0xC0 | (cp >> 6)));
        dst.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else if (cp <= 0xFFFF) {
        dst.push_back(static_cast<char>(0xE0 | (cp >> 12)));
        dst.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        dst.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    } else {
        dst.push_back(static_cast<char>(0xF0 | (cp >> 18)));
        dst.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
        dst.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
        dst.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
    }
}

char simpleEscape(char e) {
    switch (e) {
        case '"':
            return '"';
        case '\\':
            return '\\';
        case '/':
            return '/';
        case 'b':
            return '\b';
        case 'f':
            return '\f';
        case 'n':
            return '\n';
        case 'r':
            return '\r';
        case 't':
            return '\t';
        default:
            return 0;
    }
}

}  // namespace

Status decodeEscape(Scan& s, const char*& p, std::string* dst) {
    const char* escape = p;  // RapidJSON reports escape errors at the backslash
    if (const char c = simpleEscape(p[1])) {
        if (dst) dst->push_back(c);
        p += 2;
        return Status::Ok;
    }
    if (p[1] != 'u') return s.fail(Error::StringEscapeInvalid, escape, p + 1);
    const char* q = p + 2;
    unsigned cp = 0;
    if (!hex4(q, cp)) return s.fail(Error::StringUnicodeEscapeInvalidHex, escape, q);
    if (cp >= 0xD800 && cp <= 0xDBFF) {
        if (*q != '\\') return s.fail(Error::StringUnicodeSurrogateInvalid, escape, q);
        if (q[1] != 'u') return s.fail(Error::StringUnicodeSurrogateInvalid, escape, q + 1);
        q += 2;
        unsigned low = 0;
        if (!hex4(q, low)) return s.fail(Error::StringUnicodeEscapeInvalidHex, escape, q);
        // found after reading the four digits (q is past them)
        if (low < 0xDC00 || low > 0xDFFF)
            return s.fail(Error::StringUnicodeSurrogateInvalid, escape, q);
        cp = (((cp - 0xD800) << 10) | (low - 0xDC00)) + 0x10000;
    }
    if (dst) appendUtf8(cp, *dst);
    p = q;
    return Status::Ok;
}

Status scanStringSlow(Scan& s, const char* p, const char* q, const char*& out, std::string* dst) {
    if (dst) dst->assign(p, static_cast<size_t>(q - p));
    for (;;) {
        if (*q == '"') {
            out = q + 1;
            return Status::Ok;
        }
        if (*q == '\\') {
            const Status st = decodeEscape(s, q, dst);
            if (st != Status::Ok) return st;
        } else {  // a byte below 0x20: the end of the window, or not allowed in a string
            return s.fail(*q == '\0' ? Error::StringMissQuotationMark : Error::StringEscapeInvalid,
                          q, q);
        }
        const char* r = findStringSpecial(q);
        if (dst) dst->append(q, static_cast<size_t>(r - q));
        q = r;
    }
}

Status scanNanInf(Scan& s, const char*& p) {
    // RapidJSON: Consume('N') && Consume('a') && Consume('N'), else, from where that
    // stopped, Consume('I') && Consume('n') && Consume('f'), then "inity" if an 'i' follows.
    // (So it also takes "NInf" and "NaInf"; we take what it takes.)
    if (*p != 'N' && *p != 'I') return s.fail(Error::ValueInvalid, p, p);
    if (*p == 'N') {
        ++p;
        if (*p == 'a') {
            ++p;
            if (*p == 'N') {
                ++p;
                return Status::Ok;
            }
        }
    }
    if (*p == 'I') {
        ++p;
        if (*p == 'n') {
            ++p;
            if (*p == 'f') {
                ++p;
                if (*p == 'i') {
                    ++p;
                    for (const char* rest = "nity"; *rest; ++rest, ++p)
                        if (*p != *rest) return s.fail(Error::ValueInvalid, p, p);
                }
                return Status::Ok;
            }
        }
    }
    return s.fail(Error::ValueInvalid, p, p);
}

Status scanLongInteger(Scan& s, const char* start, const char* digits, const char*& p) {
    while (isDigit(*p)) ++p;
    if (p - digits > kLongInteger) {
        if (const char* bad = integerTooBig(digits, p, *start == '-'))
            return s.fail(Error::NumberTooBig, start, bad);
    }
    return Status::Ok;
}

Status scanExponent(Scan& s, const char* start, const char*& p) {
    ++p;
    const bool minus = *p == '-';
    if (*p == '+' || *p == '-') ++p;
    if (!isDigit(*p)) return s.fail(Error::NumberMissExponent, p, p);
    const char* digits = p;
    do ++p;
    while (isDigit(*p));
    if (!minus && p - digits >= 3) {  // below 309 it always fits
        if (const char* bad = exponentTooBig(start, p))
            return s.fail(Error::NumberTooBig, start, bad);
    }
    return Status::Ok;
}

namespace {

// RapidJSON's ParseNumber, integer part: 32-bit, then 64-bit, then double accumulation.
struct IntegerState {
    unsigned i = 0;
    uint64_t i64 = 0;
    bool use64 = false, useDouble = false;
    double d = 0;
    int significandDigit = 0;
    const char* tooBig = nullptr;  // where it stopped with "too big"
};

IntegerState integerPart(const char*& s, bool minus) {
    IntegerState r;
    r.i = static_cast<unsigned>(*s++ - '0');
    const unsigned limit = minus ? 214748364u : 429496729u;
    const char lastDigit = minus ? '8' : '5';
    while (isDigit(*s)) {
        if (r.i >= limit && (r.i != limit || *s > lastDigit)) {
            r.i64 = r.i;
            r.use64 = true;
            break;
        }
        r.i = r.i * 10 + static_cast<unsigned>(*s++ - '0');
        r.significandDigit++;
    }
    if (r.use64) {
        const uint64_t limit64 = minus ? 0x0CCCCCCCCCCCCCCCull : 0x1999999999999999ull;
        const char last64 = minus ? '8' : '5';
        while (isDigit(*s)) {
            if (r.i64 >= limit64 && (r.i64 != limit64 || *s > last64)) {
                r.d = static_cast<double>(r.i64);
                r.useDouble = true;
                break;
            }
            r.i64 = r.i64 * 10 + static_cast<unsigned>(*s++ - '0');
            r.significandDigit++;
        }
    }
    if (r.useDouble) {
        while (isDigit(*s)) {
            if (r.d >= 1.7976931348623157e307) {  // DBL_MAX / 10
                r.tooBig = s;
                return r;
            }
            r.d = r.d * 10 + (*s++ - '0');
        }
    }
    return r;
}

}  // namespace

const char* integerTooBig(const char* digits, const char* end, bool minus) {
    (void)end;  // the digits stop at the first non-digit, which is at `end`
    return integerPart(digits, minus).tooBig;
}

const char* exponentTooBig(const char* start, const char* end) {
    const char* s = start;
    const bool minus = *s == '-';
    s += minus;
    IntegerState r;
    if (*s == '0') {
        ++s;
    } else if (isDigit(*s)) {
        r = integerPart(s, minus);
        if (r.tooBig) return nullptr;  // the integer check reports this one
    } else {
        Scan any;
        any.end = end;
        any.eof = true;
        (void)scanNanInf(any, s);  // already checked: just steps over it
    }
    int expFrac = 0;
    if (*s == '.') {
        ++s;
        if (!r.useDouble) {
            if (!r.use64) r.i64 = r.i;
            while (isDigit(*s)) {
                if (r.i64 > 0x1FFFFFFFFFFFFFull) break;  // 2^53 - 1
                r.i64 = r.i64 * 10 + static_cast<unsigned>(*s++ - '0');
                --expFrac;
                if (r.i64 != 0) r.significandDigit++;
            }
            r.d = static_cast<double>(r.i64);
            r.useDouble = true;
        }
        while (isDigit(*s)) {
            if (r.significandDigit < 17) {
                r.d = r.d * 10.0 + (*s++ - '0');
                --expFrac;
                if (r.d > 0.0) r.significandDigit++;
            } else {
                ++s;
            }
        }
    }
    if ((*s | 0x20) != 'e') return nullptr;
    ++s;
    if (*s == '-') return nullptr;
    if (*s == '+') ++s;
    const int maxExp = 308 - expFrac;
    int exp = *s++ - '0';
    while (s < end && isDigit(*s)) {
        exp = exp * 10 + (*s++ - '0');
        if (exp > maxExp) return s;  // RapidJSON has taken that digit
    }
    return nullptr;
}

}  // namespace ts::importers::chrome::json
