#pragma once
// The sub-command framework of trainscope-cli. Each sub-command lives in cmd_<name>.cpp and
// registers itself with TS_CLI_COMMAND. Every command gets --help and --json; with --json
// it prints exactly one JSON object on stdout, errors as {"error": "..."} plus exit 1.
#include <limits>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/common/json.h"

namespace ts::cli {

struct OptionSpec {
    std::string name;  // without dashes, e.g. "top"
    bool takesValue;   // --top 10 vs --flag
    std::string help;
    bool repeatable = false;
};

struct Args {
    std::vector<std::string> positional;
    std::map<std::string, std::vector<std::string>> options;
    std::vector<std::string> rest;  // everything after "--" (a command to run)
    bool json = false;

    bool has(const std::string& name) const { return options.count(name) != 0; }
    std::optional<std::string> value(const std::string& name) const;
    std::string valueOr(const std::string& name, const std::string& fallback) const;
    const std::vector<std::string>& values(const std::string& name) const;
};

using JsonWriter = json::Writer;
using json::finiteOrNull;
using json::kv;

/// Thrown by a command to report a user error (caught by the framework, printed as
/// {"error": ...} with --json, else on stderr; exit code 1 unless given).
struct CliError {
    std::string message;
    int exitCode = 1;
};

struct Command {
    std::string name;
    std::string summary;
    std::string usage;  // e.g. "SESSION [--json]"
    std::vector<OptionSpec> options;
    int (*run)(const Args& args);
    int minPositional = 0;
    int maxPositional = -1;     // -1 = any
    bool takesCommand = false;  // accepts "-- COMMAND [ARGS...]" (Args::rest)
};

void registerCommand(Command cmd);
const std::map<std::string, Command>& commands();

struct Registrar {
    explicit Registrar(Command cmd) { registerCommand(std::move(cmd)); }
};

/// What a number given to an option may be (options.cpp holds the one parser of numbers in
/// options: the whole text is the number, in C locale, nothing before or after it).
struct Bounds {
    double min = -std::numeric_limits<double>::infinity();
    double max = std::numeric_limits<double>::infinity();
    bool aboveMin = false;  // min itself is refused (e.g. seconds above 0)
    bool belowMax = false;  // max itself is refused (e.g. a weight in [0, 1))
    int exitCode = 1;       // of the error for a text that is not such a number
};

/// The values of an int.
inline constexpr Bounds kIntBounds{.min = std::numeric_limits<int>::min(),
                                   .max = std::numeric_limits<int>::max()};

/// Option `name` as an integer: an error naming the option when it is absent or not one.
int64_t intOption(const Args& args, const std::string& name);
/// Option `name` as an integer within `bounds`, `fallback` when absent; an error naming the
/// option, the bounds and the text when it is not such an integer.
int64_t intOption(const Args& args, const std::string& name, int64_t fallback, Bounds bounds);
/// Option `name` as a finite number within `bounds`, `fallback` when absent.
double numberOption(const Args& args, const std::string& name, double fallback, Bounds bounds = {});

/// Prints a finished JSON document on stdout followed by a newline.
void printJson(const rapidjson::StringBuffer& buf);

}  // namespace ts::cli

#define TS_CLI_CONCAT2(a, b) a##b
#define TS_CLI_CONCAT(a, b) TS_CLI_CONCAT2(a, b)
#define TS_CLI_COMMAND(...)                                                     \
    static ::ts::cli::Registrar TS_CLI_CONCAT(ts_cli_registrar_, __COUNTER__) { \
        ::ts::cli::Command {                                                    \
            __VA_ARGS__                                                         \
        }                                                                       \
    }
