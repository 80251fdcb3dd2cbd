#pragma once
// Names compared across two runs: a user's name map (regex -> name, for NPU against GPU
// kernel and op names, or PyTorch module names against MindSpore-style scopes) and the fuzzy
// form of a name, in which numbering does not count (MatMul-op12 ~ MatMul-op13). No Qt.
#include <cstdint>
#include <regex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "core/common/result.h"

namespace ts::analysis {

/// The fuzzy form of a name: every run of digits that follows a separator (- _ . # / : or
/// the letters "op" after one of them) and ends at a separator or the end is replaced by
/// '#'. "Default/fc1-Dense/MatMul-op12" -> "Default/fc1-Dense/MatMul-op#" (fc1 keeps its
/// digit: a letter precedes it), "layers.3.mlp" -> "layers.#.mlp", "Linear/0" -> "Linear/#",
/// "hcom_allReduce_2" -> "hcom_allReduce_#".
std::string fuzzyName(std::string_view name);

/// True for names of collective communication (NCCL, HCCL/hcom, AllReduce, AllGather,
/// ReduceScatter, Broadcast, AllToAll, c10d, SendRecv, gloo), case-insensitive.
bool isCommunicationName(std::string_view name);

/// Rules "REGEX -> NAME", tried in order; the first whose regex matches somewhere in the name
/// gives the new name: the match's format of NAME ($1, $2 ... refer to groups). A name no
/// rule matches stays as it is.
class NameMap {
public:
    /// Parses the rules, one per line: `REGEX -> NAME` (whitespace around "->" ignored);
    /// blank lines and lines starting with '#' are skipped. A JSON object
    /// {"REGEX": "NAME", ...} is accepted too. Errors name the line and the regex problem.
    static Result<NameMap> parse(std::string_view text);
    /// Reads and parses a file ("cannot read op map FILE" when it cannot be read).
    static Result<NameMap> load(const std::string& path);

    /// The mapped name; `matched` (optional) tells whether a rule applied.
    std::string apply(std::string_view name, bool* matched = nullptr) const;
    bool empty() const { return m_rules.empty(); }
    size_t size() const { return m_rules.size(); }

private:
    struct Rule {
        std::string pattern, replacement;
        std::regex re;
    };
    std::vector<Rule> m_rules;
};

/// Interns the alignment keys of names: fuzzyName(map.apply(name)) -> a small id shared by
/// both sides of a comparison, with the original texts kept for display.
class NameKeys {
public:
    explicit NameKeys(const NameMap* map = nullptr, bool fuzzy = true)
        : m_map(map), m_fuzzy(fuzzy) {}
    /// Id of the key of `name` (memoised per distinct name).
    uint32_t key(const std::string& name);
    const std::string& keyText(uint32_t id) const { return m_texts[id]; }
    /// The mapped (not fuzzy) form of `name`.
    std::string mapped(const std::string& name) const;

private:
    const NameMap* m_map;
    bool m_fuzzy;
    std::unordered_map<std::string, uint32_t> m_byName;
    std::unordered_map<std::string, uint32_t> m_byKey;
    std::vector<std::string> m_texts;
};

}  // namespace ts::analysis
