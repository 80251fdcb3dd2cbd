// JsonSkipper: a state machine over the tokens of one value, in the order RapidJSON's Reader
// checks them (whitespace, then the expected byte), so errors come out at the same offsets.
#include "importers/chrome_trace/json_skipper.h"

namespace ts::importers::chrome::json {

Status JsonSkipper::run(Scan& s, const char* p, const char*& next) {
    for (;;) {
        switch (m_expect) {
            case Expect::InString:
            case Expect::InKey: {
                for (;;) {
                    const char* q = findStringSpecial(p);
                    if (*q == '"') {
                        p = q + 1;
                        break;
                    }
                    next = q;
                    if (*q == '\\') {  // an escape is taken whole, so resume at its backslash
                        const Status st = decodeEscape(s, q, nullptr);
                        if (st != Status::Ok) return st;
                        p = q;
                        continue;
                    }
                    if (q >= s.end && !s.eof) return Status::NeedMore;  // resume mid-string
                    return s.fail(
                        *q == '\0' ? Error::StringMissQuotationMark : Error::StringEscapeInvalid, q,
                        q);
                }
                if (m_expect == Expect::InKey) {
                    m_expect = Expect::Colon;
                    continue;
                }
                break;  // a string value ended
            }
            case Expect::Colon:
                p = skipWs(p);
                if (*p != ':') {
                    next = p;
                    return s.fail(Error::ObjectMissColon, p, p);
                }
                ++p;
                m_expect = Expect::Value;
                [[fallthrough]];
            case Expect::Value: {
                p = skipWs(p);
                next = p;
                const char c = *p;
                if (c == '{') {
                    push(true);
                    ++p;
                    m_expect = Expect::FirstInObject;
                    continue;
                }
                if (c == '[') {
                    push(false);
                    ++p;
                    m_expect = Expect::FirstInArray;
                    continue;
                }
                if (c == '"') {
                    ++p;
                    m_expect = Expect::InString;
                    continue;
                }
                const char* q = nullptr;
                const Status st =
                    (c == 't' || c == 'f' || c == 'n') ? scanLiteral(s, p, q) : scanNumber(s, p, q);
                if (st != Status::Ok) return st;
                p = q;
                break;  // a scalar ended
            }
            case Expect::FirstInObject:
            case Expect::Key:  // (the state stays as it is until the byte is known)
                p = skipWs(p);
                if (*p == '}') {  // an empty object, or one with a trailing comma, ended
                    if (m_expect == Expect::Key) ++m_trailingCommas;
                    ++p;
                    --m_depth;
                    break;
                }
                if (*p != '"') {
                    next = p;
                    return s.fail(Error::ObjectMissName, p, p);
                }
                ++p;
                m_expect = Expect::InKey;
                continue;
            case Expect::FirstInArray:
            case Expect::NextInArray:
                p = skipWs(p);
                if (*p == ']') {  // an empty array, or one with a trailing comma, ended
                    if (m_expect == Expect::NextInArray) ++m_trailingCommas;
                    ++p;
                    --m_depth;
                    break;
                }
                if (p >= s.end && !s.eof) {  // ']' may come next
                    next = p;
                    return Status::NeedMore;
                }
                m_expect = Expect::Value;
                continue;
            case Expect::AfterValue: {
                p = skipWs(p);
                const bool object = inObject();
                if (*p == ',') {
                    ++p;
                    m_expect = object ? Expect::Key : Expect::NextInArray;
                    continue;
                }
                if (*p == (object ? '}' : ']')) {
                    ++p;
                    --m_depth;
                    break;  // a container ended
                }
                next = p;
                return s.fail(object ? Error::ObjectMissCommaOrCurlyBracket
                                     : Error::ArrayMissCommaOrSquareBracket,
                              p, p);
            }
        }
        // A value ended at p.
        if (m_depth == 0) {
            next = p;
            return Status::Ok;
        }
        m_expect = Expect::AfterValue;
    }
}

}  // namespace ts::importers::chrome::json
