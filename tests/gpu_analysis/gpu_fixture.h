#pragma once
// Real traces imported once per test binary into sessions of their own, and the HTA
// reference (hta_reference.py, written from HTA's definitions) run on the same files.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <filesystem>
#include <map>
#include <memory>
#include <string>

#include "core/analysis/gpu/gpu_trace.h"
#include "tests/common/import_session.h"
#include "tests/common/test_support.h"

namespace ts::test {

/// The PyTorch 2.11 bf16 transformer trace from an H200 (tests/data/torch211_h200).
inline std::filesystem::path torch211Trace() {
    return std::filesystem::path(TRAINSCOPE_SOURCE_DIR) /
           "tests/data/torch211_h200/transformer_bf16_h200.pt.trace.json.gz";
}

/// A session with `file` imported (cached per path for the test binary's life).
inline store::TraceStore& importedSession(const std::filesystem::path& file) {
    static std::map<std::string, Imported> cache;
    auto it = cache.find(file.string());
    if (it == cache.end()) {
        const auto session = tempDir("gpu_an") / (file.filename().string() + ".tscope");
        it = cache.emplace(file.string(), importInto(session.string(), file.string())).first;
    }
    return *it->second.store;
}

/// The GPU trace of the first source of `file`'s session.
inline analysis::gpu::GpuTrace loadTrace(const std::filesystem::path& file) {
    auto& store = importedSession(file);
    auto sources = store.sources();
    EXPECT_TRUE(sources.ok() && !sources.value().empty());
    auto g = analysis::gpu::loadGpuTrace(store, sources.value().front().id);
    EXPECT_TRUE(g.ok()) << (g.ok() ? "" : g.error());
    return g.ok() ? std::move(g).value() : analysis::gpu::GpuTrace{};
}

/// hta_reference.py's JSON for `file` (Debian's python3, standard library only).
inline rapidjson::Document htaReference(const std::filesystem::path& file,
                                        const std::vector<std::string>& extra = {}) {
    std::vector<std::string> args = {
        std::string(TRAINSCOPE_SOURCE_DIR) + "/tests/gpu_analysis/hta_reference.py", file.string()};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = runProgram("/usr/bin/python3", args);
    rapidjson::Document doc;
    EXPECT_EQ(r.exitCode, 0) << r.err;
    doc.Parse(r.out.c_str());
    EXPECT_FALSE(doc.HasParseError()) << r.out;
    return doc;
}

}  // namespace ts::test
