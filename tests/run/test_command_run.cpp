// CommandRun end to end with shell scripts standing in for training commands: what a run
// records (logs, scalars, the Python package's events, watched folders), how it ends
// (status, reason, exit code, the stop sequence) and several processes as ranks.
#include <gtest/gtest.h>
#include <signal.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <thread>

#include "core/engine/train/tb_events.h"
#include "core/run/command_run.h"
#include "core/store/trace_store.h"
#include "importers/run_artifacts.h"
#include "tests/common/test_support.h"

using namespace ts::run;
namespace fs = std::filesystem;

namespace {

struct Fixture {
    fs::path dir;
    std::string session;
    explicit Fixture(const std::string& tag)
        : dir(ts::test::tempDir(tag)), session((dir / "s.tscope").string()) {}

    std::string script(const std::string& name, const std::string& body) const {
        const fs::path p = dir / name;
        std::ofstream(p) << body;
        return p.string();
    }
    CommandRunOptions options(const std::string& scriptPath) const {
        CommandRunOptions o;
        o.sessionPath = session;
        o.spec.program = "sh";
        o.spec.args = {scriptPath};
        o.spec.cwd = dir.string();
        o.spec.graceSeconds = 0.3;
        o.importArtifact = ts::importers::runArtifactImporter();
        o.settleNs = 200'000'000;
        return o;
    }
    std::unique_ptr<ts::store::TraceStore> open() const {
        auto s = ts::store::TraceStore::open(session, ts::store::TraceStore::Mode::ReadWrite);
        EXPECT_TRUE(s.ok()) << s.error();
        return std::move(s.value());
    }
    int64_t count(const std::string& sql) const { return open()->db().queryInt(sql).value(); }
};

std::vector<std::vector<std::string>> rowsOf(ts::store::SqliteDb& db, const std::string& sql) {
    ts::store::Statement st = db.prepare(sql);
    EXPECT_TRUE(st.ok()) << sql << ": " << st.error();
    std::vector<std::vector<std::string>> out;
    while (st.step()) {
        std::vector<std::string> row;
        for (int c = 0; c < st.columnCount(); ++c)
            row.push_back(st.isNull(c) ? "NULL" : st.text(c));
        out.push_back(std::move(row));
    }
    return out;
}

CommandResult runToEnd(CommandRunOptions o) {
    CommandRun r(std::move(o));
    r.start();
    return r.wait();
}

}  // namespace

TEST(CommandRun, CompletedRunRecordsLogsAndScalars) {
    Fixture f("cmdrun_ok");
    const std::string s = f.script("train.sh", R"SH(
echo "INFO:root:starting"
echo "[WARNING] ME(4242,7f3a2b,python):2021-01-01-12:00:00.123.456 [kernel.cc:42] Launch] slow kernel" >&2
for i in 1 2 3 4; do echo "epoch: 1 step: $i, loss is 0.$i"; done
echo "plain line"
echo "  indented continuation"
echo "WARNING:trainer:almost done" >&2
)SH");
    CommandResult r = runToEnd(f.options(s));
    EXPECT_EQ(r.status, ts::store::RunStatus::Completed) << r.reason;
    EXPECT_EQ(r.reason, "exit code 0");
    EXPECT_EQ(r.exitCode, 0);
    EXPECT_EQ(r.shellExitCode(), 0);
    EXPECT_EQ(r.logLines, 9);
    EXPECT_EQ(r.scalars["train/loss"], 4);
    ASSERT_EQ(r.processes.size(), 1u);
    auto st = f.open();
    auto runs = st->runs().value();
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].kind, "command");
    EXPECT_EQ(runs[0].status, ts::store::RunStatus::Completed);
    EXPECT_NE(runs[0].config.find("\"program\":\"sh\""), std::string::npos);
    EXPECT_NE(runs[0].summary.find("\"status\":\"completed\""), std::string::npos);
    // Levels and modules from each line's format; plain lines are INFO of their stream.
    auto rows =
        rowsOf(st->db(), "SELECT level, coalesce(module,''), message FROM logs ORDER BY id");
    std::map<std::string, std::string> byMessage;
    for (const auto& row : rows) byMessage[row[2]] = row[0] + "/" + row[1];
    EXPECT_EQ(byMessage["starting"], "1/root");
    EXPECT_EQ(byMessage["slow kernel"], "2/ME");
    EXPECT_EQ(byMessage["almost done"], "2/trainer");
    EXPECT_EQ(byMessage["plain line\n  indented continuation"], "1/stdout");
    EXPECT_EQ(st->db().queryInt("SELECT count(*) FROM logs WHERE run_id = 1").value(), 8);
    EXPECT_EQ(st->db().queryInt("SELECT sum(value * 10) FROM scalars WHERE run_id = 1").value(),
              10);
    EXPECT_EQ(st->db().queryInt("SELECT max(step) FROM scalars").value(), 4);
}

TEST(CommandRun, FailureReasonIsTheTracebacksException) {
    Fixture f("cmdrun_fail");
    const std::string s = f.script("fail.sh", R"SH(
echo "step 1"
cat >&2 <<'EOF'
Traceback (most recent call last):
  File "train.py", line 10, in <module>
    main()
  File "train.py", line 7, in main
    raise RuntimeError("CUDA out of memory. Tried to allocate 2.00 GiB")
RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB
EOF
exit 1
)SH");
    CommandResult r = runToEnd(f.options(s));
    EXPECT_EQ(r.status, ts::store::RunStatus::Failed);
    EXPECT_EQ(r.reason,
              "RuntimeError: CUDA out of memory. Tried to allocate 2.00 GiB (exit code 1)");
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_EQ(r.shellExitCode(), 1);
    EXPECT_EQ(f.count("SELECT count(*) FROM logs WHERE module = 'PYTHON' AND level = 3"), 1);
}

TEST(CommandRun, StartErrorsFailTheRunWithTheReason) {
    Fixture f("cmdrun_nostart");
    CommandRunOptions o = f.options("x");
    o.spec.program = "no-such-trainer-xyz";
    CommandRun run(std::move(o));
    run.start();
    ts::Status s = run.waitStarted();
    ASSERT_FALSE(s);
    EXPECT_NE(s.error().find("not found on the PATH"), std::string::npos);
    const CommandResult& r = run.wait();
    EXPECT_EQ(r.status, ts::store::RunStatus::Failed);
    EXPECT_EQ(r.shellExitCode(), 1);
    auto runs = f.open()->runs().value();
    ASSERT_EQ(runs.size(), 1u);
    EXPECT_EQ(runs[0].status, ts::store::RunStatus::Failed);
    EXPECT_NE(runs[0].reason.find("not found"), std::string::npos);
    // Invalid settings: nothing recorded, the reason says what is wrong.
    CommandRunOptions bad = f.options("x");
    bad.spec.program = "";
    CommandRun none(std::move(bad));
    EXPECT_FALSE(none.start());
    EXPECT_EQ(none.wait().reason, "no program to run");
}

TEST(CommandRun, StopSequenceSigintSigtermSigkill) {
    Fixture f("cmdrun_stop");
    struct Case {
        std::string body;
        int signal;
        std::string reasonPart;
    };
    const std::vector<Case> cases = {
        {"echo started; sleep 30", SIGINT, "(SIGINT)"},
        {"trap '' INT; echo started; sleep 30", SIGTERM, "SIGTERM"},
        {"trap '' INT TERM; echo started; while :; do sleep 0.05; done", SIGKILL, "SIGKILL"},
    };
    for (const Case& c : cases) {
        SCOPED_TRACE(c.body);
        CommandRun run(f.options(f.script("stop.sh", c.body)));
        run.start();
        ASSERT_TRUE(run.waitStarted());
        for (int i = 0; i < 300 && run.progress().lines == 0; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
        EXPECT_EQ(run.progress().state, ts::run::CommandState::Running);
        run.requestStop();
        const CommandResult& r = run.wait();
        EXPECT_EQ(r.status, ts::store::RunStatus::Stopped);
        EXPECT_EQ(r.signal, c.signal) << r.reason;
        EXPECT_NE(r.reason.find(c.reasonPart), std::string::npos) << r.reason;
        EXPECT_EQ(r.shellExitCode(), 128 + c.signal);
    }
}

TEST(CommandRun, RanksGetTheirVariablesAndAFailedRankStopsTheOthers) {
    Fixture f("cmdrun_ranks");
    const std::string s = f.script("rank.sh", R"SH(
echo "rank=$RANK world=$WORLD_SIZE port=$MASTER_PORT ours=$TRAINSCOPE_RANK"
if [ "$RANK" = "1" ]; then sleep 0.2; echo "ValueError: bad shard" >&2; exit 2; fi
sleep 30
)SH");
    CommandRunOptions o = f.options(s);
    o.spec.nproc = 3;
    o.spec.ranks = RankScheme::Torch;
    CommandResult r = runToEnd(std::move(o));
    EXPECT_EQ(r.status, ts::store::RunStatus::Failed);
    EXPECT_NE(r.reason.find("rank 1: exit code 2"), std::string::npos) << r.reason;
    EXPECT_NE(r.reason.find("other ranks were stopped"), std::string::npos) << r.reason;
    EXPECT_EQ(r.exitCode, 2);
    ASSERT_EQ(r.processes.size(), 3u);
    EXPECT_EQ(r.processes[0].signal, SIGINT);
    EXPECT_EQ(r.processes[2].signal, SIGINT);
    auto st = f.open();
    for (int rank = 0; rank < 3; ++rank) {
        auto rows = rowsOf(st->db(), "SELECT message FROM logs WHERE message LIKE 'rank=" +
                                         std::to_string(rank) + " world=3 port=%'");
        ASSERT_EQ(rows.size(), 1u) << rank;
        EXPECT_NE(rows[0][0].find("ours=" + std::to_string(rank)), std::string::npos);
    }
}

TEST(CommandRun, EventsOfThePythonPackage) {
    Fixture f("cmdrun_events");
    std::ofstream(f.dir / "tiny.json")
        << R"({"traceEvents":[{"ph":"X","name":"ProfilerStep#1","pid":1,"tid":1,"ts":0,"dur":100},)"
        << R"({"ph":"X","name":"aten::mm","pid":1,"tid":1,"ts":10,"dur":50}]})";
    const std::string s = f.script("events.sh", R"SH(
E=$(echo "$TRAINSCOPE_EVENTS" | sed "s/{pid}/$$/")
cp tiny.json profile_copy.json
emit() { echo "$1" >> "$E"; }
emit '{"type":"hello","pid":1,"rank":0,"world_size":1,"python":"3.11","torch":"1.13.0","features":["loss"]}'
emit '{"type":"scalar","tag":"train/loss","step":1,"value":2.5}'
emit '{"type":"scalar","tag":"train/loss","step":2,"value":1.5}'
emit '{"type":"step","step":2}'
emit '{"type":"overflow","step":2,"op":"Linear","scope":"Net/fc1","seqid":0,"tensor":"output/0","nan":4,"posinf":0,"neginf":1}'
emit '{"type":"dump_file","path":"'$PWD'/step_2.h5","step":2}'
emit '{"type":"trace","path":"'$PWD'/profile_copy.json"}'
emit '{"type":"warning","message":"h5py is not importable"}'
emit 'not json'
echo "epoch: 1 step: 2, loss is 9.9"
)SH");
    CommandResult r = runToEnd(f.options(s));
    EXPECT_EQ(r.status, ts::store::RunStatus::Completed) << r.reason;
    EXPECT_EQ(r.scalars["train/loss"], 2);  // the printed copy of a hooked tag is not kept
    EXPECT_EQ(r.overflowFindings, 1);
    ASSERT_EQ(r.traces.size(), 1u);
    EXPECT_EQ(r.traces[0].slices, 2);
    EXPECT_EQ(r.traces[0].status, ts::store::SourceStatus::Complete);
    ASSERT_EQ(r.dumps.size(), 1u);
    ASSERT_EQ(r.warnings.size(), 1u);  // the line that is not an event
    auto st = f.open();
    EXPECT_EQ(st->db().queryInt("SELECT count(*) FROM sources WHERE run_id = 1").value(), 1);
    EXPECT_EQ(st->db().queryInt("SELECT profile_source_id FROM runs WHERE id = 1").value(),
              r.traces[0].sourceId);
    EXPECT_EQ(st->db()
                  .queryInt("SELECT nan FROM overflow_findings WHERE op = 'Linear' AND step = 2")
                  .value(),
              4);
    EXPECT_EQ(st->db().queryInt("SELECT step FROM dump_files WHERE run_id = 1").value(), 2);
    EXPECT_EQ(st->db()
                  .queryInt("SELECT count(*) FROM logs WHERE module = 'TRAINSCOPE' AND level = 2")
                  .value(),
              1);
}

TEST(CommandRun, StopAskedByThePackageIsAStoppedRun) {
    Fixture f("cmdrun_runstop");
    const std::string s = f.script("stop.sh", R"SH(
E=$(echo "$TRAINSCOPE_EVENTS" | sed "s/{pid}/$$/")
echo '{"type":"stop","reason":"NaN/Inf at step 3 in Net/fc2 (Linear)"}' >> "$E"
exit 3
)SH");
    CommandResult r = runToEnd(f.options(s));
    EXPECT_EQ(r.status, ts::store::RunStatus::Stopped);
    EXPECT_EQ(r.reason.rfind("NaN/Inf at step 3 in Net/fc2 (Linear)", 0), 0u) << r.reason;
    EXPECT_EQ(r.exitCode, 3);
}

TEST(CommandRun, WatchedFoldersTracesTensorBoardAndCrashRecords) {
    Fixture f("cmdrun_watch");
    const fs::path staging = f.dir / "staging";
    fs::create_directories(staging / "rank_0" / "rdr");
    std::ofstream(staging / "trace.json")
        << R"([{"ph":"X","name":"step","pid":1,"tid":1,"ts":0,"dur":5}])";
    std::ofstream(staging / "hparams.json") << R"({"lr": 0.1})";  // JSON, not a trace
    std::ofstream(staging / "rank_0" / "rdr" / "rdr_index.json")
        << R"({"reason":"op_error","failing_op":"MatMul","epoch":1,"step":3})";
    {
        auto w = ts::engine::tb::EventWriter::open(staging.string()).value();
        for (int i = 1; i <= 5; ++i) w->addScalar("Loss/train", i, 1.0f / static_cast<float>(i));
        w->flush();
    }
    const std::string tfName =
        fs::directory_iterator(staging, fs::directory_options::none)->path().filename().string();
    (void)tfName;
    const fs::path watched = f.dir / "out";
    fs::create_directories(watched);
    std::ofstream(watched / "before.json")
        << R"([{"ph":"X","name":"old","pid":1,"tid":1,"ts":0,"dur":5}])";
    const std::string s = f.script("watch.sh", "sleep 0.2; cp -r staging/. out/; sleep 0.6\n");
    CommandRunOptions o = f.options(s);
    o.spec.watchDirs = {"out"};  // relative to the command's folder
    CommandResult r = runToEnd(std::move(o));
    EXPECT_EQ(r.status, ts::store::RunStatus::Completed) << r.reason;
    ASSERT_EQ(r.traces.size(), 1u);  // not before.json (older than the run), not hparams.json
    EXPECT_EQ(fs::path(r.traces[0].path).filename(), "trace.json");
    EXPECT_EQ(r.scalars["Loss/train"], 5);
    ASSERT_EQ(r.rdr.size(), 1u);
    auto st = f.open();
    EXPECT_EQ(
        st->db()
            .queryInt("SELECT count(*) FROM rdr_records WHERE run_id = 1 AND failing_op = 'MatMul'")
            .value(),
        1);
    EXPECT_EQ(st->db().queryInt("SELECT count(*) FROM sources").value(), 1);
}

// Issue 26, item 16: traces a script writes in its own working folder's usual profiler
// folders are the run's without --watch; each profiler cycle is named by its number, and
// cycles on a clock started with their recording (every one at 0) are placed when written.
TEST(CommandRun, ProfilerCyclesInTheWorkingFolderAreImportedNamedAndPlaced) {
    Fixture f("cmdrun_cycles");
    const std::string cycle =
        R"([{"ph":"X","name":"ProfilerStep#1","pid":7,"tid":7,"ts":0,"dur":50},)"
        R"({"ph":"X","name":"aten::mm","pid":7,"tid":7,"ts":5,"dur":20}])";
    const std::string s =
        f.script("cycles.sh", "mkdir -p log/exp; echo '" + cycle +
                                  "' > log/exp/w.1.pt.trace.json; sleep 1.1; echo '" + cycle +
                                  "' > log/exp/w.2.pt.trace.json; sleep 0.3\n");
    CommandRunOptions o = f.options(s);
    ASSERT_TRUE(o.spec.watchDirs.empty());
    CommandResult r = runToEnd(std::move(o));
    EXPECT_EQ(r.status, ts::store::RunStatus::Completed) << r.reason;
    ASSERT_EQ(r.traces.size(), 2u);
    auto st = f.open();
    const auto labels = rowsOf(st->db(), "SELECT label FROM sources ORDER BY id");
    ASSERT_EQ(labels.size(), 2u);
    EXPECT_EQ(labels[0][0], "cycle 1");
    EXPECT_EQ(labels[1][0], "cycle 2");
    EXPECT_EQ(
        st->db().queryInt("SELECT count(*) FROM processes WHERE name LIKE 'cycle 2: %'").value(),
        1);
    // Both start at 0 as recorded; each is placed where its file was written, a second apart.
    const auto kept =
        rowsOf(st->db(), "SELECT value FROM meta WHERE key LIKE 'timeline.align.%' ORDER BY key");
    ASSERT_EQ(kept.size(), 2u);
    EXPECT_NE(kept[0][0].find("file_time"), std::string::npos) << kept[0][0];
    auto offset = [&](int i) {
        const std::string& v = kept[static_cast<size_t>(i)][0];
        return std::stoll(v.substr(v.find("offset_ns\":") + 11));
    };
    EXPECT_GT(offset(1) - offset(0), 900'000'000);
    // Without the default folders the run imports nothing.
    Fixture g("cmdrun_cycles_off");
    const std::string s2 =
        g.script("cycles.sh", "mkdir -p log; echo '" + cycle + "' > log/w.pt.trace.json\n");
    CommandRunOptions o2 = g.options(s2);
    o2.spec.watchDefaults = false;
    EXPECT_EQ(runToEnd(std::move(o2)).traces.size(), 0u);
}

// Issue 29: the CUPTI collector creates its activity file when CUDA starts and writes it
// only when a buffer completes or the process exits. A child that keeps its file open and
// unchanged longer than any settle time, then writes and exits, must have the whole file
// imported (the real activity file from an H200 stands in for the collector's output).
TEST(CommandRun, ActivityFileHeldOpenPastTheSettleTimeIsImportedWhole) {
    TS_REQUIRE_CORPUS();
    const fs::path real = ts::test::corpusDir() / "real/cupti/torch211_h200_conv_8steps.tscupti";
    Fixture f("cmdrun_cuda_held");
    int64_t wholeSlices = 0;
    {  // what the file holds, imported on its own
        const std::string alone = (f.dir / "alone.tscope").string();
        auto st = ts::store::TraceStore::open(alone, ts::store::TraceStore::Mode::Create);
        ASSERT_TRUE(st.ok()) << st.error();
        ts::JobControl control;
        auto a = ts::importers::runArtifactImporter()(real.string(), *st.value(), control);
        ASSERT_TRUE(a.recognised);
        wholeSlices = a.slices;
        ASSERT_GT(wholeSlices, 10000);
    }
    fs::create_directories(f.dir / "cuda");
    const std::string s = f.script("cuda.sh", "exec 3>cuda/cuda-777.tscupti\nsleep 1.2\ncat '" +
                                                  real.string() + "' >&3\nexec 3>&-\nsleep 0.1\n");
    CommandRunOptions o = f.options(s);  // settles after 0.2 s
    o.spec.watchDirs = {"cuda"};
    CommandResult r = runToEnd(std::move(o));
    EXPECT_EQ(r.status, ts::store::RunStatus::Completed) << r.reason;
    ASSERT_EQ(r.traces.size(), 1u);
    EXPECT_EQ(fs::path(r.traces[0].path).filename(), "cuda-777.tscupti");
    EXPECT_EQ(r.traces[0].slices, wholeSlices);
    EXPECT_EQ(f.count("SELECT count(*) FROM sources"), 1);
    EXPECT_EQ(f.count("SELECT count(*) FROM slices"), wholeSlices);
}

// A watched trace that changes after it was imported (a profiler that rewrites its file) is
// imported again and replaces the first import: the session holds what the file ends as.
TEST(CommandRun, TraceThatGrowsAfterItsImportReplacesIt) {
    Fixture f("cmdrun_regrow");
    fs::create_directories(f.dir / "out");
    const std::string one = R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":5}])";
    const std::string three = R"([{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":5},)"
                              R"({"ph":"X","name":"b","pid":1,"tid":1,"ts":10,"dur":5},)"
                              R"({"ph":"X","name":"c","pid":1,"tid":1,"ts":20,"dur":5}])";
    const std::string s =
        f.script("regrow.sh", "printf '%s' '" + one + "' > out/t.json\nsleep 1.0\nprintf '%s' '" +
                                  three + "' > out/t.json\nsleep 0.05\n");
    CommandRunOptions o = f.options(s);
    o.spec.watchDirs = {"out"};
    CommandResult r = runToEnd(std::move(o));
    EXPECT_EQ(r.status, ts::store::RunStatus::Completed) << r.reason;
    ASSERT_EQ(r.traces.size(), 1u);
    EXPECT_EQ(r.traces[0].slices, 3);
    EXPECT_EQ(f.count("SELECT count(*) FROM sources"), 1);
    EXPECT_EQ(f.count("SELECT count(*) FROM slices"), 3);
    EXPECT_EQ(f.count("SELECT count(*) FROM runs WHERE profile_source_id = " +
                      std::to_string(r.traces[0].sourceId)),
              1);
}

TEST(CommandRun, ManyLinesAreAllKept) {
    Fixture f("cmdrun_lines");
    const std::string s = f.script("lines.sh", "seq 1 100000; seq 1 5000 >&2\n");
    CommandRunOptions o = f.options(s);
    CommandRun run(std::move(o));
    run.start();
    int64_t seenLive = 0;
    while (!run.finished() && run.progress().state != ts::run::CommandState::Ended) {
        seenLive = std::max(seenLive, run.progress().lines);
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    const CommandResult& r = run.wait();
    EXPECT_EQ(r.status, ts::store::RunStatus::Completed);
    EXPECT_EQ(r.logLines, 105000);
    EXPECT_EQ(f.count("SELECT count(*) FROM logs"), 105000);
    EXPECT_EQ(f.count("SELECT sum(CAST(message AS INTEGER)) FROM logs WHERE module = 'stdout'"),
              5000050000);
    EXPECT_TRUE(r.warnings.empty());
}

TEST(CommandRun, PauseHoldsTheProcessesAndResumeLetsThemGoOn) {
    Fixture f("cmdrun_pause");
    const std::string s =
        f.script("tick.sh", "i=0; while :; do i=$((i+1)); echo tick $i; sleep 0.02; done\n");
    CommandRun run(f.options(s));
    run.start();
    ASSERT_TRUE(run.waitStarted());
    auto waitLines = [&](int64_t n) {
        for (int i = 0; i < 500 && run.progress().lines < n; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(10));
    };
    waitLines(5);
    run.pause();
    for (int i = 0; i < 100 && run.progress().state != ts::run::CommandState::Paused; ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    EXPECT_EQ(run.progress().state, ts::run::CommandState::Paused);
    std::this_thread::sleep_for(std::chrono::milliseconds(150));  // what was printed comes in
    const int64_t held = run.progress().lines;
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
    EXPECT_EQ(run.progress().lines, held);  // SIGSTOP: nothing printed while paused
    run.resume();
    waitLines(held + 5);
    EXPECT_GE(run.progress().lines, held + 5);
    run.pause();
    run.requestStop();  // a stop while paused still ends the run
    const CommandResult& r = run.wait();
    EXPECT_EQ(r.status, ts::store::RunStatus::Stopped);
    EXPECT_EQ(r.signal, SIGINT);
}
