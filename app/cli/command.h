#pragma once
// The sub-command framework of trainscope-cli. Each sub-command lives in cmd_<name>.cpp and
// registers itself with TS_CLI_COMMAND. Every command gets --help and --json; with --json
// it prints exactly one JSON object on stdout, errors as {"error": "..."} plus exit 1.
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

/// The integer value of option `name`: an error naming the option when it is not one.
int64_t intOption(const Args& args, const std::string& name);

/// Prints a finished JSON document on stdout followed by a newline.
void printJson(const rapidjson::StringBuffer& buf);

}  // namespace ts::cli

#define TS_CLI_CONCAT2(a, b) a##b
#define TS_CLI_CONCAT(a, b) TS_CLI_CONCAT2(a, b)
#define TS_CLI_COMMAND(...)                                                  \
    static ::ts::cli::Registrar TS_CLI_CONCAT(ts_cli_registrar_, __LINE__) { \
        ::ts::cli::Command {                                                 \
            __VA_ARGS__                                                      \
        }                                                                    \
    }
