// Benchmark: open a 10-million-slice session (or SLICES) and draw timeline frames offscreen into a
// 1920x1080 QImage: open + first frame (cold: from the slices table; warm: from the timeline
// cache), then frame times fully zoomed out, zoomed to 1 ms, and over 100 random zoom/pan
// positions (p50/p95/max wall time, and p95 of the drawing thread's CPU time, which does not
// grow when other processes share the machine). Prints figures; not a test.
// Ends with the process's peak RSS (the model and the window).
//   gui_timeline_frame [SESSION [SLICES]]   (generated when missing: 10 M slices unless SLICES)
#include <QApplication>
#include <QImage>
#include <QPainter>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <random>
#include <string>

#include <sys/resource.h>

#include "app/gui/main_window.h"
#include "bench/bench_clock.h"
#include "core/timeline/synthetic_trace.h"
#include "views/common/session_context.h"
#include "views/timeline/timeline_canvas.h"
#include "views/timeline/timeline_view.h"

using namespace ts::timeline;
using ts::bench::Clock;
using ts::bench::msSince;
using ts::bench::threadCpuMs;

namespace {

std::vector<double> g_cpu;  // CPU time of each frame drawn (the machine may be shared)

double drawFrame(TimelineCanvas& canvas, QImage& img) {
    const auto t = Clock::now();
    const double c = threadCpuMs();
    QPainter p(&img);
    canvas.render(p, img.size());
    p.end();
    g_cpu.push_back(threadCpuMs() - c);
    return msSince(t);
}

double percentile(std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, static_cast<size_t>(q * v.size()))];
}

void report(const char* what, std::vector<double> ms) {
    std::printf("%-32s wall p50 %6.2f p95 %6.2f max %6.2f ms | cpu p95 %6.2f ms (%zu frames)\n",
                what, percentile(ms, 0.5), percentile(ms, 0.95), percentile(ms, 1.0),
                percentile(g_cpu, 0.95), ms.size());
    g_cpu.clear();
}

/// Opens the session and draws the first frame; returns the canvas ready for more frames.
double openAndDraw(const std::string& path, TimelineCanvas& canvas, QImage& img,
                   std::shared_ptr<const TimelineModel>& model) {
    const auto t = Clock::now();
    auto m = loadTimelineModel(path, nullptr, 2);
    if (!m) {
        std::fprintf(stderr, "error: %s\n", m.error().c_str());
        std::exit(1);
    }
    model = m.value();
    canvas.setModel(model);
    drawFrame(canvas, img);
    return msSince(t);
}

}  // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const std::string path = argc > 1 ? argv[1] : "/tmp/trainscope_bench_10m.tscope";
    if (!std::filesystem::exists(path)) {
        SyntheticTraceSpec spec;
        if (argc > 2) spec.slices = std::stoll(argv[2]);
        std::printf("generating %lld slices into %s ...\n", static_cast<long long>(spec.slices),
                    path.c_str());
        const auto t = Clock::now();
        auto n = writeSyntheticTrace(path, spec);
        if (!n) {
            std::fprintf(stderr, "error: %s\n", n.error().c_str());
            return 1;
        }
        std::printf("generated in %.1f s, %.2f GB on disk\n", msSince(t) / 1000.0,
                    static_cast<double>(std::filesystem::file_size(path)) / 1e9);
    }
    QImage img(1920, 1080, QImage::Format_RGB32);
    TimelineCanvas canvas;
    canvas.resize(img.size());
    std::shared_ptr<const TimelineModel> model;

    // The first open may find the file outside the page cache; the second finds it there.
    const double first = openAndDraw(path, canvas, img, model);
    std::printf("open + first frame, first open: %.0f ms, %lld slices\n", first,
                static_cast<long long>(model->sliceCount));
    model.reset();
    canvas.setModel(nullptr);
    const double again = openAndDraw(path, canvas, img, model);
    std::printf("open + first frame, second open: %.0f ms\n", again);

    {
        // The whole studio: open the session in a main window (timeline, stats and summary
        // tabs load on their jobs) until the timeline has drawn the model.
        MainWindow w;
        w.resize(1920, 1080);
        w.show();
        const auto t = Clock::now();
        w.openPaths({QString::fromStdString(path)});
        TimelineView* tl = nullptr;
        double opened = -1;
        while (msSince(t) < 60000) {
            QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
            if (opened < 0 && !w.context()->sessionPath().isEmpty()) opened = msSince(t);
            if (!tl) tl = qobject_cast<TimelineView*>(w.showView(QStringLiteral("timeline")));
            if (tl && tl->canvas()->model()) {
                tl->canvas()->repaint();
                break;
            }
        }
        std::printf(
            "main window: open + first timeline frame: %.0f ms (session checked after "
            "%.0f ms)\n",
            msSince(t), opened);
    }

    std::vector<double> ms;
    g_cpu.clear();
    canvas.showAll();
    for (int i = 0; i < 30; ++i) ms.push_back(drawFrame(canvas, img));
    report("fully zoomed out:", ms);
    img.save("/tmp/trainscope_timeline_full.png");

    ms.clear();
    std::mt19937_64 rng(7);
    const double span = static_cast<double>(model->endNs - model->startNs);
    for (int i = 0; i < 30; ++i) {
        const double a = model->startNs + (span - 1e6) * static_cast<double>(rng() % 1000) / 1000.0;
        canvas.zoomTo(a, a + 1e6 / 1.1);  // zoomTo adds a 5% margin on each side: 1 ms visible
        ms.push_back(drawFrame(canvas, img));
    }
    report("zoomed to 1 ms:", ms);
    img.save("/tmp/trainscope_timeline_1ms.png");

    ms.clear();
    for (int i = 0; i < 100; ++i) {
        const double w = span / std::pow(10.0, static_cast<double>(rng() % 80) / 10.0);
        const double a = model->startNs + (span - w) * static_cast<double>(rng() % 1000) / 1000.0;
        canvas.zoomTo(a, a + w);
        ms.push_back(drawFrame(canvas, img));
    }
    report("100 random zoom/pan positions:", ms);
    rusage ru{};
    getrusage(RUSAGE_SELF, &ru);
    std::printf("peak RSS %.0f MiB\n", static_cast<double>(ru.ru_maxrss) / 1024.0);
    return 0;
}
