// CommandRun's supervisor thread: starts the processes, reads their output, tails the Python
// package's events, stops them, and says how the run ended (command_run.h).
#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <map>

#include "core/common/clock.h"
#include "core/common/cuda_paths.h"
#include "core/log/log_tokenizer.h"
#include "core/run/child_process.h"
#include "core/run/command_run_state.h"
#include "core/run/file_tail.h"
#include "core/run/hook_events.h"
#include "core/run/line_splitter.h"
#include "core/store/trace_store.h"

namespace ts::run {
namespace {

namespace fs = std::filesystem;

constexpr int kPollMs = 50;
constexpr int64_t kMs = 1'000'000;
constexpr int64_t kIdleFlushNs = 300 * kMs;      // a record with nothing after it is complete
constexpr int64_t kPipeDrainNs = 2000 * kMs;     // grandchildren holding the pipes after the end
constexpr size_t kMaxQueuedRecords = 2'000'000;  // beyond: dropped and counted
constexpr size_t kReadChunk = 256 * 1024;

struct Stream {
    Stream(bool isErr, std::function<void(log::LogRecord&&)> emit)
        : err(isErr), tokenizer(std::move(emit)) {
        tokenizer.setPlainLines(log::Level::Info, err ? "stderr" : "stdout");
    }
    bool err;
    LineSplitter splitter;
    log::LogTokenizer tokenizer;
    int64_t lastLineNs = 0;
};

struct Proc {
    int rank = 0;
    std::unique_ptr<ChildProcess> child;
    std::unique_ptr<Stream> out, err;
    int stage = 0;  // 0 none, 1 SIGINT sent, 2 SIGTERM, 3 SIGKILL
    int64_t deadline = 0;
    int64_t endedAtNs = 0;
    bool done = false;
    std::string lastException;  // last line of the last Python traceback on its output
};

struct EventTail {
    explicit EventTail(std::string path, int r) : tail(std::move(path)), rank(r) {}
    FileTail tail;
    LineSplitter splitter;
    int rank;
};

// The exception line of a traceback record: the first line after its last frame
// ("RuntimeError: boom"); MindSpore's call stack may follow it.
std::string exceptionLine(const std::string& message) {
    std::vector<std::string_view> lines;
    std::string_view rest(message);
    while (!rest.empty()) {
        const size_t nl = rest.find('\n');
        lines.push_back(rest.substr(0, nl));
        if (nl == std::string_view::npos) break;
        rest.remove_prefix(nl + 1);
    }
    size_t after = 0;
    for (size_t i = 0; i < lines.size(); ++i)
        if (lines[i].starts_with("  File ") || lines[i].starts_with("Traceback ")) after = i + 1;
    for (size_t i = after; i < lines.size(); ++i) {
        const std::string_view l = lines[i];
        if (l.find_first_not_of(" \t\r") != std::string_view::npos && l[0] != ' ' && l[0] != '\t')
            return std::string(l);
    }
    return lines.empty() ? std::string() : std::string(lines.back());
}

class Supervisor {
public:
    explicit Supervisor(CommandRun::State& st) : m_st(st), m_spec(st.options.spec) {}

    void run() {
        if (!prepare()) return;
        loop();
        end();
    }

private:
    int64_t now() const { return nowNs(); }

    bool fail(const std::string& why) {
        std::string reason = why;
        for (Proc& p : m_procs) p.child.reset();  // kills what was started
        if (m_st.store && m_runId > 0) {
            CommandResult r;
            r.runId = m_runId;
            r.reason = reason;
            (void)m_st.store->finishRun(m_runId, "failed", reason, r.toJson());
        }
        {
            std::lock_guard<std::mutex> lock(m_st.mu);
            m_st.result.runId = m_runId;
            m_st.result.status = "failed";
            m_st.result.reason = reason;
            m_st.progress.state = "ended";
        }
        m_st.finishStart(Error{reason});
        return false;
    }

    bool prepare() {
        if (!m_st.options.sessionPath.empty()) {
            auto store =
                store::TraceStore::open(m_st.options.sessionPath, store::TraceStore::Mode::Create);
            if (!store) return fail("cannot open the session: " + store.error());
            m_st.store = std::move(store.value());
            const std::string name = m_spec.name.empty() ? m_spec.displayName() : m_spec.name;
            auto id = m_st.store->beginRun(name, launchSpecToJson(m_spec), "command");
            if (!id) return fail("cannot record the run in the session: " + id.error());
            m_runId = id.value();
            m_paths = runPathsFor(m_st.options.sessionPath, m_runId, m_st.options.pythonDir);
            std::error_code ec;
            fs::create_directories(m_paths.profileDir, ec);
            if (!ec && m_spec.recordCuda) fs::create_directories(m_paths.cudaDir, ec);
            if (ec)
                return fail("cannot create the run's folder " + m_paths.runDir + ": " +
                            ec.message());
            if (m_spec.recordCuda) {
                m_paths.cuptiLibrary = m_st.options.cuptiLibrary;
                if (m_paths.cuptiLibrary.empty()) {
                    auto lib = cuptiCollectorPath();
                    return fail(
                        "record CUDA activity: " +
                        (lib ? std::string("the CUPTI collector was not found") : lib.error()));
                }
            }
        } else {
            m_spec.pythonHooks = false;  // supervising only: no folder for the package's events
            m_spec.profile = false;
            m_spec.recordCuda = false;
        }
        const bool needsPort = m_spec.ranks == RankScheme::Torch;
        const int port = m_spec.masterPort > 0 ? m_spec.masterPort
                         : needsPort           ? pickFreePort(m_spec.masterAddr)
                                               : 0;
        const EnvList base = currentEnvironment();
        std::vector<ProcessEnvironment> envs;
        for (int r = 0; r < m_spec.nproc; ++r) {
            auto e = buildProcessEnvironment(m_spec, base, m_paths, r, port);
            if (!e) return fail(e.error());
            envs.push_back(std::move(e.value()));
        }
        if (m_spec.pythonHooks && m_paths.pythonDir.empty())
            m_st.warnings.push_back(
                "the Python package of command runs was not found (set TRAINSCOPE_PYTHON_DIR): "
                "no profiler, dumps, overflow checks or loss from PyTorch hooks");
        // Watched folders: the user's, the profiler's, the crash records'.
        for (const std::string& d : m_spec.watchDirs) {
            fs::path p(d);
            if (p.is_relative())
                p = (m_spec.cwd.empty() ? fs::current_path() : fs::path(m_spec.cwd)) / p;
            m_st.watcher.addFolder(p.lexically_normal().string());
        }
        if (m_spec.profile) m_st.watcher.addFolder(m_paths.profileDir);
        if (m_spec.recordCuda) m_st.watcher.addFolder(m_paths.cudaDir);
        if (!envs[0].rdrPath.empty()) m_st.watcher.addFolder(envs[0].rdrPath);
        m_st.watcher.snapshotExisting();
        for (int r = 0; r < m_spec.nproc; ++r) {
            SpawnOptions o{m_spec.program, m_spec.args, m_spec.cwd,
                           envs[static_cast<size_t>(r)].full};
            auto c = ChildProcess::spawn(o);
            if (!c)
                return fail(m_spec.nproc > 1 ? "rank " + std::to_string(r) + ": " + c.error()
                                             : c.error());
            Proc p;
            p.rank = r;
            p.child = std::move(c.value());
            m_procs.push_back(std::move(p));
        }
        for (Proc& p : m_procs) {
            Proc* pp = &p;
            auto emit = [this, pp](log::LogRecord&& rec) { onRecord(*pp, std::move(rec)); };
            p.out = std::make_unique<Stream>(false, emit);
            p.err = std::make_unique<Stream>(true, emit);
        }
        {
            std::lock_guard<std::mutex> lock(m_st.mu);
            m_st.result.runId = m_runId;
            m_st.result.runDir = m_paths.runDir;
            m_st.result.environment = envs[0].changes;
            m_st.progress.runId = m_runId;
            m_st.progress.state = "running";
            m_st.progress.processes = processStates();
        }
        m_st.recorder = std::thread([&st = m_st] { runRecorder(st); });
        m_st.finishStart({});
        return true;
    }

    std::vector<ProcessState> processStates() const {
        std::vector<ProcessState> out;
        for (const Proc& p : m_procs) {
            ProcessState s;
            s.rank = p.rank;
            s.pid = p.child->pid();
            s.running = !p.child->ended();
            s.exitCode = p.child->exitCode();
            s.signal = p.child->termSignal();
            out.push_back(s);
        }
        return out;
    }

    void onRecord(Proc& p, log::LogRecord&& r) {
        if (r.pid == 0) r.pid = p.child->pid();
        if (!r.tsNs) r.tsNs = m_lineNs;
        if (r.module == "PYTHON" && r.message.rfind("Traceback", 0) == 0)
            p.lastException = exceptionLine(r.message);
        m_batch.records.push_back(std::move(r));
    }

    void onLine(Proc& p, Stream& s, std::string_view line) {
        ++m_lines;
        s.lastLineNs = m_lineNs;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        if (m_st.options.echo) m_st.options.echo(p.rank, s.err, line);
        if (p.rank == 0) {
            for (ScalarPoint& sp : m_scalars.parse(line)) {
                m_lastStep = std::max(m_lastStep, sp.step);
                if (sp.tag == "train/loss") m_lastLoss = sp.value;
                m_batch.scalars.push_back({std::move(sp), m_lineNs, false});
            }
        }
        s.tokenizer.addLine(line);
        m_lastLine.assign(line.substr(0, 300));
    }

    // Reads what `fd` has; false at end of file.
    bool drain(Proc& p, Stream& s, int fd) {
        char buf[65536];
        size_t total = 0;
        while (total < kReadChunk) {
            const ssize_t n = ::read(fd, buf, sizeof buf);
            if (n > 0) {
                total += static_cast<size_t>(n);
                s.splitter.feed(std::string_view(buf, static_cast<size_t>(n)),
                                [&](std::string_view line) { onLine(p, s, line); });
                continue;
            }
            if (n == 0) return false;
            if (errno == EINTR) continue;
            return errno == EAGAIN || errno == EWOULDBLOCK;
        }
        return true;
    }

    void closeStream(Proc& p, Stream& s) {
        s.splitter.finish([&](std::string_view line) { onLine(p, s, line); });
        s.tokenizer.finish();
        if (s.err)
            p.child->closeStderr();
        else
            p.child->closeStdout();
    }

    void pollPipes() {
        std::vector<pollfd> fds;
        std::vector<std::pair<Proc*, Stream*>> owners;
        for (Proc& p : m_procs) {
            if (p.child->stdoutFd() >= 0) {
                fds.push_back({p.child->stdoutFd(), POLLIN, 0});
                owners.emplace_back(&p, p.out.get());
            }
            if (p.child->stderrFd() >= 0) {
                fds.push_back({p.child->stderrFd(), POLLIN, 0});
                owners.emplace_back(&p, p.err.get());
            }
        }
        if (fds.empty()) {
            ::usleep(kPollMs * 1000);
            return;
        }
        const int n = ::poll(fds.data(), fds.size(), kPollMs);
        m_lineNs = now();
        if (n <= 0) return;
        for (size_t i = 0; i < fds.size(); ++i) {
            if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
            auto [p, s] = owners[i];
            if (!drain(*p, *s, fds[i].fd)) closeStream(*p, *s);
        }
    }

    // A record with nothing after it for a while is complete: show it now.
    void flushIdle() {
        const int64_t t = now();
        for (Proc& p : m_procs)
            for (Stream* s : {p.out.get(), p.err.get()})
                if (s->tokenizer.pending() && t - s->lastLineNs > kIdleFlushNs)
                    s->tokenizer.finish();
    }

    void tailEvents(bool final) {
        const int64_t t = now();
        if (!final && t - m_lastEventScan < 100 * kMs) return;
        m_lastEventScan = t;
        std::error_code ec;
        for (fs::directory_iterator it(m_paths.runDir, ec), end; !ec && it != end;
             it.increment(ec)) {
            const std::string name = it->path().filename().string();
            if (name.rfind("events.rank", 0) != 0 || !name.ends_with(".jsonl")) continue;
            if (m_events.count(name)) continue;
            const int rank = std::atoi(name.c_str() + 11);
            m_events.emplace(name, EventTail(it->path().string(), rank));
        }
        for (auto& entry : m_events) {  // (clang 14 cannot capture a structured binding)
            EventTail& e = entry.second;
            const std::string bytes = e.tail.readNew();
            e.splitter.feed(bytes, [&](std::string_view line) { onEventLine(e.rank, line); });
        }
    }

    void onEventLine(int rank, std::string_view line) {
        if (line.empty()) return;
        std::string error;
        auto ev = parseHookEvent(line, &error);
        if (!ev) {
            if (++m_badEvents <= 3)
                m_st.warnings.push_back("an event of the Python package was not understood (" +
                                        error + ")");
            return;
        }
        const int64_t ts = ev->ts > 0 ? ev->ts : now();
        auto note = [&](log::Level level, std::string text) {
            log::LogRecord r;
            r.tsNs = ts;
            r.level = level;
            r.module = "TRAINSCOPE";
            r.pid = ev->pid;
            r.message = std::move(text);
            m_batch.records.push_back(std::move(r));
        };
        switch (ev->type) {
            case HookEvent::Type::Hello: {
                std::string text = "trainscope_hooks in pid " + std::to_string(ev->pid) +
                                   " (rank " + std::to_string(ev->rank) + "): ";
                text +=
                    ev->torch.empty() ? "torch not importable, hooks off" : "torch " + ev->torch;
                for (const std::string& f : ev->features) text += ", " + f;
                note(log::Level::Info, text);
                break;
            }
            case HookEvent::Type::Warning:
                note(log::Level::Warning, ev->text);
                break;
            case HookEvent::Type::Step:
                if (rank == 0) m_lastStep = std::max(m_lastStep, ev->step);
                break;
            case HookEvent::Type::Scalar:
                if (rank != 0) break;
                if (ev->text == "train/loss") m_lastLoss = ev->value;
                m_batch.scalars.push_back({{ev->text, ev->step, ev->value}, ts, true});
                break;
            case HookEvent::Type::Trace:
                m_batch.traces.push_back(ev->text);
                break;
            case HookEvent::Type::DumpFile:
                m_batch.dumpFiles.emplace_back(ev->text, ev->step);
                break;
            case HookEvent::Type::Overflow: {
                debug::OverflowRecord f;
                f.runId = m_runId;
                f.step = ev->step;
                f.op = ev->op;
                f.scope =
                    m_spec.nproc > 1 ? "rank" + std::to_string(rank) + "/" + ev->scope : ev->scope;
                f.seqid = ev->seqid;
                f.tensor = ev->tensor;
                f.nan = ev->nan;
                f.posinf = ev->posinf;
                f.neginf = ev->neginf;
                f.ts = ts;
                m_batch.findings.push_back(std::move(f));
                break;
            }
            case HookEvent::Type::Stop: {
                note(log::Level::Warning, "stop requested by the run: " + ev->text);
                std::lock_guard<std::mutex> lock(m_st.mu);
                if (m_st.stopReason.empty()) {
                    m_st.stopReason = ev->text;
                    m_st.stopFromRun = true;
                }
                m_runStop = true;
                m_runStopRank = rank;
                break;
            }
        }
    }

    // Pause and resume: SIGSTOP / SIGCONT to every process group; a stop ends any pause.
    void followPause() {
        const bool want =
            m_st.pauseWanted.load() && !m_st.stopRequested.load() && !m_failing && !m_runStop;
        if (want == m_paused) return;
        for (Proc& p : m_procs) p.child->signalGroup(want ? SIGSTOP : SIGCONT);
        m_paused = want;
        std::lock_guard<std::mutex> lock(m_st.mu);
        if (m_st.progress.state == "running" || m_st.progress.state == "paused")
            m_st.progress.state = want ? "paused" : "running";
    }

    // The stop sequence: SIGINT, SIGTERM after the grace period, SIGKILL after as long again.
    void escalate() {
        const int64_t t = now();
        const auto grace = static_cast<int64_t>(m_spec.graceSeconds * 1e9);
        const bool userStop = m_st.stopRequested.load();
        for (Proc& p : m_procs) {
            if (p.child->ended()) continue;
            const bool wanted = userStop || m_failing || m_runStop;
            if (!wanted) continue;
            if (p.stage == 0) {
                // The rank that asked to stop ends itself; signal it only if it does not.
                if (!userStop && !m_failing && m_runStop && p.rank == m_runStopRank) {
                    if (p.deadline == 0) p.deadline = t + grace;
                    if (t < p.deadline) continue;
                }
                p.child->signalGroup(SIGINT);
                p.stage = 1;
                p.deadline = t + grace;
                noteStage("SIGINT");
            } else if (p.stage == 1 && t >= p.deadline) {
                p.child->signalGroup(SIGTERM);
                p.stage = 2;
                p.deadline = t + grace;
                noteStage("SIGTERM");
            } else if (p.stage == 2 && t >= p.deadline) {
                p.child->signalGroup(SIGKILL);
                p.stage = 3;
                noteStage("SIGKILL");
            }
        }
    }

    void noteStage(const std::string& stage) {
        const int order = stage == "SIGINT" ? 1 : stage == "SIGTERM" ? 2 : 3;
        if (order <= m_stage) return;
        m_stage = order;
        std::lock_guard<std::mutex> lock(m_st.mu);
        m_st.progress.stopStage = stage;
        m_st.progress.state = "stopping";
    }

    void reap() {
        const int64_t t = now();
        for (Proc& p : m_procs) {
            if (p.done) continue;
            if (p.child->poll() && p.endedAtNs == 0) {
                p.endedAtNs = t;
                const bool ok = p.child->exitCode() && *p.child->exitCode() == 0;
                if (!ok && !m_failing && !m_st.stopRequested && !m_runStop && m_spec.nproc > 1) {
                    m_failing = true;
                    std::lock_guard<std::mutex> lock(m_st.mu);
                    m_st.failedRank = std::to_string(p.rank);
                }
            }
            if (p.endedAtNs == 0) continue;
            const bool pipesOpen = p.child->stdoutFd() >= 0 || p.child->stderrFd() >= 0;
            if (pipesOpen && t - p.endedAtNs > kPipeDrainNs) {
                // Something the process started still holds its output: stop listening.
                if (p.child->stdoutFd() >= 0) closeStream(p, *p.out);
                if (p.child->stderrFd() >= 0) closeStream(p, *p.err);
            }
            if (p.child->stdoutFd() < 0 && p.child->stderrFd() < 0) {
                p.out->tokenizer.finish();
                p.err->tokenizer.finish();
                p.done = true;
            }
        }
    }

    void handOver() {
        std::lock_guard<std::mutex> lock(m_st.mu);
        handOverLocked();
        CommandProgress& pr = m_st.progress;
        pr.lines = m_lines;
        pr.step = m_lastStep;
        if (m_lastLoss) pr.loss = m_lastLoss;
        pr.processes = processStates();
        pr.lastLine = m_lastLine;
        m_st.cv.notify_all();
    }

    // Appends the batch to the shared queue (records beyond kMaxQueuedRecords are dropped
    // and counted: the session could not keep up). Caller holds m_st.mu.
    void handOverLocked() {
        // The two streams of each process are read one after the other: in time order (the
        // time a record carries, else when its line was read) they read as they were printed.
        std::stable_sort(m_batch.records.begin(), m_batch.records.end(),
                         [](const log::LogRecord& a, const log::LogRecord& b) {
                             return a.tsNs.value_or(0) < b.tsNs.value_or(0);
                         });
        RunBatch& q = m_st.queue;
        if (m_st.queuedRecords + m_batch.records.size() > kMaxQueuedRecords) {
            m_st.droppedRecords += static_cast<int64_t>(m_batch.records.size());
            m_batch.records.clear();
        }
        m_st.queuedRecords += m_batch.records.size();
        if (q.records.empty())
            q.records.swap(m_batch.records);
        else
            q.records.insert(q.records.end(), std::make_move_iterator(m_batch.records.begin()),
                             std::make_move_iterator(m_batch.records.end()));
        q.scalars.insert(q.scalars.end(), m_batch.scalars.begin(), m_batch.scalars.end());
        q.findings.insert(q.findings.end(), m_batch.findings.begin(), m_batch.findings.end());
        q.dumpFiles.insert(q.dumpFiles.end(), m_batch.dumpFiles.begin(), m_batch.dumpFiles.end());
        q.traces.insert(q.traces.end(), m_batch.traces.begin(), m_batch.traces.end());
        m_batch = RunBatch();
    }

    bool allDone() const {
        for (const Proc& p : m_procs)
            if (!p.done) return false;
        return true;
    }

    void loop() {
        while (!allDone()) {
            pollPipes();
            flushIdle();
            tailEvents(false);
            reap();
            followPause();
            escalate();
            handOver();
        }
    }

    void end() {
        tailEvents(true);
        for (auto& entry : m_events) {
            EventTail& e = entry.second;
            e.splitter.finish([&](std::string_view line) { onEventLine(e.rank, line); });
        }
        // How it ended.
        CommandResult& r = m_st.result;
        std::lock_guard<std::mutex> lock(m_st.mu);
        r.processes = processStates();
        const Proc* firstBad = nullptr;
        for (const Proc& p : m_procs) {
            const bool ok = p.child->exitCode() && *p.child->exitCode() == 0;
            if (!ok && (!firstBad ||
                        (!m_st.failedRank.empty() && std::to_string(p.rank) == m_st.failedRank)))
                firstBad = &p;
        }
        const Proc& lead = firstBad ? *firstBad : m_procs.front();
        r.exitCode = lead.child->exitCode();
        r.signal = lead.child->termSignal();
        const std::string who = m_spec.nproc > 1 ? "rank " + std::to_string(lead.rank) + ": " : "";
        const std::string how = lead.child->describeEnd();
        if (m_st.stopRequested || m_runStop) {
            r.status = "stopped";
            std::string why = m_st.stopReason.empty() ? "stopped by the user" : m_st.stopReason;
            if (m_stage == 1) why += " (SIGINT)";
            if (m_stage == 2)
                why += " (it did not end within " + graceText() + " of SIGINT: SIGTERM)";
            if (m_stage == 3) why += " (SIGINT and SIGTERM did not end it: SIGKILL)";
            r.reason = why;
        } else if (!firstBad) {
            r.status = "completed";
            r.reason = m_spec.nproc > 1
                           ? "all " + std::to_string(m_spec.nproc) + " processes exited with code 0"
                           : "exit code 0";
        } else {
            r.status = "failed";
            r.reason = lead.lastException.empty() ? who + how
                                                  : who + lead.lastException + " (" + how + ")";
            if (m_spec.nproc > 1) r.reason += "; the other ranks were stopped";
        }
        r.logLines = m_lines;
        r.durationS = static_cast<double>(now() - m_st.startNs) / 1e9;
        m_st.progress.processes = r.processes;
        m_st.progress.lines = m_lines;
        handOverLocked();
        m_st.supervisorDone = true;
        m_st.cv.notify_all();
    }

    std::string graceText() const {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%g s", m_spec.graceSeconds);
        return buf;
    }

    CommandRun::State& m_st;
    LaunchSpec m_spec;  // a copy: supervising only switches the Python package off
    int64_t m_runId = 0;
    RunPaths m_paths;
    std::vector<Proc> m_procs;
    RunBatch m_batch;
    ScalarLineParser m_scalars;
    std::map<std::string, EventTail> m_events;
    int64_t m_lastEventScan = 0;
    int64_t m_lineNs = 0;
    int64_t m_lines = 0;
    int64_t m_lastStep = 0;
    std::optional<double> m_lastLoss;
    std::string m_lastLine;
    int m_badEvents = 0;
    bool m_failing = false;  // a rank failed: the others are being stopped
    bool m_runStop = false;  // the Python package asked to stop
    int m_runStopRank = 0;
    int m_stage = 0;  // the furthest signal sent: 1 SIGINT, 2 SIGTERM, 3 SIGKILL
    bool m_paused = false;

public:
    void setUserRegex() {
        if (!m_spec.lossRegex.empty())
            if (auto re = ScalarRegex::compile(m_spec.lossRegex))
                m_scalars = ScalarLineParser(re.value());
    }
};

}  // namespace

void runSupervisor(CommandRun::State& st) {
    Supervisor s(st);
    s.setUserRegex();
    s.run();
}

}  // namespace ts::run
