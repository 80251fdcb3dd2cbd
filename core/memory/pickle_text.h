#pragma once
// Text helpers of the pickle reader: UTF-8 checks, the quoted strings of protocol 0
// (STRING, UNICODE), latin-1 byte strings of protocol 2, and arbitrary-length integers
// (LONG1 / LONG4). No Qt.
#include <optional>
#include <string>
#include <string_view>

#include "core/memory/pickle_value.h"

namespace ts::memory::pickle {

bool validUtf8(std::string_view s);
/// Each code point of `utf8` as one byte; nullopt when one is above 255 or `utf8` is bad.
std::optional<std::string> utf8ToLatin1(std::string_view utf8);
/// A Python 2 repr of a byte string ('abc', "a'b", with \\ \' \" \n \t \r \xNN \ooo).
std::optional<std::string> unquotePythonString(std::string_view quoted);
/// Python's raw-unicode-escape (\uXXXX, \UXXXXXXXX, bytes as latin-1) to UTF-8.
std::optional<std::string> rawUnicodeEscape(std::string_view s);
/// A little-endian two's-complement integer: an Int when it fits in 64 bits, else a Float
/// (its nearest double).
Value littleEndianInteger(std::string_view bytes);

}  // namespace ts::memory::pickle
