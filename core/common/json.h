#pragma once
// The JSON kit: the one way TrainScope writes JSON. Documents go through RapidJSON's Writer
// with the helpers below (strings with their length, NaN/Inf as null, optional values as
// null); text built by hand (args objects of GPU rows, the profiler's trace events, the
// Chrome export, the crash recorder's signal-safe writer) escapes its strings with
// escapeByte()/appendQuoted(): '"' and '\\' get a backslash, newline, tab and carriage
// return become \n \t \r, every other control character below 0x20 \u00xx (lower-case
// hex), and nothing else changes. Text that is not valid UTF-8 (a BLOB cast to TEXT, a
// file name in another encoding) is written with U+FFFD for each byte that is not part of a
// valid sequence, by the Writer and by appendQuoted() alike, so the JSON TrainScope writes is
// always valid. Reading JSON is core/common/json_read.h (or the Chrome importer's own
// tokenizer).
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ts::json {

/// `s` when it is valid UTF-8; else a copy in `scratch` with U+FFFD for every byte that does
/// not belong to a valid sequence (overlong forms, surrogates and code points past U+10FFFF
/// are invalid), returned as a view of it.
std::string_view validUtf8(std::string_view s, std::string& scratch);

/// RapidJSON's own Writer: the helpers below take it (so code that declares one directly
/// uses them too) and make their strings valid UTF-8 themselves.
using RawWriter = rapidjson::Writer<rapidjson::StringBuffer>;

/// RapidJSON's Writer whose strings and keys are always valid UTF-8 (validUtf8()), however
/// they are written.
class Writer : public RawWriter {
public:
    using Base = RawWriter;
    using Base::Base;
    bool String(const char* s, rapidjson::SizeType n, bool copy = false);
    bool String(const char* s) { return String(s, static_cast<rapidjson::SizeType>(strlen(s))); }
    bool Key(const char* s, rapidjson::SizeType n, bool copy = false);
    bool Key(const char* s) { return Key(s, static_cast<rapidjson::SizeType>(strlen(s))); }

private:
    std::string m_scratch;
};

// ---- escaping, for JSON text built by hand

/// The bytes that stand for byte `c` inside a JSON string, written to `out` without
/// allocating (the crash recorder's signal handler uses it); returns how many: 1 (the byte
/// itself), 2 (\" \\ \n \t \r) or 6 (\u00xx for another control character below 0x20).
size_t escapeByte(unsigned char c, char out[6]);
/// Appends `s` as a JSON string, quotes included.
void appendQuoted(std::string& out, std::string_view s);
/// `s` as a JSON string, quotes included.
std::string quote(std::string_view s);

// ---- a Writer's values

/// A string value with its length (so it may hold NUL bytes), as valid UTF-8.
void str(RawWriter& w, std::string_view s);
/// A number, or null when it is NaN or infinite (JSON has no such numbers).
void finiteOrNull(RawWriter& w, double v);

/// A key and its value (the double one finite or null; an empty optional is null).
void kv(RawWriter& w, const char* key, std::string_view value);
void kv(RawWriter& w, const char* key, int64_t value);
void kv(RawWriter& w, const char* key, int value);
void kv(RawWriter& w, const char* key, uint64_t value);
void kv(RawWriter& w, const char* key, double value);
void kv(RawWriter& w, const char* key, const std::optional<int64_t>& value);
/// A key and an array of strings.
void kv(RawWriter& w, const char* key, const std::vector<std::string>& values);

// ---- args objects, built in insertion order without a DOM

/// The JSON object of a row's args (the GPU importers write one per kernel, so it stays a
/// string append).
class ArgsJson {
public:
    ArgsJson& num(std::string_view key, int64_t v);
    /// `v` with 17 significant digits, or null when it is NaN or infinite.
    ArgsJson& real(std::string_view key, double v);
    ArgsJson& str(std::string_view key, std::string_view v);
    ArgsJson& dims(std::string_view key, int64_t x, int64_t y, int64_t z);
    bool empty() const { return m_text.empty(); }
    /// The object text ("{}" when empty).
    std::string done() const { return m_text.empty() ? "{}" : m_text + "}"; }

private:
    void key(std::string_view k);
    std::string m_text;
};

}  // namespace ts::json
