// Benchmark: open a 10-million-slice session and draw timeline frames offscreen into a
// 1920x1080 QImage: open + first frame (cold: from the slices table; warm: from the timeline
// cache), then frame times fully zoomed out, zoomed to 1 ms, and over 100 random zoom/pan
// positions (p50/p95/max). Prints figures; not a test.
//   gui_timeline_frame [SESSION]   (generated under /tmp when missing)
#include <QApplication>
#include <QImage>
#include <QPainter>
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>

#include "core/timeline/synthetic_trace.h"
#include "core/timeline/timeline_cache.h"
#include "views/timeline/timeline_canvas.h"

using namespace ts::timeline;
using Clock = std::chrono::steady_clock;

namespace {

double msSince(Clock::time_point t) {
    return std::chrono::duration<double, std::milli>(Clock::now() - t).count();
}

double drawFrame(TimelineCanvas& canvas, QImage& img) {
    const auto t = Clock::now();
    QPainter p(&img);
    canvas.render(p, img.size());
    p.end();
    return msSince(t);
}

void report(const char* what, std::vector<double> ms) {
    std::sort(ms.begin(), ms.end());
    const auto at = [&](double q) {
        return ms[std::min(ms.size() - 1, static_cast<size_t>(q * ms.size()))];
    };
    std::printf("%-34s p50 %6.2f ms  p95 %6.2f ms  max %6.2f ms  (%zu frames)\n", what, at(0.5),
                at(0.95), ms.back(), ms.size());
}

/// Opens the session and draws the first frame; returns the canvas ready for more frames.
double openAndDraw(const std::string& path, bool useCache, TimelineCanvas& canvas, QImage& img,
                   std::shared_ptr<const TimelineModel>& model) {
    const auto t = Clock::now();
    auto m = loadTimelineModel(path, nullptr, 2, useCache);
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
        std::printf("generating 10M slices into %s ...\n", path.c_str());
        auto n = writeSyntheticTrace(path, SyntheticTraceSpec{});
        if (!n) {
            std::fprintf(stderr, "error: %s\n", n.error().c_str());
            return 1;
        }
    }
    QImage img(1920, 1080, QImage::Format_RGB32);
    TimelineCanvas canvas;
    canvas.resize(img.size());
    std::shared_ptr<const TimelineModel> model;

    const double cold = openAndDraw(path, false, canvas, img, model);
    std::printf("open + first frame, cold (slices table): %.0f ms, %lld slices\n", cold,
                static_cast<long long>(model->sliceCount));
    if (!model->fromCache) {
        auto st = writeTimelineCache(path, *model, model->cacheKey);
        if (!st) std::printf("cannot write the timeline cache: %s\n", st.error().c_str());
    }
    model.reset();
    canvas.setModel(nullptr);
    const double warm = openAndDraw(path, true, canvas, img, model);
    std::printf("open + first frame, warm (%s): %.0f ms\n",
                model->fromCache ? "timeline cache" : "no cache", warm);

    std::vector<double> ms;
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
    return 0;
}
