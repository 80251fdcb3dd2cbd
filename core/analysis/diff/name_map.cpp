#include "core/analysis/diff/name_map.h"

#include <algorithm>
#include <cctype>
#include <fstream>
#include <sstream>

#include "core/common/json_read.h"
#include "core/common/text.h"

namespace ts::analysis {
namespace {

bool isSeparator(char c) {
    switch (c) {
        case '-':
        case '_':
        case '.':
        case '#':
        case '/':
        case ':':
        case '[':
        case ']':
        case '(':
        case ')':
        case ',':
        case ' ':
            return true;
        default:
            return false;
    }
}

bool isDigit(char c) {
    return c >= '0' && c <= '9';
}

}  // namespace

std::string fuzzyName(std::string_view name) {
    std::string out;
    out.reserve(name.size());
    if (std::none_of(name.begin(), name.end(), isDigit)) {
        out.assign(name);
        return out;
    }
    size_t i = 0;
    while (i < name.size()) {
        if (!isDigit(name[i])) {
            out += name[i++];
            continue;
        }
        size_t end = i;
        while (end < name.size() && isDigit(name[end])) ++end;
        const bool before = i == 0 || isSeparator(name[i - 1]) ||
                            (i >= 2 && name[i - 2] == 'o' && name[i - 1] == 'p' &&
                             (i == 2 || isSeparator(name[i - 3])));
        const bool after = end == name.size() || isSeparator(name[end]);
        if (before && after)
            out += '#';
        else
            out.append(name.substr(i, end - i));
        i = end;
    }
    return out;
}

bool isCommunicationName(std::string_view name) {
    static constexpr std::string_view kWords[] = {
        "nccl",      "hccl",       "hcom",          "allreduce",      "all_reduce",
        "allgather", "all_gather", "reducescatter", "reduce_scatter", "broadcast",
        "alltoall",  "all_to_all", "c10d::",        "sendrecv",       "gloo"};
    thread_local std::string lower;  // no allocation per name once it has grown
    lower.assign(name);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    for (std::string_view w : kWords)
        if (lower.find(w) != std::string::npos) return true;
    return false;
}

Result<NameMap> NameMap::parse(std::string_view text) {
    NameMap map;
    auto addRule = [&map](const std::string& pattern, const std::string& name,
                          const std::string& where) -> Status {
        try {
            map.m_rules.push_back({pattern, name, std::regex(pattern, std::regex::ECMAScript)});
        } catch (const std::regex_error& e) {
            return Error{where + ": bad regular expression '" + pattern + "': " + e.what()};
        }
        return {};
    };
    const std::string_view body = asciiTrim(text);
    if (!body.empty() && body.front() == '{') {
        rapidjson::Document d;
        if (!ts::json::parse(d, body) || !d.IsObject())
            return Error{"op map: not a JSON object of \"REGEX\": \"NAME\""};
        for (auto it = d.MemberBegin(); it != d.MemberEnd(); ++it) {
            if (!it->value.IsString())
                return Error{std::string("op map: the name for '") + it->name.GetString() +
                             "' is not a string"};
            if (auto s = addRule(it->name.GetString(), it->value.GetString(), "op map"); !s)
                return Error{s.error()};
        }
        return map;
    }
    std::istringstream in{std::string(text)};
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
        ++number;
        const std::string_view l = asciiTrim(line);
        if (l.empty() || l.front() == '#') continue;
        const size_t arrow = l.find("->");
        const std::string where = "op map line " + std::to_string(number);
        if (arrow == std::string_view::npos)
            return Error{where + ": expected 'REGEX -> NAME', got '" + std::string(l) + "'"};
        const std::string pattern(asciiTrim(l.substr(0, arrow)));
        const std::string name(asciiTrim(l.substr(arrow + 2)));
        if (pattern.empty()) return Error{where + ": empty regular expression"};
        if (auto s = addRule(pattern, name, where); !s) return Error{s.error()};
    }
    return map;
}

Result<NameMap> NameMap::load(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Error{"cannot read op map " + path};
    std::ostringstream text;
    text << in.rdbuf();
    if (in.bad()) return Error{"cannot read op map " + path};
    auto m = parse(text.str());
    if (!m) return Error{path + ": " + m.error()};
    return m;
}

std::string NameMap::apply(std::string_view name, bool* matched) const {
    if (matched) *matched = false;
    const std::string s(name);
    for (const Rule& r : m_rules) {
        std::smatch m;
        if (!std::regex_search(s, m, r.re)) continue;
        if (matched) *matched = true;
        return m.format(r.replacement);
    }
    return s;
}

std::string NameKeys::mapped(const std::string& name) const {
    return m_map ? m_map->apply(name) : name;
}

uint32_t NameKeys::key(const std::string& name) {
    auto it = m_byName.find(name);
    if (it != m_byName.end()) return it->second;
    std::string k = mapped(name);
    if (m_fuzzy) k = fuzzyName(k);
    auto [kt, fresh] = m_byKey.emplace(k, static_cast<uint32_t>(m_texts.size()));
    if (fresh) m_texts.push_back(k);
    m_byName.emplace(name, kt->second);
    return kt->second;
}

}  // namespace ts::analysis
