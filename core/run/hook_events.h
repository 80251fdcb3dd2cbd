#pragma once
// The events the Python package of command runs writes (JSON lines, one file per process;
// the contract is in docs/RUNS.md): what a PyTorch script did that its output does not
// say — its steps, the loss backward() ran on, the traces its profiler wrote, the dumps
// and NaN/Inf findings of its hooks, and a stop it asked for.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace ts::run {

struct HookEvent {
    enum class Type { Hello, Warning, Step, Scalar, Trace, DumpFile, Overflow, Stop };
    Type type = Type::Hello;
    int64_t ts = 0;    // Unix ns (0: not given)
    int64_t step = 0;  // step, scalar, dump_file (-1: the whole run), overflow
    // hello
    int64_t pid = 0, rank = 0, worldSize = 1;
    std::string python, torch;  // torch "" when it could not be imported
    std::vector<std::string> features;
    // warning, stop: message / reason; scalar: tag; trace, dump_file: path
    std::string text;
    double value = 0;  // scalar
    // overflow
    std::string op, scope, tensor;
    int64_t seqid = -1;
    uint64_t nan = 0, posinf = 0, neginf = 0;
};

/// One event from one line; nullopt with `error` set for a line that is not a known event
/// (bad JSON, unknown type, a field of the wrong type, a required field missing).
std::optional<HookEvent> parseHookEvent(std::string_view line, std::string* error = nullptr);

}  // namespace ts::run
