#pragma once
// What each fuzz target does with one input: the reader it exercises, reached the way the CLI
// reaches it (STYLE.md 11). Shared by the libFuzzer targets (fuzz_main.cpp, clang builds
// with -DTRAINSCOPE_FUZZ=ON) and by the regression test that replays every input that once
// crashed one (tests/robustness/test_fuzz_regressions.cpp, every build). A crash, a
// sanitizer report or a hang is a finding; a refused input is not.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace ts::fuzz {

struct Target {
    const char* name;  // tests/fuzz/seeds/<name>.txt, tests/fuzz/regressions/<name>/
    void (*run)(const uint8_t* data, size_t size);
};

/// Every target, by name.
const std::vector<Target>& targets();
const Target* findTarget(const std::string& name);

}  // namespace ts::fuzz
