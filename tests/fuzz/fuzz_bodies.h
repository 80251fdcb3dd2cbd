#pragma once
// What each fuzz target does with one input: the reader it exercises, reached the way the CLI
// reaches it (STYLE.md 11). Shared by the libFuzzer targets (fuzz_main.cpp, clang builds
// with -DTRAINSCOPE_FUZZ=ON) and by the regression test that replays every input that once
// crashed one (tests/robustness/test_fuzz_regressions.cpp, every build). A crash, a
// sanitizer report or a hang is a finding; a refused input is not.
#include <cstddef>
#include <cstdint>
#include <filesystem>
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

// What the bodies share (fuzz_bodies.cpp).
/// A folder of this process for the files the readers need (they read paths).
const std::filesystem::path& scratch();
/// Writes the input as scratch()/name.
std::filesystem::path writeInput(const std::string& name, const uint8_t* data, size_t size);
/// Imports `file` with the importer `name` into this process's session and removes the
/// source again, so no input sees another's rows.
void importWith(const char* name, const std::filesystem::path& file);

// The bodies of the MindSpore formats (fuzz_bodies_mindspore.cpp).
void mindsporeSummary(const uint8_t* data, size_t size);  // summary file + value decoders
void mindsporeLineage(const uint8_t* data, size_t size);  // lineage file
void npyFile(const uint8_t* data, size_t size);           // NumPy .npy reader
void msdumpFolder(const uint8_t* data, size_t size);      // dump iteration folder
void msRdrFolder(const uint8_t* data, size_t size);       // MindSpore RDR folder

}  // namespace ts::fuzz
