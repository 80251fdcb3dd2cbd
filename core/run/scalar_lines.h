#pragma once
// Scalars from the lines a training command prints, for the live curves of a command run:
//   - MindSpore's LossMonitor (and the engine's own):  "epoch: 1 step: 100, loss is 0.52"
//     -> train/loss. The step there counts within the epoch; the global step is
//     (epoch - 1) * steps per epoch + step, with steps per epoch learnt as the largest step
//     printed in epoch 1 (exact when LossMonitor prints every step, its default).
//   - a user's regular expression with named groups, `(?P<name>...)` or `(?<name>...)`:
//     `step` is the step, `loss` becomes train/loss, any other name a tag of that name.
//     Without a step group, each tag counts its own matches (1, 2, ...).
// Pure; one parser per stream of lines.
#include <cstdint>
#include <memory>
#include <optional>
#include <regex>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/result.h"

namespace ts::run {

struct ScalarPoint {
    std::string tag;
    int64_t step = 0;
    double value = 0;
};

/// A std::regex (ECMAScript) compiled from a pattern with named groups.
class ScalarRegex {
public:
    /// Errors: the pattern does not compile, or it has no named group besides `step`.
    static Result<ScalarRegex> compile(const std::string& pattern);
    const std::regex& regex() const { return *m_re; }
    /// Group names by capture index (1-based; "" for unnamed groups).
    const std::vector<std::string>& names() const { return m_names; }

private:
    std::shared_ptr<const std::regex> m_re;
    std::vector<std::string> m_names;
};

class ScalarLineParser {
public:
    ScalarLineParser() = default;
    explicit ScalarLineParser(std::optional<ScalarRegex> user) : m_user(std::move(user)) {}

    /// The scalars `line` holds (most lines hold none; cheap for those).
    std::vector<ScalarPoint> parse(std::string_view line);

private:
    bool parseLossMonitor(std::string_view line, std::vector<ScalarPoint>& out);
    void parseUser(std::string_view line, std::vector<ScalarPoint>& out);

    std::optional<ScalarRegex> m_user;
    // LossMonitor's epoch bookkeeping.
    int64_t m_epoch = 0;
    int64_t m_stepsPerEpoch = 0;  // learnt when epoch 2 starts
    int64_t m_maxStepEpoch1 = 0;
    // Counts per tag of a user regex without a step group.
    std::vector<std::pair<std::string, int64_t>> m_counts;
};

/// Parses "epoch: E step: S, loss is L" (also "epoch: E, step: S, loss is L" and
/// "epoch: E step: S loss is L"); nullopt when the line is not one.
struct LossMonitorLine {
    int64_t epoch = 0, step = 0;
    double loss = 0;
};
std::optional<LossMonitorLine> parseLossMonitorLine(std::string_view line);

}  // namespace ts::run
