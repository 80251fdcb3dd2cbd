#pragma once
// JsonSkipper: steps over one JSON value of any size and nesting, checking it as RapidJSON's
// Reader would (same errors, same offsets; a trailing comma before a closing bracket is
// accepted, as kParseTrailingCommasFlag does), without keeping any of it. Resumable: when the
// window ends inside the value it says where to go on from once more data is there, so a
// huge value (a `stackFrames` object, a `systemTraceEvents` string) never has to be held.
// The nesting is a bit per level on the heap, not recursion, so no depth can crash it.
#include <cstdint>
#include <vector>

#include "importers/chrome_trace/json_scan.h"

namespace ts::importers::chrome::json {

class JsonSkipper {
public:
    /// Starts a value: the next byte that is not whitespace begins it.
    void begin() {
        m_expect = Expect::Value;
        m_depth = 0;
    }
    /// Skips from p. Ok: the value ended, `next` is the byte after it. NeedMore: the window
    /// ended inside it; go on with run() from `next` (bytes before it are not needed again)
    /// once the window holds more. Failed: s.error says why.
    Status run(Scan& s, const char* p, const char*& next);
    /// Trailing commas stepped over so far (a value that had one is not strict JSON).
    uint64_t trailingCommas() const { return m_trailingCommas; }

private:
    enum class Expect : uint8_t {
        Value,          // a value (after ':' or ',' in an array, or at the start)
        FirstInArray,   // after '[': a value or ']'
        FirstInObject,  // after '{': a key or '}'
        Key,            // after ',' in an object: a key or '}'
        NextInArray,    // after ',' in an array: a value or ']'
        Colon,          // after a key
        AfterValue,     // after a value in a container: ',' or the closing bracket
        InString,       // inside a string value
        InKey           // inside a key
    };
    void push(bool object) {
        const size_t word = m_depth / 64, bit = m_depth % 64;
        if (word == m_objects.size()) m_objects.push_back(0);
        if (object)
            m_objects[word] |= uint64_t{1} << bit;
        else
            m_objects[word] &= ~(uint64_t{1} << bit);
        ++m_depth;
    }
    bool inObject() const { return (m_objects[(m_depth - 1) / 64] >> ((m_depth - 1) % 64)) & 1; }

    Expect m_expect = Expect::Value;
    size_t m_depth = 0;
    uint64_t m_trailingCommas = 0;
    std::vector<uint64_t> m_objects;  // bit d set: level d is an object
};

}  // namespace ts::importers::chrome::json
