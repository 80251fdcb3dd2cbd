// Imports and runs whose process died, a full disk and read-only media (issue 25):
//  11 read-only opens (info, query, the studio) show a killed import and a killed run as
//     interrupted, and write nothing;
//  14 after a kill, a source's counts are its committed rows, and no args are left that
//     nothing refers to;
//  16 a killed run ends at its last activity, not when a later open found it, and its steps
//     are the ones it recorded;
//  12 an import that fills the disk keeps nothing, and the session stays writable;
//  13 a session on read-only media is read (immutable), not called damaged.
// The killed writers are child processes that commit and then _exit() without closing.
#include <gtest/gtest.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/common/clock.h"
#include "core/common/job_control.h"
#include "core/run/run_summary.h"
#include "core/store/scalar_writer.h"
#include "core/store/store_writer.h"
#include "core/store/trace_store.h"
#include "importers/registry.h"
#include "tests/common/test_support.h"

namespace fs = std::filesystem;
using ts::store::TraceStore;

namespace {

constexpr int kArgs = 5000;   // args the killed import committed
constexpr int kSlices = 300;  // slices it committed, referring to the first kSlices args
constexpr int kSteps = 819;   // steps the killed run recorded
constexpr int64_t kStepNs = 1'000'000;

struct Killed {
    int64_t lastScalarNs = 0;
};

// A child that imports and trains into `path`, commits, and dies without closing either.
Killed killWriters(const std::string& path) {
    int fds[2];
    EXPECT_EQ(::pipe(fds), 0);
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::close(fds[0]);
        auto s = TraceStore::open(path, TraceStore::Mode::ReadWrite).value();
        const int64_t src = s->beginSource("killed.json", "chrome_json").value();
        {
            ts::store::StoreWriter w(*s, src, 1 << 30);
            const int64_t p = w.addProcess("1");
            const int64_t t = w.addTrack("thread", p, w.addThread(p, "1"), "t");
            // As the Chrome importer does: args as events come, slices at the end.
            std::vector<int64_t> args;
            for (int i = 0; i < kArgs; ++i) args.push_back(w.addArgs("{\"i\":1}"));
            (void)w.flush();
            for (int i = 0; i < kSlices; ++i)
                w.addSlice({t, i * 10, 5, 0, w.intern("op"), 0, args[i], 0});
            (void)w.flush();
        }
        const int64_t run = s->beginRun("killed run", "{}").value();
        const int64_t t0 = ts::nowNs();
        (void)s->begin();
        ts::store::ScalarWriter sw(*s, run);
        for (int step = 1; step <= kSteps; ++step)
            (void)sw.add("train/loss", step, t0 + step * kStepNs, 1.0 / step);
        (void)s->commit();
        const int64_t last = t0 + kSteps * kStepNs;
        if (::write(fds[1], &last, sizeof last) != sizeof last) ::_exit(2);
        ::_exit(0);  // killed: nothing closed
    }
    ::close(fds[1]);
    Killed k;
    EXPECT_EQ(::read(fds[0], &k.lastScalarNs, sizeof k.lastScalarNs), 8);
    ::close(fds[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    return k;
}

std::string bytesOf(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string cellOf(const std::string& session, const std::string& sql) {
    auto r = ts::test::runCli({"query", session, sql});
    const size_t nl = r.out.find('\n');
    std::string v = nl == std::string::npos ? r.out : r.out.substr(nl + 1);
    while (!v.empty() && v.back() == '\n') v.pop_back();
    return v;
}

}  // namespace

TEST(DeadWriters, ReadOnlyOpensShowKilledImportsAndRunsWithoutWriting) {
    const fs::path dir = ts::test::tempDir("dead_readonly");
    const std::string path = (dir / "s.tscope").string();
    { ASSERT_TRUE(TraceStore::open(path, TraceStore::Mode::Create)); }
    const Killed k = killWriters(path);
    const std::string before = bytesOf(path) + bytesOf(path + "-wal");

    // The CLI's read-only commands, and the library's read-only open.
    EXPECT_EQ(cellOf(path, "SELECT status FROM sources"), "incomplete");
    EXPECT_EQ(cellOf(path, "SELECT status FROM runs"), "interrupted");
    EXPECT_EQ(cellOf(path, "SELECT ended_at FROM runs"), std::to_string(k.lastScalarNs));
    auto info = ts::test::runCli({"info", path, "--json"});
    EXPECT_NE(info.out.find("\"incomplete\""), std::string::npos) << info.out;
    EXPECT_EQ(info.out.find("\"importing\""), std::string::npos) << info.out;
    {
        auto ro = TraceStore::open(path, TraceStore::Mode::ReadOnly);
        ASSERT_TRUE(ro) << ro.error();
        auto sources = ro.value()->sources().value();
        ASSERT_EQ(sources.size(), 1u);
        EXPECT_EQ(sources[0].status, ts::store::SourceStatus::Incomplete);
        EXPECT_EQ(sources[0].slices, kSlices);
        EXPECT_NE(sources[0].error.find("interrupted"), std::string::npos);
        auto runs = ro.value()->runs().value();
        ASSERT_EQ(runs.size(), 1u);
        EXPECT_EQ(runs[0].status, ts::store::RunStatus::Interrupted);
        EXPECT_EQ(runs[0].endedAt, k.lastScalarNs);
    }
    EXPECT_EQ(bytesOf(path) + bytesOf(path + "-wal"), before) << "a read-only open wrote";
}

TEST(DeadWriters, AfterAKillCountsAreTheRowsAndNoArgsAreOrphans) {
    const fs::path dir = ts::test::tempDir("dead_counts");
    const std::string path = (dir / "s.tscope").string();
    { ASSERT_TRUE(TraceStore::open(path, TraceStore::Mode::Create)); }
    const Killed k = killWriters(path);
    EXPECT_EQ(cellOf(path, "SELECT slices FROM sources"), std::to_string(kSlices));

    auto s = TraceStore::open(path, TraceStore::Mode::ReadWrite);  // stores the recovery
    ASSERT_TRUE(s) << s.error();
    auto& db = s.value()->db();
    auto sources = s.value()->sources().value();
    ASSERT_EQ(sources.size(), 1u);
    EXPECT_EQ(sources[0].status, ts::store::SourceStatus::Incomplete);
    EXPECT_EQ(sources[0].slices, db.queryInt("SELECT count(*) FROM slices").value());
    EXPECT_EQ(sources[0].slices, kSlices);
    EXPECT_EQ(sources[0].events, kSlices);
    EXPECT_EQ(db.queryInt("SELECT count(*) FROM args").value(), kSlices);
    EXPECT_EQ(db.queryInt("SELECT count(*) FROM args WHERE id NOT IN (SELECT arg_set_id FROM "
                          "slices WHERE arg_set_id IS NOT NULL)")
                  .value(),
              0);
    // Every slice still finds its args.
    EXPECT_EQ(
        db.queryInt("SELECT count(*) FROM slices s JOIN args a ON a.id = s.arg_set_id").value(),
        kSlices);
    // The run: interrupted at its last scalar, with the steps it recorded.
    auto runs = ts::run::readRunSummaries(*s.value());
    ASSERT_TRUE(runs);
    ASSERT_EQ(runs.value().size(), 1u);
    EXPECT_EQ(runs.value()[0].status, ts::store::RunStatus::Interrupted);
    EXPECT_EQ(runs.value()[0].endedAtNs, k.lastScalarNs);
    EXPECT_EQ(runs.value()[0].steps, kSteps);
    auto check = db.prepare("PRAGMA integrity_check");
    ASSERT_TRUE(check.step());
    EXPECT_EQ(check.text(0), "ok");
}

namespace {

void writeTrace(const fs::path& p, int events) {
    std::ofstream out(p);
    out << "{\"traceEvents\":[";
    for (int i = 0; i < events; ++i)
        out << (i ? "," : "") << "{\"ph\":\"X\",\"name\":\"op" << i % 50
            << "\",\"pid\":1,\"tid\":" << i % 4 << ",\"ts\":" << i << ",\"dur\":1,"
            << "\"args\":{\"External id\":" << i << ",\"note\":\"" << std::string(40, 'x')
            << "\"}}";
    out << "]}";
}

int64_t count(TraceStore& s, const std::string& sql) {
    return s.db().queryInt(sql).value();
}

}  // namespace

// A full disk, as SQLite sees it (SQLITE_FULL), through the page limit of the connection.
TEST(DiskFull, AnImportThatFillsTheDiskKeepsNothingAndTheSessionStaysWritable) {
    const fs::path dir = ts::test::tempDir("disk_full");
    writeTrace(dir / "big.json", 200000);
    writeTrace(dir / "small.json", 100);
    const std::string path = (dir / "s.tscope").string();
    {
        auto s = TraceStore::open(path, TraceStore::Mode::Create).value();
        const int64_t pages = count(*s, "PRAGMA page_count");
        ASSERT_TRUE(s->db().exec("PRAGMA max_page_count = " + std::to_string(pages + 60)));
        ts::JobControl control;
        const auto r = ts::importers::importFile((dir / "big.json").string(), *s, control);
        EXPECT_EQ(r.status, ts::store::SourceStatus::Failed);
        EXPECT_NE(r.error.find("full"), std::string::npos) << r.error;
        // Rolled back: the source says why and holds nothing; nothing else holds rows of it.
        auto sources = s->sources();
        ASSERT_TRUE(sources) << sources.error();
        ASSERT_EQ(sources.value().size(), 1u);
        EXPECT_EQ(sources.value()[0].status, ts::store::SourceStatus::Failed);
        EXPECT_EQ(sources.value()[0].slices, 0);
        EXPECT_EQ(count(*s, "SELECT count(*) FROM slices"), 0) << sources.value()[0].error;
        EXPECT_EQ(count(*s, "SELECT count(*) FROM args"), 0);
        EXPECT_EQ(count(*s, "SELECT count(*) FROM tracks"), 0);
        // Space is back: the same connection writes again.
        ASSERT_TRUE(s->db().exec("PRAGMA max_page_count = 1073741823"));
        const auto again = ts::importers::importFile((dir / "small.json").string(), *s, control);
        EXPECT_EQ(again.status, ts::store::SourceStatus::Complete) << again.error;
    }
    auto s = TraceStore::open(path, TraceStore::Mode::ReadWrite);
    ASSERT_TRUE(s) << s.error();
    EXPECT_EQ(count(*s.value(), "SELECT count(*) FROM slices"), 100);
    auto check = s.value()->db().prepare("PRAGMA integrity_check");
    ASSERT_TRUE(check.step());
    EXPECT_EQ(check.text(0), "ok");
}

// The same on a real full file system (a small tmpfs), through the CLI: the failed import is
// rolled back, a later write is told the disk is full (not that the session is damaged), and
// once space is back the session takes the import. Needs mount(2): skipped elsewhere.
TEST(DiskFull, AFullFileSystemIsNotCalledDamage) {
    const fs::path dir = ts::test::tempDir("disk_full_fs");
    const fs::path mnt = dir / "mnt";
    fs::create_directories(mnt);
    if (::geteuid() != 0 || ::mount("tmpfs", mnt.c_str(), "tmpfs", 0, "size=2m") != 0)
        GTEST_SKIP() << "cannot mount a small tmpfs here (needs root and mount(2))";
    struct Unmount {
        fs::path p;
        ~Unmount() { ::umount2(p.c_str(), MNT_DETACH); }
    } unmount{mnt};
    writeTrace(dir / "big.json", 200000);
    writeTrace(dir / "small.json", 100);
    const std::string session = (mnt / "s.tscope").string();
    auto big = ts::test::runCli({"import", (dir / "big.json").string(), "-o", session, "--json"});
    EXPECT_EQ(big.exitCode, 1) << big.out << big.err;
    EXPECT_NE(big.out.find("full"), std::string::npos) << big.out;
    auto more = ts::test::runCli({"import", (dir / "small.json").string(), "-o", session});
    EXPECT_EQ(more.err.find("damaged"), std::string::npos) << more.err;
    ASSERT_EQ(::mount("tmpfs", mnt.c_str(), "tmpfs", MS_REMOUNT, "size=64m"), 0);
    auto ok = ts::test::runCli({"import", (dir / "small.json").string(), "-o", session, "--json"});
    EXPECT_EQ(ok.exitCode, 0) << ok.out << ok.err;
    // (The small import may fit in what the rolled-back one gave back, before the remount.)
    EXPECT_EQ(cellOf(session, "SELECT count(*) FROM sources WHERE status = 'failed'"), "1");
    EXPECT_NE(cellOf(session, "SELECT count(*) FROM sources WHERE status = 'complete'"), "0");
    EXPECT_EQ(cellOf(session, "SELECT sum(slices) FROM sources WHERE status = 'failed'"), "0");
    EXPECT_EQ(cellOf(session, "SELECT count(*) FROM sources WHERE status = 'importing'"), "0");
    auto s = TraceStore::open(session, TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(s) << s.error();
    auto check = s.value()->db().prepare("PRAGMA integrity_check");
    ASSERT_TRUE(check.step());
    EXPECT_EQ(check.text(0), "ok");
}

// A WAL session on read-only media: a folder the reader cannot write holds no -shm, and
// SQLite refuses the plain read-only open. The CLI reads it (as another user when the test
// runs as root, for whom no folder is read-only).
TEST(ReadOnlyMedia, ASessionInAFolderNobodyCanWriteIsRead) {
    const fs::path dir = ts::test::tempDir("ro_media");
    std::ofstream(dir / "t.json")
        << R"({"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":5}]})";
    const fs::path media = dir / "media";
    fs::create_directories(media);
    const std::string session = (media / "s.tscope").string();
    ASSERT_EQ(ts::test::runCli({"import", (dir / "t.json").string(), "-o", session}).exitCode, 0);
    ASSERT_FALSE(fs::exists(session + "-wal")) << "closed cleanly: no journal";
    fs::permissions(media, fs::perms::owner_read | fs::perms::owner_exec | fs::perms::group_read |
                               fs::perms::group_exec | fs::perms::others_read |
                               fs::perms::others_exec);
    fs::permissions(session,
                    fs::perms::owner_read | fs::perms::group_read | fs::perms::others_read);
    fs::permissions(dir, fs::perms::all);
    int out[2];
    ASSERT_EQ(::pipe(out), 0);
    const std::string cli = ts::test::cliPath();
    const pid_t pid = ::fork();
    if (pid == 0) {
        ::dup2(out[1], 1);
        ::dup2(out[1], 2);
        if (::geteuid() == 0 && (::setgid(65534) != 0 || ::setuid(65534) != 0)) ::_exit(90);
        ::execl(cli.c_str(), cli.c_str(), "query", session.c_str(), "SELECT count(*) FROM slices",
                static_cast<char*>(nullptr));
        ::_exit(91);
    }
    ::close(out[1]);
    std::string text;
    char buf[4096];
    for (ssize_t n; (n = ::read(out[0], buf, sizeof buf)) > 0;) text.append(buf, n);
    ::close(out[0]);
    int status = 0;
    ::waitpid(pid, &status, 0);
    fs::permissions(media, fs::perms::all);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << text;
    EXPECT_NE(text.find("\n1\n"), std::string::npos) << text;
    EXPECT_EQ(text.find("damaged"), std::string::npos) << text;
}
