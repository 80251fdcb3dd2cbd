#pragma once
// Helpers shared by the tests: where the corpus and the CLI are, temp folders, running
// the CLI and reading its JSON.
#include <filesystem>
#include <string>
#include <vector>

namespace ts::test {

/// ../shared/corpus (TRAINSCOPE_CORPUS), or "" when absent; use TS_REQUIRE_CORPUS() to skip.
std::filesystem::path corpusDir();
/// Path of a corpus file, relative to the corpus root.
std::filesystem::path corpusFile(const std::string& rel);
/// A fresh empty folder under the system temp dir, removed at process exit.
std::filesystem::path tempDir(const std::string& tag);
/// The trainscope-cli binary (TRAINSCOPE_CLI).
std::string cliPath();

struct CommandResult {
    int exitCode = -1;
    std::string out;  // stdout
    std::string err;  // stderr
};
/// Runs the CLI with `args` (no shell), capturing stdout and stderr.
CommandResult runCli(const std::vector<std::string>& args);
/// Runs `exe` with `args` (no shell) and without the environment variables `unset`,
/// capturing stdout and stderr.
CommandResult runProgram(const std::string& exe, const std::vector<std::string>& args,
                         const std::vector<std::string>& unset = {});

/// True while process `pid` runs (a zombie waiting for its parent to reap it counts as ended).
bool processRunning(int pid);

}  // namespace ts::test

#define TS_REQUIRE_CORPUS()                                                          \
    do {                                                                             \
        if (::ts::test::corpusDir().empty())                                         \
            GTEST_SKIP() << "shared corpus not found (set TRAINSCOPE_CORPUS or put " \
                            "../shared/corpus beside the project)";                  \
    } while (0)
