// trainscope-cli: headless access to everything the studio does with data.
#include <charconv>
#include <cmath>
#include <cstdio>
#include <iostream>

#include "app/cli/command.h"

namespace ts::cli {

std::optional<std::string> Args::value(const std::string& name) const {
    auto it = options.find(name);
    if (it == options.end() || it->second.empty()) return std::nullopt;
    return it->second.back();
}

std::string Args::valueOr(const std::string& name, const std::string& fallback) const {
    return value(name).value_or(fallback);
}

const std::vector<std::string>& Args::values(const std::string& name) const {
    static const std::vector<std::string> none;
    auto it = options.find(name);
    return it == options.end() ? none : it->second;
}

static std::map<std::string, Command>& registry() {
    static std::map<std::string, Command> r;
    return r;
}

void registerCommand(Command cmd) {
    registry()[cmd.name] = std::move(cmd);
}
const std::map<std::string, Command>& commands() {
    return registry();
}

void printJson(const rapidjson::StringBuffer& buf) {
    std::fwrite(buf.GetString(), 1, buf.GetSize(), stdout);
    std::fputc('\n', stdout);
    std::fflush(stdout);
}

}  // namespace ts::cli

using namespace ts::cli;

namespace {

void printUsage(const Command& c) {
    std::cout << "usage: trainscope-cli " << c.name << " " << c.usage << "\n\n"
              << c.summary << "\n\noptions:\n";
    for (const OptionSpec& o : c.options)
        std::cout << "  --" << o.name << (o.takesValue ? " VALUE" : "") << "\n      " << o.help
                  << "\n";
    std::cout << "  --json\n      print one JSON object on stdout (errors as {\"error\": ...})\n"
              << "  --help\n      show this help\n";
}

void printTopUsage() {
    std::cout << "usage: trainscope-cli COMMAND [ARGS] [--json]\n\n"
                 "TrainScope's headless interface. Commands:\n";
    for (const auto& [name, c] : commands()) {
        std::string pad(name.size() < 10 ? 10 - name.size() : 1, ' ');
        std::cout << "  " << name << pad << c.summary << "\n";
    }
    std::cout << "\nRun 'trainscope-cli COMMAND --help' for a command's options.\n";
}

int fail(bool json, const std::string& msg, int code) {
    if (json) {
        rapidjson::StringBuffer buf;
        JsonWriter w(buf);
        w.StartObject();
        kv(w, "error", msg);
        w.EndObject();
        printJson(buf);
    } else {
        std::cerr << "trainscope-cli: error: " << msg << "\n";
    }
    return code;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> raw(argv + 1, argv + argc);
    bool json = false;
    for (const auto& a : raw) {
        if (a == "--") break;  // what follows is a command to run, with its own options
        if (a == "--json") json = true;
    }
    if (raw.empty() || raw[0] == "--help" || raw[0] == "-h" || raw[0] == "help") {
        printTopUsage();
        return raw.empty() ? 2 : 0;
    }
    if (raw[0] == "--version") {
        std::cout << "trainscope-cli " << TRAINSCOPE_VERSION << "\n";
        return 0;
    }
    auto it = commands().find(raw[0]);
    if (it == commands().end()) return fail(json, "unknown command '" + raw[0] + "'", 2);
    const Command& cmd = it->second;

    Args args;
    args.json = json;
    for (size_t i = 1; i < raw.size(); ++i) {
        const std::string& a = raw[i];
        if (a == "--") {
            if (!cmd.takesCommand)
                return fail(json, "'" + cmd.name + "' takes no command after --", 2);
            args.rest.assign(raw.begin() + static_cast<std::ptrdiff_t>(i) + 1, raw.end());
            break;
        }
        if (a == "--json") continue;
        if (a == "--help" || a == "-h") {
            printUsage(cmd);
            return 0;
        }
        if (a.size() > 2 && a.rfind("--", 0) == 0) {
            std::string name = a.substr(2), value;
            bool inlineValue = false;
            if (auto eq = name.find('='); eq != std::string::npos) {
                value = name.substr(eq + 1);
                name = name.substr(0, eq);
                inlineValue = true;
            }
            const OptionSpec* spec = nullptr;
            for (const auto& o : cmd.options)
                if (o.name == name) spec = &o;
            if (!spec) return fail(json, "unknown option --" + name + " for '" + cmd.name + "'", 2);
            if (spec->takesValue && !inlineValue) {
                if (i + 1 >= raw.size())
                    return fail(json, "option --" + name + " needs a value", 2);
                value = raw[++i];
            }
            args.options[name].push_back(value);
        } else if (a == "-o") {
            if (i + 1 >= raw.size()) return fail(json, "option -o needs a value", 2);
            args.options["output"].push_back(raw[++i]);
        } else {
            args.positional.push_back(a);
        }
    }
    const int n = static_cast<int>(args.positional.size());
    if (n < cmd.minPositional || (cmd.maxPositional >= 0 && n > cmd.maxPositional))
        return fail(json, "usage: trainscope-cli " + cmd.name + " " + cmd.usage, 2);
    try {
        return cmd.run(args);
    } catch (const CliError& e) {
        return fail(json, e.message, e.exitCode);
    } catch (const std::exception& e) {
        return fail(json, std::string("internal error: ") + e.what(), 3);
    }
}
