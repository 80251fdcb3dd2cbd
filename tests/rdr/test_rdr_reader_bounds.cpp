// `rdr DIR` reads only the regular files of the export folder, each within a size of its kind
// (issue 25, case 5: a link to /dev/zero was read for ever, a FIFO blocked, a link out of the
// folder was followed). Through the CLI with a watchdog, so a read that blocks fails the test
// instead of hanging it.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/common/test_support.h"

namespace fs = std::filesystem;

namespace {

// The files of tests/fuzz/seeds/rdr/op_exception.rdr (joined with "\n--8<--\n", in the order
// the fuzz body splits them).
fs::path exportFolder(const std::string& tag) {
    static const char* const kFiles[] = {"rdr_index.json", "exec_order.txt", "memory_alloc.txt",
                                         "log_tail.txt",   "run_state.txt",  "graph_0.ir"};
    std::ifstream in(fs::path(TRAINSCOPE_SOURCE_DIR) / "tests/fuzz/seeds/rdr/op_exception.rdr",
                     std::ios::binary);
    const std::string text(std::istreambuf_iterator<char>(in), {});
    const fs::path dir = ts::test::tempDir(tag) / "rdr";
    fs::create_directories(dir);
    size_t at = 0;
    for (const char* name : kFiles) {
        size_t end = text.find("\n--8<--\n", at);
        if (end == std::string::npos) end = text.size();
        std::ofstream(dir / name, std::ios::binary) << text.substr(at, end - at);
        at = std::min(text.size(), end + 8);
    }
    return dir;
}

// `rdr DIR --json` under a 60 s watchdog (timeout(1) exits 124 when it fires).
ts::test::CommandResult rdrJson(const fs::path& dir) {
    return ts::test::runProgram("/usr/bin/timeout",
                                {"60", ts::test::cliPath(), "rdr", dir.string(), "--json"});
}

}  // namespace

TEST(RdrReaderBounds, LinksFifosAndHugeFilesAreRefusedNotRead) {
    const fs::path dir = exportFolder("rdr_bounds");
    auto clean = rdrJson(dir);
    ASSERT_EQ(clean.exitCode, 0) << clean.out << clean.err;

    const fs::path outside = ts::test::tempDir("rdr_bounds_outside") / "secret.txt";
    std::ofstream(outside) << "not the export's\n";
    fs::remove(dir / "log_tail.txt");
    fs::create_symlink("/dev/zero", dir / "log_tail.txt");
    fs::remove(dir / "exec_order.txt");
    ASSERT_EQ(::mkfifo((dir / "exec_order.txt").c_str(), 0600), 0);
    fs::remove(dir / "graph_0.ir");
    fs::create_symlink(outside, dir / "graph_0.ir");
    fs::resize_file(dir / "memory_alloc.txt", uint64_t{300} << 20);  // sparse: no disk used

    auto r = rdrJson(dir);
    ASSERT_EQ(r.exitCode, 0) << "exit " << r.exitCode << " (124: it blocked)\n" << r.out << r.err;
    rapidjson::Document d;
    d.Parse(r.out.c_str());
    ASSERT_TRUE(d.IsObject()) << r.out;
    EXPECT_STREQ(d["failing_op"].GetString(), "MatMul");
    std::string problems;
    for (const auto& p : d["problems"].GetArray()) problems += std::string(p.GetString()) + "\n";
    EXPECT_NE(problems.find("log_tail.txt: refusing to read"), std::string::npos) << problems;
    EXPECT_NE(problems.find("exec_order.txt: refusing to read"), std::string::npos) << problems;
    EXPECT_NE(problems.find("graph_0.ir: refusing to read"), std::string::npos) << problems;
    EXPECT_NE(problems.find("outside the folder"), std::string::npos) << problems;
    EXPECT_NE(problems.find("memory_alloc.txt: refusing to read"), std::string::npos) << problems;
    EXPECT_EQ(r.out.find("not the export's"), std::string::npos) << "the outside file was read";
}

TEST(RdrReaderBounds, AnIndexThatLeadsOutOfTheFolderIsAnError) {
    const fs::path dir = exportFolder("rdr_bounds_index");
    const fs::path outside = ts::test::tempDir("rdr_bounds_index_outside") / "rdr_index.json";
    fs::copy_file(dir / "rdr_index.json", outside);
    fs::remove(dir / "rdr_index.json");
    fs::create_symlink(outside, dir / "rdr_index.json");
    auto r = rdrJson(dir);
    EXPECT_EQ(r.exitCode, 1) << r.out;
    EXPECT_NE(r.out.find("outside the folder"), std::string::npos) << r.out;
}
