// Every input that once crashed (or hung) a fuzz target, replayed through that target's body
// (tests/fuzz/regressions/<target>/*), and every target's seeds from the shared corpus
// (tests/fuzz/seeds/<target>.txt) and the project (tests/fuzz/seeds/<target>/*): the build's
// compiler and, in the sanitizer build, ASan and UBSan must find nothing.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/common/job_control.h"
#include "core/store/trace_store.h"
#include "importers/registry.h"
#include "tests/common/test_support.h"
#include "tests/fuzz/fuzz_bodies.h"

namespace fs = std::filesystem;

namespace ts::test {
namespace {

std::string readBytes(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

void replay(const fuzz::Target& t, const fs::path& file) {
    SCOPED_TRACE(std::string(t.name) + ": " + file.string());
    const std::string bytes = readBytes(file);
    t.run(reinterpret_cast<const uint8_t*>(bytes.data()), bytes.size());
}

std::vector<fs::path> filesIn(const fs::path& dir) {
    std::vector<fs::path> out;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return out;
    for (const auto& e : fs::directory_iterator(dir))
        if (e.is_regular_file() && e.path().filename() != "README.md") out.push_back(e.path());
    std::sort(out.begin(), out.end());
    return out;
}

TEST(FuzzRegressions, EveryTargetIsKnown) {
    EXPECT_EQ(fuzz::targets().size(), 18u);
    for (const auto& t : fuzz::targets()) {
        EXPECT_EQ(fuzz::findTarget(t.name), &t);
        EXPECT_TRUE(fs::exists(fs::path(TS_FUZZ_DIR) / "seeds" / (std::string(t.name) + ".txt")))
            << t.name << ": no seed list";
    }
}

TEST(FuzzRegressions, CrashInputsStayFixed) {
    int replayed = 0;
    for (const auto& t : fuzz::targets())
        for (const fs::path& f : filesIn(fs::path(TS_FUZZ_DIR) / "regressions" / t.name)) {
            replay(t, f);
            ++replayed;
        }
    std::printf("replayed %d regression inputs\n", replayed);
}

// A session made of a trace, as tests/fuzz/run_fuzz.sh makes the seeds of session_open.
fs::path sessionOf(const fs::path& trace) {
    const fs::path session = tempDir("fuzz_seed") / (trace.filename().string() + ".tscope");
    auto s = store::TraceStore::open(session.string(), store::TraceStore::Mode::Create);
    EXPECT_TRUE(s) << s.error();
    JobControl control;
    EXPECT_EQ(importers::importFile(trace.string(), *s.value(), control).status,
              ts::store::SourceStatus::Complete);
    return session;
}

TEST(FuzzRegressions, SeedsPassEveryTarget) {
    const fs::path project = fs::path(TS_FUZZ_DIR).parent_path().parent_path();
    for (const auto& t : fuzz::targets()) {
        for (const fs::path& f : filesIn(fs::path(TS_FUZZ_DIR) / "seeds" / t.name)) replay(t, f);
        std::ifstream list(fs::path(TS_FUZZ_DIR) / "seeds" / (std::string(t.name) + ".txt"));
        for (std::string line; std::getline(list, line);) {
            if (line.empty() || line[0] == '#') continue;
            const bool inProject = line.rfind("project:", 0) == 0;
            if (!inProject && corpusDir().empty()) continue;
            const fs::path f = inProject ? project / line.substr(8) : corpusFile(line);
            EXPECT_TRUE(fs::exists(f)) << t.name << ": " << line;
            if (!fs::exists(f)) continue;
            replay(t, std::string(t.name) == "session_open" ? sessionOf(f) : f);
        }
    }
}

}  // namespace
}  // namespace ts::test
