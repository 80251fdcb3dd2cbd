#pragma once
// One Chrome Trace Event as the tokenizer hands it over: fields as raw text (numbers in
// their JSON spelling, so nothing is rounded), `args` as its whole JSON text. Reused from
// event to event, so its strings keep their capacity.
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace ts::importers::chrome {

struct ChromeEvent {
    /// What the object was: an element of the events array, a member of the top-level
    /// `stackFrames` object (its key in `id`), or an element of the top-level `samples`.
    enum class Kind : uint8_t { Event, StackFrame, Sample };
    Kind kind = Kind::Event;
    std::string ph, name, cat, pid, tid, id, bindId, bp, scope, ts, dur;
    /// Stacks: `sf` (a stackFrames key, on P events and samples), `parent` and `category`
    /// (of a stack frame), `stack` (a P event's array of frames, root first, as its text).
    std::string sf, parent, category, stack;
    bool hasPh = false, hasName = false, hasTs = false, hasDur = false, hasPid = false,
         hasTid = false, hasId = false, hasBindId = false, hasSf = false, hasParent = false;
    bool flowIn = false, flowOut = false;
    std::string args;  // "" when absent
    /// args holds a trailing comma (accepted by the tokenizer): not strict JSON as written.
    bool argsTrailingCommas = false;
    /// Top-level members of `args` that are numbers (for C) or strings (for M), raw text.
    std::vector<std::pair<std::string, std::string>> argNumbers, argStrings;
    size_t argNumberCount = 0, argStringCount = 0;
    int64_t offset = 0;  // byte offset of the event's '{' in the (decompressed) JSON
    /// ts and dur as integer ns (microsToNs), filled by the reader when the event is complete
    /// (so the parsing thread does it); nullopt when absent or not a number.
    std::optional<int64_t> tsNs, durNs;

    void clear();
    /// The value of string arg `key`, or nullptr.
    const std::string* argString(std::string_view key) const;
    const std::string* argNumber(std::string_view key) const;
};

/// Microseconds written as JSON number or decimal string ("12", "1.5", "1704161511420306.491",
/// "1e3") -> integer nanoseconds, exact for plain decimals (rounded half away from zero past
/// the ns digit). nullopt when it is not a number.
std::optional<int64_t> microsToNs(std::string_view text);

/// JSON text without the commas that stand right before a closing bracket (outside strings),
/// so that `{"a":1,}` is stored as `{"a":1}`.
std::string withoutTrailingCommas(std::string_view json);

}  // namespace ts::importers::chrome
