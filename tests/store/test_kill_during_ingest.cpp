// A writer killed with SIGKILL mid-ingest leaves a session that opens, with that source
// marked incomplete and everything committed before the kill intact.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/store/store_writer.h"
#include "tests/common/test_support.h"

using namespace ts::store;

namespace {
constexpr int kBatch = 500;
constexpr int kCompleteSlices = 1234;

// Child: imports a complete source, then a second one forever, reporting each commit.
[[noreturn]] void childIngest(const std::string& path, int reportFd) {
    auto s = TraceStore::open(path, TraceStore::Mode::ReadWrite).value();
    const int64_t done = s->beginSource("complete.json", "test").value();
    {
        StoreWriter w(*s, done, kBatch);
        const int64_t p = w.addProcess("1");
        const int64_t t = w.addTrack("thread", p, w.addThread(p, "1"), "t");
        for (int i = 0; i < kCompleteSlices; ++i) w.addSlice({t, i, 1, 0, w.intern("a"), 0, 0, 0});
    }
    SourceSummary sum;
    sum.status = ts::store::SourceStatus::Complete;
    sum.slices = kCompleteSlices;
    (void)s->finishSource(done, sum);

    const int64_t src = s->beginSource("killed.json", "test").value();
    StoreWriter w(*s, src, 1 << 30);  // we flush by hand to know what is committed
    const int64_t p = w.addProcess("2");
    const int64_t t = w.addTrack("thread", p, w.addThread(p, "2"), "t");
    w.flush();
    for (int64_t i = 0;; ++i) {
        w.addSlice({t, i, 1, 0, w.intern("b"), 0, 0, 0});
        if ((i + 1) % kBatch == 0) {
            (void)w.flush();
            const int64_t committed = i + 1;
            if (::write(reportFd, &committed, sizeof committed) != sizeof committed) _exit(2);
        }
    }
}

}  // namespace

TEST(KillDuringIngest, CommittedRowsSurviveAndSourceIsIncomplete) {
    const std::string path = (ts::test::tempDir("kill") / "s.tscope").string();
    { ASSERT_TRUE(TraceStore::open(path, TraceStore::Mode::Create).ok()); }
    int fds[2];
    ASSERT_EQ(::pipe(fds), 0);
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        ::close(fds[0]);
        childIngest(path, fds[1]);
    }
    ::close(fds[1]);
    int64_t committed = 0;
    // Wait for several commits so the kill lands mid-ingest, after real work.
    while (committed < 20 * kBatch) ASSERT_EQ(::read(fds[0], &committed, sizeof committed), 8);
    ASSERT_EQ(::kill(pid, SIGKILL), 0);
    int status = 0;
    ::waitpid(pid, &status, 0);
    ASSERT_TRUE(WIFSIGNALED(status));
    int64_t last = committed;
    while (::read(fds[0], &last, sizeof last) == 8) committed = last;
    ::close(fds[0]);

    auto s = TraceStore::open(path, TraceStore::Mode::ReadWrite);
    ASSERT_TRUE(s.ok()) << s.error();
    auto sources = s.value()->sources().value();
    ASSERT_EQ(sources.size(), 2u);
    EXPECT_EQ(sources[0].status, ts::store::SourceStatus::Complete);
    EXPECT_EQ(sources[1].status, ts::store::SourceStatus::Incomplete);
    EXPECT_FALSE(sources[1].error.empty());
    auto& db = s.value()->db();
    EXPECT_EQ(db.queryInt("SELECT count(*) FROM slices s JOIN tracks t ON s.track_id=t.id "
                          "WHERE t.source_id=1")
                  .value(),
              kCompleteSlices);
    const int64_t kept = db.queryInt(
                               "SELECT count(*) FROM slices s JOIN tracks t ON "
                               "s.track_id=t.id WHERE t.source_id=2")
                             .value();
    EXPECT_GE(kept, committed);
    EXPECT_EQ(kept % kBatch, 0) << "only whole committed batches survive";
    EXPECT_EQ(db.queryInt("PRAGMA integrity_check").ok(), true);
    auto check = db.prepare("PRAGMA integrity_check");
    ASSERT_TRUE(check.step());
    EXPECT_EQ(check.text(0), "ok");
}
