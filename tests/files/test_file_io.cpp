// Files written whole and never over an input (core/common/file_io.h), and files read with
// bounds; the CLI's writers through them (issue 25, cases 1 and 2: `export S --chrome S`
// truncated the session, `export-onnx CKPT -o CKPT` overwrote the checkpoint).
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <future>

#include "core/common/file_io.h"
#include "core/store/trace_store.h"
#include "tests/common/test_support.h"

namespace fs = std::filesystem;
using ts::test::runCli;

namespace {

std::string readAll(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeText(const fs::path& p, const std::string& text) {
    std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
}

size_t entries(const fs::path& dir) {
    size_t n = 0;
    for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
    return n;
}

// A session with one imported source.
fs::path sessionWithATrace(const fs::path& dir) {
    writeText(dir / "t.json",
              R"({"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":5}]})");
    const fs::path session = dir / "s.tscope";
    auto r = runCli({"import", (dir / "t.json").string(), "-o", session.string()});
    EXPECT_EQ(r.exitCode, 0) << r.out << r.err;
    return session;
}

int64_t sourcesIn(const fs::path& session) {
    auto s = ts::store::TraceStore::open(session.string(), ts::store::TraceStore::Mode::ReadOnly);
    if (!s) return -1;
    return s.value()->db().queryInt("SELECT count(*) FROM sources").value();
}

}  // namespace

TEST(AtomicFile, CommitReplacesTheTargetAndLeavesNothingElse) {
    const fs::path dir = ts::test::tempDir("atomic_commit");
    writeText(dir / "out.txt", "old");
    ::chmod((dir / "out.txt").c_str(), 0640);
    auto f = ts::AtomicFile::create((dir / "out.txt").string());
    ASSERT_TRUE(f) << f.error();
    f.value().write("new contents");
    EXPECT_EQ(readAll(dir / "out.txt"), "old") << "the target changes only at commit";
    ASSERT_TRUE(f.value().commit());
    EXPECT_EQ(readAll(dir / "out.txt"), "new contents");
    EXPECT_EQ(entries(dir), 1u) << "no temporary file left";
    struct stat st {};
    ASSERT_EQ(::stat((dir / "out.txt").c_str(), &st), 0);
    EXPECT_EQ(st.st_mode & 0777, 0640u) << "the replaced file's mode is kept";
}

TEST(AtomicFile, AWriterThatDoesNotCommitLeavesTheOldFile) {
    const fs::path dir = ts::test::tempDir("atomic_abandon");
    writeText(dir / "out.txt", "old");
    {
        auto f = ts::AtomicFile::create((dir / "out.txt").string());
        ASSERT_TRUE(f) << f.error();
        f.value().write("half of it");
    }  // an error, a throw: destroyed without commit
    EXPECT_EQ(readAll(dir / "out.txt"), "old");
    EXPECT_EQ(entries(dir), 1u);
}

TEST(AtomicFile, ALinkIsWrittenThroughAndAnInputIsRefused) {
    const fs::path dir = ts::test::tempDir("atomic_link");
    writeText(dir / "real.txt", "old");
    fs::create_symlink(dir / "real.txt", dir / "link.txt");
    ASSERT_TRUE(ts::writeFileAtomically((dir / "link.txt").string(), "through"));
    EXPECT_TRUE(fs::is_symlink(dir / "link.txt"));
    EXPECT_EQ(readAll(dir / "real.txt"), "through");
    // The same file under another name (a link, a path with ..) is the input.
    const std::string viaDots = (dir / "sub" / ".." / "real.txt").string();
    fs::create_directories(dir / "sub");
    auto s = ts::writeFileAtomically((dir / "link.txt").string(), "x", {viaDots});
    ASSERT_FALSE(s);
    EXPECT_NE(s.error().find("is the input"), std::string::npos) << s.error();
    EXPECT_EQ(readAll(dir / "real.txt"), "through");
}

TEST(ReadRegularFile, RefusesWhatIsNotARegularFileInsideTheFolder) {
    const fs::path dir = ts::test::tempDir("read_bounded");
    const fs::path outside = ts::test::tempDir("read_bounded_outside") / "secret.txt";
    writeText(outside, "secret");
    writeText(dir / "ok.txt", "fine");
    fs::create_symlink(outside, dir / "escape.txt");
    fs::create_symlink("/dev/zero", dir / "zero.txt");
    ASSERT_EQ(::mkfifo((dir / "fifo.txt").c_str(), 0600), 0);
    writeText(dir / "big.txt", std::string(2000, 'x'));
    const std::string d = dir.string();
    EXPECT_EQ(ts::readRegularFile((dir / "ok.txt").string(), 100, "file", d).value(), "fine");
    auto escape = ts::readRegularFile((dir / "escape.txt").string(), 100, "file", d);
    ASSERT_FALSE(escape);
    EXPECT_NE(escape.error().find("outside the folder"), std::string::npos) << escape.error();
    // A FIFO with no writer would block a plain open forever: refused at once.
    auto fifo = std::async(std::launch::async, [&] {
        return ts::readRegularFile((dir / "fifo.txt").string(), 100, "file");
    });
    ASSERT_EQ(fifo.wait_for(std::chrono::seconds(20)), std::future_status::ready);
    auto fifoResult = fifo.get();
    ASSERT_FALSE(fifoResult);
    EXPECT_NE(fifoResult.error().find("not a regular file"), std::string::npos);
    auto zero = ts::readRegularFile((dir / "zero.txt").string(), 100, "file");
    ASSERT_FALSE(zero);
    EXPECT_NE(zero.error().find("not a regular file"), std::string::npos) << zero.error();
    auto big = ts::readRegularFile((dir / "big.txt").string(), 1000, "file", d);
    ASSERT_FALSE(big);
    EXPECT_NE(big.error().find("2000 bytes, more than the 1000"), std::string::npos) << big.error();
}

TEST(CliWriters, ExportRefusesToWriteOverItsSession) {
    const fs::path dir = ts::test::tempDir("export_self");
    const fs::path session = sessionWithATrace(dir);
    const std::string before = readAll(session);
    fs::create_symlink(session, dir / "link.json");
    for (const fs::path& out : {session, dir / "link.json"}) {
        auto r = runCli({"export", session.string(), "--chrome", out.string(), "--json"});
        EXPECT_EQ(r.exitCode, 1) << out << ": " << r.out;
        EXPECT_NE(r.out.find("is the input"), std::string::npos) << r.out;
        EXPECT_EQ(sourcesIn(session), 1) << "the session is intact";
    }
    EXPECT_TRUE(readAll(session) == before) << "the session changed";
    // Another output works, and a failed one leaves no temporary file behind.
    auto ok = runCli({"export", session.string(), "--chrome", (dir / "out.json").string()});
    EXPECT_EQ(ok.exitCode, 0) << ok.out << ok.err;
    EXPECT_NE(readAll(dir / "out.json").find("\"traceEvents\""), std::string::npos);
    for (const auto& e : fs::directory_iterator(dir))
        EXPECT_EQ(e.path().filename().string().find(".tmp"), std::string::npos) << e.path();
}

TEST(CliWriters, ExportOnnxRefusesToWriteOverItsCheckpoint) {
    const fs::path dir = ts::test::tempDir("onnx_self");
    auto t = runCli({"train", "--model", "mlp", "--dataset", "synthetic", "--synthetic-samples",
                     "64", "--batch-size", "16", "--limit-steps", "2", "--eval-limit", "16",
                     "--checkpoint-dir", (dir / "ckpt").string(), "-o", (dir / "s.tscope").string(),
                     "--json"});
    ASSERT_EQ(t.exitCode, 0) << t.out << t.err;
    std::string ckpt;
    for (const auto& e : fs::directory_iterator(dir / "ckpt"))
        if (e.path().extension() == ".ckpt") ckpt = e.path().string();
    ASSERT_FALSE(ckpt.empty());
    const std::string before = readAll(ckpt);
    auto r = runCli({"export-onnx", ckpt, "--model", "mlp", "-o", ckpt, "--json"});
    EXPECT_NE(r.exitCode, 0) << r.out;
    EXPECT_NE(r.out.find("is the input"), std::string::npos) << r.out;
    EXPECT_TRUE(readAll(ckpt) == before) << "the checkpoint changed";
    auto ok = runCli({"export-onnx", ckpt, "--model", "mlp", "-o", (dir / "m.onnx").string()});
    EXPECT_EQ(ok.exitCode, 0) << ok.out << ok.err;
}

TEST(CliWriters, ImportRefusesTheSessionAsOneOfItsFiles) {
    const fs::path dir = ts::test::tempDir("import_self");
    const fs::path session = sessionWithATrace(dir);
    auto r = runCli({"import", session.string(), "-o", session.string(), "--json"});
    EXPECT_EQ(r.exitCode, 1) << r.out;
    EXPECT_NE(r.out.find("is the session being imported into"), std::string::npos) << r.out;
    EXPECT_EQ(sourcesIn(session), 1);
}
