#include "core/run/scalar_lines.h"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdlib>

namespace ts::run {
namespace {

bool isNameChar(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
}

// Skips spaces, then `word` (case-insensitive); advances `s` past it.
bool eat(std::string_view& s, std::string_view word) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    if (s.size() < word.size()) return false;
    for (size_t i = 0; i < word.size(); ++i)
        if (std::tolower(static_cast<unsigned char>(s[i])) != word[i]) return false;
    s.remove_prefix(word.size());
    return true;
}

std::optional<int64_t> eatInt(std::string_view& s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec != std::errc() || p == s.data()) return std::nullopt;
    s.remove_prefix(static_cast<size_t>(p - s.data()));
    return v;
}

// A number as Python prints it: 0.52, 1e-05, nan, inf, -inf, also numpy's "[0.52]" and
// MindSpore's Tensor repr "Tensor(shape=[], dtype=Float32, value= 0.52)".
std::optional<double> parseNumberText(std::string_view s) {
    while (!s.empty() && (s.front() == ' ' || s.front() == '[' || s.front() == '('))
        s.remove_prefix(1);
    if (s.starts_with("Tensor")) {
        const size_t v = s.find("value=");
        if (v == std::string_view::npos) return std::nullopt;
        s.remove_prefix(v + 6);
        while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    }
    std::string text(s.substr(0, 64));
    char* end = nullptr;
    const double d = std::strtod(text.c_str(), &end);
    if (end == text.c_str()) return std::nullopt;
    return d;
}

}  // namespace

Result<ScalarRegex> ScalarRegex::compile(const std::string& pattern) {
    std::string plain;
    plain.reserve(pattern.size());
    std::vector<std::string> names;
    bool inClass = false;
    for (size_t i = 0; i < pattern.size(); ++i) {
        const char c = pattern[i];
        if (c == '\\' && i + 1 < pattern.size()) {
            plain += c;
            plain += pattern[++i];
            continue;
        }
        if (inClass) {
            if (c == ']') inClass = false;
            plain += c;
            continue;
        }
        if (c == '[') {
            inClass = true;
            plain += c;
            if (i + 1 < pattern.size() && pattern[i + 1] == '^') plain += pattern[++i];
            if (i + 1 < pattern.size() && pattern[i + 1] == ']') plain += pattern[++i];
            continue;
        }
        if (c == '(') {
            const std::string_view rest(pattern.data() + i + 1, pattern.size() - i - 1);
            size_t skip = 0;
            if (rest.starts_with("?P<"))
                skip = 3;
            else if (rest.starts_with("?<") && !rest.starts_with("?<=") && !rest.starts_with("?<!"))
                skip = 2;
            if (skip) {
                size_t n = skip;
                while (n < rest.size() && isNameChar(rest[n])) ++n;
                if (n == skip || n >= rest.size() || rest[n] != '>')
                    return Error{"a named group needs a name of letters, digits and _: '" +
                                 pattern + "'"};
                names.emplace_back(rest.substr(skip, n - skip));
                plain += '(';
                i += n + 1;
                continue;
            }
            if (!rest.starts_with("?")) names.emplace_back();
        }
        plain += c;
    }
    bool valueGroup = false;
    for (const std::string& n : names)
        if (!n.empty() && n != "step") valueGroup = true;
    if (!valueGroup)
        return Error{"the expression needs a named group for a value, e.g. (?P<loss>[0-9.eE+-]+)"};
    ScalarRegex r;
    try {
        r.m_re = std::make_shared<const std::regex>(plain,
                                                    std::regex::ECMAScript | std::regex::optimize);
    } catch (const std::regex_error& e) {
        return Error{"'" + pattern + "' is not a valid regular expression (" + e.what() + ")"};
    }
    r.m_names = std::move(names);
    return r;
}

std::optional<LossMonitorLine> parseLossMonitorLine(std::string_view line) {
    const size_t at = line.find("epoch");
    if (at == std::string_view::npos) return std::nullopt;
    std::string_view s = line.substr(at);
    LossMonitorLine out;
    if (!eat(s, "epoch")) return std::nullopt;
    if (!eat(s, ":")) return std::nullopt;
    auto e = eatInt(s);
    if (!e) return std::nullopt;
    eat(s, ",");
    if (!eat(s, "step") || !eat(s, ":")) return std::nullopt;
    auto st = eatInt(s);
    if (!st) return std::nullopt;
    eat(s, ",");
    if (!eat(s, "loss")) return std::nullopt;
    if (!eat(s, "is") && !eat(s, ":")) return std::nullopt;
    auto v = parseNumberText(s);
    if (!v) return std::nullopt;
    out.epoch = *e;
    out.step = *st;
    out.loss = *v;
    return out;
}

bool ScalarLineParser::parseLossMonitor(std::string_view line, std::vector<ScalarPoint>& out) {
    auto m = parseLossMonitorLine(line);
    if (!m) return false;
    if (m->epoch <= 1) m_maxStepEpoch1 = std::max(m_maxStepEpoch1, m->step);
    if (m->epoch > m_epoch) {
        if (m->epoch >= 2 && m_stepsPerEpoch == 0) m_stepsPerEpoch = m_maxStepEpoch1;
        m_epoch = m->epoch;
    }
    const int64_t global =
        m->epoch >= 2 && m_stepsPerEpoch > 0 ? (m->epoch - 1) * m_stepsPerEpoch + m->step : m->step;
    out.push_back({"train/loss", global, m->loss});
    return true;
}

void ScalarLineParser::parseUser(std::string_view line, std::vector<ScalarPoint>& out) {
    std::match_results<std::string_view::const_iterator> m;
    if (!std::regex_search(line.begin(), line.end(), m, m_user->regex())) return;
    const auto& names = m_user->names();
    std::optional<int64_t> step;
    std::vector<ScalarPoint> points;
    for (size_t g = 0; g < names.size() && g + 1 < m.size(); ++g) {
        if (names[g].empty() || !m[g + 1].matched) continue;
        const std::string_view text(&*m[g + 1].first, static_cast<size_t>(m[g + 1].length()));
        if (names[g] == "step") {
            std::string_view t = text;
            step = eatInt(t);
            continue;
        }
        auto v = parseNumberText(text);
        if (!v) continue;
        points.push_back({names[g] == "loss" ? "train/loss" : names[g], 0, *v});
    }
    for (ScalarPoint& p : points) {
        if (step) {
            p.step = *step;
        } else {
            auto it = std::find_if(m_counts.begin(), m_counts.end(),
                                   [&](const auto& c) { return c.first == p.tag; });
            if (it == m_counts.end()) it = m_counts.insert(m_counts.end(), {p.tag, 0});
            p.step = ++it->second;
        }
        out.push_back(std::move(p));
    }
}

std::vector<ScalarPoint> ScalarLineParser::parse(std::string_view line) {
    std::vector<ScalarPoint> out;
    if (m_user) {
        parseUser(line, out);
        if (!out.empty()) return out;
    }
    if (line.find("loss") != std::string_view::npos) parseLossMonitor(line, out);
    return out;
}

}  // namespace ts::run
