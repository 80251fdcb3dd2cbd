// The one parser of numbers given to options (command.h): integers with std::from_chars,
// other numbers with std::strtod in the C locale; the whole text must be the number.
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "app/cli/command.h"

namespace ts::cli {
namespace {

std::string numberText(double v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%g", v);
    return buf;
}

/// " >= 1", " in [0, 1)", "" (no bounds): what the bounds allow, for the error.
std::string boundsText(const Bounds& b) {
    const bool lo = std::isfinite(b.min), hi = std::isfinite(b.max);
    if (lo && hi)
        return std::string(" in ") + (b.aboveMin ? "(" : "[") + numberText(b.min) + ", " +
               numberText(b.max) + (b.belowMax ? ")" : "]");
    if (lo) return std::string(b.aboveMin ? " > " : " >= ") + numberText(b.min);
    if (hi) return std::string(b.belowMax ? " < " : " <= ") + numberText(b.max);
    return {};
}

bool within(double v, const Bounds& b) {
    return (b.aboveMin ? v > b.min : v >= b.min) && (b.belowMax ? v < b.max : v <= b.max);
}

[[noreturn]] void refuse(const std::string& name, const char* what, const Bounds& b,
                         const std::string& text) {
    throw CliError{"--" + name + " needs " + what + boundsText(b) + ", got '" + text + "'",
                   b.exitCode};
}

}  // namespace

int64_t intOption(const Args& args, const std::string& name) {
    const std::string v = args.value(name).value_or("");
    int64_t n = 0;
    auto [p, ec] = std::from_chars(v.data(), v.data() + v.size(), n);
    if (v.empty() || ec != std::errc() || p != v.data() + v.size())
        refuse(name, "an integer", {}, v);
    return n;
}

int64_t intOption(const Args& args, const std::string& name, int64_t fallback, Bounds bounds) {
    const auto v = args.value(name);
    if (!v) return fallback;
    int64_t n = 0;
    auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
    if (v->empty() || ec != std::errc() || p != v->data() + v->size() ||
        !within(static_cast<double>(n), bounds))
        refuse(name, "an integer", bounds, *v);
    return n;
}

double numberOption(const Args& args, const std::string& name, double fallback, Bounds bounds) {
    const auto v = args.value(name);
    if (!v) return fallback;
    char* end = nullptr;
    errno = 0;
    const double d = std::strtod(v->c_str(), &end);
    if (v->empty() || end != v->c_str() + v->size() || errno == ERANGE || !std::isfinite(d) ||
        !within(d, bounds))
        refuse(name, "a number", bounds, *v);
    return d;
}

}  // namespace ts::cli
