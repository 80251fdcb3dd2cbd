#pragma once
// Building blocks of the trace JSON tokenizer (trace_json_tokenizer.h): whitespace, strings,
// numbers and literals scanned over a contiguous window of the document, with the error
// codes, texts and offsets of RapidJSON's Reader (kParseNanAndInfFlag), which the importer
// used before.
//
// The window ends with a NUL sentinel at `end`, followed by kPadding readable bytes, so the
// 16-byte SSE2 loads and the short compares of known keys may run past the data. A NUL met
// at `end` means "the data stops here": when more will come (not eof) a token cut there is
// incomplete, not wrong, and the scanners answer NeedMore; a NUL before `end` is a NUL byte
// of the file.
#include <cstddef>
#include <cstdint>
#include <string>

#ifdef __SSE2__
#include <emmintrin.h>
#endif

namespace ts::importers::chrome::json {

inline constexpr size_t kPadding = 64;

#define TS_JSON_INLINE inline __attribute__((always_inline))

/// RapidJSON's parse errors (the ones its Reader can give with our flags).
enum class Error : uint8_t {
    None,
    DocumentEmpty,
    ValueInvalid,
    ObjectMissName,
    ObjectMissColon,
    ObjectMissCommaOrCurlyBracket,
    ArrayMissCommaOrSquareBracket,
    StringUnicodeEscapeInvalidHex,
    StringUnicodeSurrogateInvalid,
    StringEscapeInvalid,
    StringMissQuotationMark,
    NumberTooBig,
    NumberMissFraction,
    NumberMissExponent
};

/// The English text RapidJSON's GetParseError_En gives for the same error.
const char* errorText(Error e);

enum class Status : uint8_t { Ok, NeedMore, Failed };

/// The window being parsed, and the error found in it.
struct Scan {
    const char* end = nullptr;  // first byte past the data; *end == '\0'
    bool eof = false;           // no data follows `end`
    Error error = Error::None;
    const char* errorAt = nullptr;    // the offset RapidJSON reports
    const char* errorSeen = nullptr;  // where the parser stood when it found the error

    /// An error found while looking at `seen`. When `seen` is the end of a window that more
    /// data will extend, the text so far is only incomplete: NeedMore.
    Status fail(Error e, const char* at, const char* seen) {
        if (seen >= end && !eof) return Status::NeedMore;
        error = e;
        errorAt = at;
        errorSeen = seen;
        return Status::Failed;
    }
};

inline bool isDigit(char c) {
    return static_cast<unsigned char>(c - '0') < 10;
}
inline bool isWs(char c) {
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/// The first byte at or after p that is not JSON whitespace (the sentinel stops it).
TS_JSON_INLINE const char* skipWs(const char* p) {
    if (static_cast<unsigned char>(*p) > ' ' || !isWs(*p)) return p;
    ++p;
    if (!isWs(*p)) return p;  // one space or newline: the common case
#ifdef __SSE2__
    const __m128i sp = _mm_set1_epi8(' '), nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'),
                  tab = _mm_set1_epi8('\t');
    for (;;) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const __m128i ws =
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, sp), _mm_cmpeq_epi8(v, nl)),
                         _mm_or_si128(_mm_cmpeq_epi8(v, cr), _mm_cmpeq_epi8(v, tab)));
        const unsigned other = ~static_cast<unsigned>(_mm_movemask_epi8(ws)) & 0xFFFFu;
        if (other) return p + __builtin_ctz(other);
        p += 16;
    }
#else
    while (isWs(*p)) ++p;
    return p;
#endif
}

/// The first '"', '\\' or byte below 0x20 at or after p (the sentinel stops it).
TS_JSON_INLINE const char* findStringSpecial(const char* p) {
#ifdef __SSE2__
    const __m128i quote = _mm_set1_epi8('"'), backslash = _mm_set1_epi8('\\'),
                  ctl = _mm_set1_epi8(0x1F);
    for (;;) {
        const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
        const __m128i hit =
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, quote), _mm_cmpeq_epi8(v, backslash)),
                         _mm_cmpeq_epi8(_mm_min_epu8(v, ctl), v));  // v <= 0x1F, unsigned
        const unsigned m = static_cast<unsigned>(_mm_movemask_epi8(hit));
        if (m) return p + __builtin_ctz(m);
        p += 16;
    }
#else
    for (;; ++p) {
        const unsigned char c = static_cast<unsigned char>(*p);
        if (c == '"' || c == '\\' || c < 0x20) return p;
    }
#endif
}

/// One escape sequence at p ('\\'): appends what it stands for to *dst (when given) and
/// moves p past it. \uXXXX becomes UTF-8, a surrogate pair one code point; like RapidJSON, a
/// high surrogate must be followed by a low one, and a lone low one is encoded as it is.
Status decodeEscape(Scan& s, const char*& p, std::string* dst);

/// The rest of a string whose first special byte q is not its closing quote.
Status scanStringSlow(Scan& s, const char* p, const char* q, const char*& out, std::string* dst);

/// A string whose opening quote is just before p: its unescaped text into *dst (when
/// given), `out` past the closing quote.
TS_JSON_INLINE Status scanString(Scan& s, const char* p, const char*& out, std::string* dst) {
    const char* q = findStringSpecial(p);
    if (*q == '"') [[likely]] {
        if (dst) dst->assign(p, static_cast<size_t>(q - p));
        out = q + 1;
        return Status::Ok;
    }
    return scanStringSlow(s, p, q, out, dst);
}

/// NaN, Inf or Infinity at p (the integer part of a number), as RapidJSON takes them.
Status scanNanInf(Scan& s, const char*& p);

/// Where RapidJSON's Reader finds an integer part too big for a double (it gives up when
/// the value passes DBL_MAX / 10 with digits left), or nullptr. [digits, end) are the digits.
const char* integerTooBig(const char* digits, const char* end, bool minus);

/// Where RapidJSON's Reader finds a positive exponent too big (past 308 minus the fraction
/// digits it kept), or nullptr. [start, end) is a number already checked up to its exponent.
const char* exponentTooBig(const char* start, const char* end);

/// Integer parts longer than this get RapidJSON's too-big check (a double overflows past
/// ~308 digits).
inline constexpr ptrdiff_t kLongInteger = 300;

/// The digits of an integer part after its first 16 (p is past those), and the too-big check.
Status scanLongInteger(Scan& s, const char* start, const char* digits, const char*& p);

/// An exponent at p ('e' or 'E'), p moved past it; `start` is the number's first byte.
Status scanExponent(Scan& s, const char* start, const char*& p);

/// How many of the 16 bytes at p are ASCII digits before the first that is not (16: all).
TS_JSON_INLINE int leadingDigits(const char* p) {
#ifdef __SSE2__
    // '0'..'9' minus ('0' + 128) land on -128..-119, every other byte above -119 (signed)
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i t = _mm_sub_epi8(v, _mm_set1_epi8(static_cast<char>('0' + 128)));
    const __m128i digit = _mm_cmplt_epi8(t, _mm_set1_epi8(-118));
    return __builtin_ctz(~static_cast<unsigned>(_mm_movemask_epi8(digit)));
#else
    int n = 0;
    while (n < 16 && isDigit(p[n])) ++n;
    return n;
#endif
}

/// Where a number's digits are, for turning it into a value without reading it again.
struct NumberShape {
    const char* digits = nullptr;  // the integer part
    ptrdiff_t intLen = 0;
    const char* fraction = nullptr;  // the digits after '.'
    ptrdiff_t fracLen = 0;
    bool plain = false;  // digits and an optional fraction only (no exponent, NaN, Inf)
};

/// scanNumber for any number: digit runs measured 16 bytes at a time, the rare forms
/// (NaN/Inf, exponents, very long integers) out of line.
TS_JSON_INLINE Status scanNumberInParts(Scan& s, const char* p, const char*& out,
                                        NumberShape* shape) {
    const char* start = p;
    p += *p == '-';
    const char* digits = p;
    bool plain = true;
    if (const int n = leadingDigits(p); n == 0) [[unlikely]] {
        const Status st = scanNanInf(s, p);
        if (st != Status::Ok) return st;
        plain = false;
    } else if (*p == '0') {
        ++p;  // "01" is the number 0 followed by something else
    } else {
        p += n;
        if (n == 16 && isDigit(*p)) [[unlikely]] {
            const Status st = scanLongInteger(s, start, digits, p);
            if (st != Status::Ok) return st;
        }
    }
    const char* intEnd = p;
    const char* fraction = p;
    if (*p == '.') {
        fraction = ++p;
        const int n = leadingDigits(p);
        if (n == 0) return s.fail(Error::NumberMissFraction, p, p);
        p += n;
        if (n == 16) [[unlikely]]
            while (isDigit(*p)) ++p;
    }
    const char* fracEnd = p;
    if ((*p | 0x20) == 'e') [[unlikely]] {
        const Status st = scanExponent(s, start, p);
        if (st != Status::Ok) return st;
        plain = false;
    }
    if (p >= s.end && !s.eof) [[unlikely]]
        return Status::NeedMore;  // more digits may follow
    if (shape) {
        shape->digits = digits;
        shape->intLen = intEnd - digits;
        shape->fraction = fraction;
        shape->fracLen = fracEnd - fraction;
        shape->plain = plain;
    }
    out = p;
    return Status::Ok;
}

/// A number at p (JSON grammar plus RapidJSON's NaN/Inf/Infinity), `out` past it. The
/// number's text is [p, out); `shape`, when given, says where its parts are.
TS_JSON_INLINE Status scanNumber(Scan& s, const char* p, const char*& out,
                                 NumberShape* shape = nullptr) {
#ifdef __SSE2__
    // The usual number, an optional '-', digits and at most one '.' between digits, all
    // within 16 bytes, is checked from two masks of one load: no loop, no dependent reads.
    const __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m128i t = _mm_sub_epi8(v, _mm_set1_epi8(static_cast<char>('0' + 128)));
    const unsigned digit =
        static_cast<unsigned>(_mm_movemask_epi8(_mm_cmplt_epi8(t, _mm_set1_epi8(-118))));
    const unsigned dot =
        static_cast<unsigned>(_mm_movemask_epi8(_mm_cmpeq_epi8(v, _mm_set1_epi8('.'))));
    const unsigned minus = *p == '-';
    const unsigned body = (digit | dot) >> minus;  // from the first digit on
    const unsigned len = __builtin_ctz(~body);     // digits and dots, then something else
    const unsigned dots = (dot >> minus) & ((1u << len) - 1);
    const unsigned dotAt = __builtin_ctz(dots | (1u << len));  // len when there is none
    const char* first = p + minus;
    const char* end = first + len;
    if (((digit >> minus) & 1) && (dots & (dots - 1)) == 0 && (dots == 0 || dotAt + 1 < len) &&
        (first[0] != '0' || len == 1 || dotAt == 1) && (*end | 0x20) != 'e' && minus + len < 16 &&
        (end < s.end || s.eof)) [[likely]] {
        if (shape) {
            shape->digits = first;
            shape->intLen = dotAt;
            shape->fraction = first + dotAt + 1;
            shape->fracLen = dots ? len - dotAt - 1 : 0;
            shape->plain = true;
        }
        out = end;
        return Status::Ok;
    }
#endif
    return scanNumberInParts(s, p, out, shape);
}

/// true, false or null at p (its first letter is already known to be t, f or n).
TS_JSON_INLINE Status scanLiteral(Scan& s, const char* p, const char*& out) {
    const char* word = *p == 't' ? "true" : *p == 'f' ? "false" : "null";
    size_t i = 1;
    for (; word[i]; ++i)
        if (p[i] != word[i]) return s.fail(Error::ValueInvalid, p + i, p + i);
    out = p + i;
    return Status::Ok;
}

}  // namespace ts::importers::chrome::json
