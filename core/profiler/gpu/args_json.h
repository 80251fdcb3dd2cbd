#pragma once
// ArgsJson: the JSON object of a row's args, built in insertion order without a DOM (the
// GPU importers write one per kernel, so it stays a string append).
#include <cstdint>
#include <string>
#include <string_view>

namespace ts::profiler::gpu {

class ArgsJson {
public:
    ArgsJson& num(std::string_view key, int64_t v);
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

}  // namespace ts::profiler::gpu
