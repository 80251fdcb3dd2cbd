#pragma once
// Reading JSON: the one way TrainScope parses JSON text (the Chrome importer's own tokenizer
// aside, which keeps nesting as bits on the heap). RapidJSON's reader runs iteratively, so no
// input recurses on the stack, and every document is refused past kMaxDepth levels of arrays
// and objects, so no reader of a parsed document (which may walk it recursively) meets a
// deeper one. Input comes from files, sessions, child processes and the network: a document
// nested 200,000 deep is an error here, never a stack overflow.
#include <rapidjson/document.h>
#include <rapidjson/encodedstream.h>
#include <rapidjson/error/en.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ts::json {

/// The deepest nesting of arrays and objects any parse accepts (a trace's args, a run
/// summary and a launch spec need a handful of levels).
inline constexpr unsigned kMaxDepth = 512;

/// How a parse ended: ok, or why not and where (a byte offset).
struct ParseResult {
    bool ok = false;
    std::string error;
    size_t offset = 0;
    explicit operator bool() const { return ok; }
    /// "<error> at offset <n>" ("" when ok).
    std::string message() const {
        return ok ? std::string() : error + " at offset " + std::to_string(offset);
    }
};

/// A SAX handler that forwards every event to `Inner` and stops the parse past kMaxDepth.
template <class Inner>
class DepthLimit {
public:
    using Ch = char;
    explicit DepthLimit(Inner& inner) : m_inner(inner) {}
    bool tooDeep() const { return m_tooDeep; }

    bool Null() { return m_inner.Null(); }
    bool Bool(bool b) { return m_inner.Bool(b); }
    bool Int(int i) { return m_inner.Int(i); }
    bool Uint(unsigned u) { return m_inner.Uint(u); }
    bool Int64(int64_t i) { return m_inner.Int64(i); }
    bool Uint64(uint64_t u) { return m_inner.Uint64(u); }
    bool Double(double d) { return m_inner.Double(d); }
    bool RawNumber(const Ch* s, rapidjson::SizeType n, bool copy) {
        return m_inner.RawNumber(s, n, copy);
    }
    bool String(const Ch* s, rapidjson::SizeType n, bool copy) {
        return m_inner.String(s, n, copy);
    }
    bool Key(const Ch* s, rapidjson::SizeType n, bool copy) { return m_inner.Key(s, n, copy); }
    bool StartObject() { return enter() && m_inner.StartObject(); }
    bool EndObject(rapidjson::SizeType members) {
        --m_depth;
        return m_inner.EndObject(members);
    }
    bool StartArray() { return enter() && m_inner.StartArray(); }
    bool EndArray(rapidjson::SizeType elements) {
        --m_depth;
        return m_inner.EndArray(elements);
    }

private:
    bool enter() {
        if (++m_depth <= kMaxDepth) return true;
        m_tooDeep = true;
        return false;
    }
    Inner& m_inner;
    unsigned m_depth = 0;
    bool m_tooDeep = false;
};

/// Parses `text` with a SAX `handler` (RapidJSON's handler concept), iteratively, refusing
/// nesting past kMaxDepth. `Flags`: RapidJSON's parse flags (kParseNumbersAsStringsFlag, ...).
template <unsigned Flags = rapidjson::kParseDefaultFlags, class Handler>
ParseResult parseSax(std::string_view text, Handler& handler) {
    rapidjson::MemoryStream ms(text.data(), text.size());
    rapidjson::EncodedInputStream<rapidjson::UTF8<>, rapidjson::MemoryStream> in(ms);
    DepthLimit<Handler> limited(handler);
    rapidjson::Reader reader;
    const rapidjson::ParseResult r =
        reader.Parse<Flags | rapidjson::kParseIterativeFlag>(in, limited);
    ParseResult out;
    out.ok = !r.IsError();
    if (out.ok) return out;
    out.offset = r.Offset();
    out.error = limited.tooDeep() ? "nested deeper than " + std::to_string(kMaxDepth) + " levels"
                                  : rapidjson::GetParseError_En(r.Code());
    return out;
}

/// A shape as compact text: [16,256,[3,4]] for nested arrays of integers (other members
/// skipped); "" when `v` is not an array. Tensor shapes in args and allocation records.
std::string shapeText(const rapidjson::Value& v);

/// Parses `text` into `doc`. On failure `doc` is null and the result says why.
template <unsigned Flags = rapidjson::kParseDefaultFlags>
ParseResult parse(rapidjson::Document& doc, std::string_view text) {
    ParseResult result;
    auto generate = [&](rapidjson::Document& handler) {
        result = parseSax<Flags>(text, handler);
        return result.ok;
    };
    doc.Populate(generate);
    if (!result.ok) doc.SetNull();
    return result;
}

}  // namespace ts::json
