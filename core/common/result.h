#pragma once
// Result<T>: a value or an error message, for core APIs that must not throw across
// their boundary (std::expected is C++23; this is the small subset we need).
#include <string>
#include <utility>
#include <variant>

namespace ts {

struct Error {
    std::string message;
};

template <class T>
class [[nodiscard]] Result {
public:
    Result(T value) : m_v(std::in_place_index<0>, std::move(value)) {}
    Result(Error e) : m_v(std::in_place_index<1>, std::move(e)) {}

    bool ok() const { return m_v.index() == 0; }
    explicit operator bool() const { return ok(); }
    T& value() & { return std::get<0>(m_v); }
    T value() && { return std::get<0>(std::move(m_v)); }
    const T& value() const& { return std::get<0>(m_v); }
    T* operator->() { return &std::get<0>(m_v); }
    T& operator*() & { return std::get<0>(m_v); }
    const std::string& error() const { return std::get<1>(m_v).message; }

private:
    std::variant<T, Error> m_v;
};

/// Result of an operation with no value.
class Status {
public:
    Status() = default;
    Status(Error e) : m_error(std::move(e.message)), m_failed(true) {}
    static Status success() { return {}; }
    bool ok() const { return !m_failed; }
    explicit operator bool() const { return ok(); }
    const std::string& error() const { return m_error; }

private:
    std::string m_error;
    bool m_failed = false;
};

}  // namespace ts
