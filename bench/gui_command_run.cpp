// Benchmark: log lines from a command run's child into the session, and the studio's event
// loop while a child prints 100,000 lines a second (issue 14). Prints figures; not a test.
//   gui_command_run [--lines N] [--rate R] [--seconds S] [--without-logs-view]
//   gui_command_run --child RATE SECONDS|--count N   (the child: mixed log formats)
// 1. Burst: a child prints N lines as fast as it can (glog, Python logging, LossMonitor and
//    plain lines); lines/s from the command's start to the last row committed.
// 2. Live: the Training panel (Command tab) starts a child printing R lines/s for S seconds
//    while the Logs view follows the tail, as in the studio; a 10 ms precise timer measures
//    how late the event loop serves it (median, p95, worst), and how many records the Logs
//    view holds at the end.
#include <unistd.h>
#include <QApplication>
#include <QElapsedTimer>
#include <QTimer>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "bench/bench_clock.h"
#include "core/run/command_run.h"
#include "core/store/trace_store.h"
#include "importers/run_artifacts.h"
#include "views/common/session_context.h"
#include "views/logs/log_table_model.h"
#include "views/logs/log_view.h"
#include "views/training/command_form.h"
#include "views/training/command_run_controller.h"
#include "views/training/training_view.h"

namespace fs = std::filesystem;
using ts::bench::Clock;
using ts::bench::threadCpuMs;

namespace {

// The child: `rate` lines per second (0 = as fast as it can) until `count` lines or
// `seconds` have passed. Written in blocks so the rate holds without a syscall per line.
int child(double rate, double seconds, long count) {
    static const char* kinds[] = {
        "[WARNING] ME(4242,7f3a2b,python):2021-01-01-12:00:00.123.456 [kernel.cc:42] Launch] slow "
        "kernel %ld\n",
        "INFO:trainer:batch %ld done\n",
        "epoch: 1 step: %ld, loss is 0.5\n",
        "plain progress line %ld\n",
    };
    const auto start = Clock::now();
    char buf[1 << 16];
    size_t used = 0;
    for (long i = 1; count <= 0 || i <= count; ++i) {
        used += static_cast<size_t>(std::snprintf(buf + used, sizeof buf - used, kinds[i % 4], i));
        if (used > sizeof buf - 256 || (rate > 0 && i % 1000 == 0)) {
            if (::write(1, buf, used) < 0) return 1;
            used = 0;
        }
        if (rate > 0 && i % 1000 == 0) {
            const double due = static_cast<double>(i) / rate;
            const double now = std::chrono::duration<double>(Clock::now() - start).count();
            if (now >= seconds) break;
            if (due > now) std::this_thread::sleep_for(std::chrono::duration<double>(due - now));
        }
    }
    if (used && ::write(1, buf, used) < 0) return 1;
    return 0;
}

std::string self() {
    return fs::read_symlink("/proc/self/exe").string();
}

void burst(const fs::path& dir, long lines) {
    ts::run::CommandRunOptions o;
    o.sessionPath = (dir / "burst.tscope").string();
    o.spec.program = self();
    o.spec.args = {"--child", "0", "0", "--count", std::to_string(lines)};
    o.spec.pythonHooks = false;
    const auto t = Clock::now();
    ts::run::CommandRun run(std::move(o));
    run.start();
    const ts::run::CommandResult& r = run.wait();
    const double s = std::chrono::duration<double>(Clock::now() - t).count();
    auto st = ts::store::TraceStore::open((dir / "burst.tscope").string(),
                                          ts::store::TraceStore::Mode::ReadOnly);
    const int64_t rows = st ? st.value()->db().queryInt("SELECT count(*) FROM logs").value() : -1;
    std::printf(
        "burst: %ld lines (%lld log rows, %lld loss points) in %.2f s: %.0f lines/s ingested end "
        "to end (%s)\n",
        lines, static_cast<long long>(rows),
        static_cast<long long>(r.scalars.count("train/loss") ? r.scalars.at("train/loss") : 0), s,
        static_cast<double>(lines) / s, ts::store::statusName(r.status));
}

void live(const fs::path& dir, double rate, double seconds, bool withLogs) {
    SessionContext ctx;
    ctx.setSessionPath(QString::fromStdString((dir / "live.tscope").string()));
    TrainingView panel(&ctx);
    std::unique_ptr<LogView> logs;
    if (withLogs) logs = std::make_unique<LogView>(&ctx);
    panel.resize(1600, 1000);
    if (logs) logs->resize(1600, 600);
    panel.show();
    if (logs) logs->show();
    panel.showKind(1);
    ts::run::LaunchSpec spec;
    spec.program = self();
    spec.args = {"--child", std::to_string(rate), std::to_string(seconds)};
    spec.pythonHooks = false;
    panel.commandForm()->setSpec(spec);
    std::vector<qint64> lateMs;
    std::vector<double> cpuMs;  // the UI thread's CPU time between two ticks
    QElapsedTimer clock;
    qint64 expected = 0;
    double lastCpu = threadCpuMs();
    QTimer tick;
    tick.setTimerType(Qt::PreciseTimer);
    QObject::connect(&tick, &QTimer::timeout, [&] {
        lateMs.push_back(std::max<qint64>(0, clock.elapsed() - expected));
        expected = clock.elapsed() + 10;
        const double now = threadCpuMs();
        cpuMs.push_back(now - lastCpu);
        lastCpu = now;
    });
    bool done = false;
    QString status;
    QObject::connect(&panel, &TrainingView::runFinished, [&](qint64, const QString& s) {
        done = true;
        status = s;
    });
    const auto t = Clock::now();
    if (!panel.startTraining()) {
        std::printf("live: cannot start: %s\n", qPrintable(panel.message()));
        return;
    }
    clock.start();
    expected = 10;
    tick.start(10);
    while (!done) QCoreApplication::processEvents(QEventLoop::WaitForMoreEvents, 50);
    tick.stop();
    const double s = std::chrono::duration<double>(Clock::now() - t).count();
    const int64_t lines = panel.commandController()->lastProgress().lines;
    // Let the Logs view catch up with the tail (it reads every 2 s).
    QElapsedTimer wait;
    wait.start();
    while (wait.elapsed() < 5000) QCoreApplication::processEvents(QEventLoop::AllEvents, 50);
    std::sort(lateMs.begin(), lateMs.end());
    std::sort(cpuMs.begin(), cpuMs.end());
    if (lateMs.empty()) return;
    std::printf(
        "live: child at %.0f lines/s for %.0f s: %lld lines in %.2f s (%s); Logs view holds %d "
        "records\n",
        rate, seconds, static_cast<long long>(lines), s, qPrintable(status),
        logs ? logs->model()->rowCount() : 0);
    std::printf(
        "live: event loop lateness over %zu ticks of 10 ms: median %lld ms, p95 %lld ms, worst "
        "%lld ms\n",
        lateMs.size(), static_cast<long long>(lateMs[lateMs.size() / 2]),
        static_cast<long long>(lateMs[lateMs.size() * 95 / 100]),
        static_cast<long long>(lateMs.back()));
    // Lateness also counts the time other processes held the CPU; this is the UI thread's own
    // work between two ticks.
    std::printf("live: UI thread CPU between ticks: median %.2f ms, p95 %.2f ms, worst %.2f ms\n",
                cpuMs[cpuMs.size() / 2], cpuMs[cpuMs.size() * 95 / 100], cpuMs.back());
}

}  // namespace

int main(int argc, char** argv) {
    if (argc >= 4 && std::strcmp(argv[1], "--child") == 0) {
        const long count =
            argc >= 6 && std::strcmp(argv[4], "--count") == 0 ? std::atol(argv[5]) : 0;
        return child(std::atof(argv[2]), std::atof(argv[3]), count);
    }
    long lines = 1'000'000;
    double rate = 100'000, seconds = 5;
    bool withLogs = true;
    for (int i = 1; i < argc; ++i)
        if (std::strcmp(argv[i], "--without-logs-view") == 0) withLogs = false;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (std::strcmp(argv[i], "--lines") == 0) lines = std::atol(argv[i + 1]);
        if (std::strcmp(argv[i], "--rate") == 0) rate = std::atof(argv[i + 1]);
        if (std::strcmp(argv[i], "--seconds") == 0) seconds = std::atof(argv[i + 1]);
    }
    const fs::path dir =
        fs::temp_directory_path() / ("trainscope-bench-cmd-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    burst(dir, lines);
    qputenv("QT_QPA_PLATFORM",
            qgetenv("QT_QPA_PLATFORM").isEmpty() ? "offscreen" : qgetenv("QT_QPA_PLATFORM"));
    QApplication app(argc, argv);
    live(dir, rate, seconds, withLogs);
    std::error_code ec;
    fs::remove_all(dir, ec);
    return 0;
}
