#pragma once
// The JSON kit: the one way TrainScope writes JSON. Documents go through RapidJSON's Writer
// with the helpers below (strings with their length, NaN/Inf as null, optional values as
// null); text built by hand (args objects of GPU rows, the profiler's trace events, the
// Chrome export, the crash recorder's signal-safe writer) escapes its strings with
// escapeByte()/appendQuoted(): '"' and '\\' get a backslash, newline, tab and carriage
// return become \n \t \r, every other control character below 0x20 \u00xx (lower-case
// hex), and nothing else changes. Reading JSON is RapidJSON's Reader / Document, or the
// Chrome importer's own tokenizer.
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ts::json {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

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

/// A string value with its length (so it may hold NUL bytes).
void str(Writer& w, std::string_view s);
/// A number, or null when it is NaN or infinite (JSON has no such numbers).
void finiteOrNull(Writer& w, double v);

/// A key and its value (the double one finite or null; an empty optional is null).
void kv(Writer& w, const char* key, std::string_view value);
void kv(Writer& w, const char* key, int64_t value);
void kv(Writer& w, const char* key, int value);
void kv(Writer& w, const char* key, uint64_t value);
void kv(Writer& w, const char* key, double value);
void kv(Writer& w, const char* key, const std::optional<int64_t>& value);
/// A key and an array of strings.
void kv(Writer& w, const char* key, const std::vector<std::string>& values);

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
