// Benchmark: the Cluster view at 1,024 ranks x 1,000 steps (generated in memory: a synchronous
// job, a few ranks slow in some steps, the others waiting for them). Prints the time of the
// summary and the heatmap matrix (off the UI thread), of handing them to the view (UI thread:
// tables filled), and frame times offscreen of the heatmap (1,500 x 700 plot) and of the
// per-rank bars: zoomed out (picture cached), wheel zooms and drags (each rebuilds the
// picture), metric switches; p50/p95/max wall time and the drawing thread's CPU p95. Saves the
// zoomed-out heatmap of step time and of work as /tmp/trainscope_cluster_heatmap{,_work}.png.
// Not a test.
//   gui_cluster_frame [RANKS=1024] [STEPS=1000]
#include <QApplication>
#include <QImage>
#include <QPainter>
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <random>

#include "bench/bench_clock.h"
#include "core/analysis/cluster/cluster_matrix.h"
#include "core/analysis/cluster/cluster_summary.h"
#include "views/cluster/cluster_heatmap.h"
#include "views/cluster/cluster_view.h"
#include "views/cluster/rank_bars.h"
#include "views/common/session_context.h"

using namespace ts::analysis;
using ts::bench::Clock;
using ts::bench::msSince;
using ts::bench::threadCpuMs;

namespace {

std::vector<double> g_cpu;

template <class W>
double frame(W& widget, QImage& img) {
    const auto t = Clock::now();
    const double c = threadCpuMs();
    QPainter p(&img);
    widget.render(p, img.size());
    p.end();
    g_cpu.push_back(threadCpuMs() - c);
    return msSince(t);
}

double pct(std::vector<double> v, double q) {
    std::sort(v.begin(), v.end());
    return v[std::min(v.size() - 1, static_cast<size_t>(q * static_cast<double>(v.size())))];
}

void report(const char* what, const std::vector<double>& ms) {
    std::printf("%-34s wall p50 %6.2f p95 %6.2f max %6.2f ms | cpu p95 %6.2f ms (%zu frames)\n",
                what, pct(ms, 0.5), pct(ms, 0.95), pct(ms, 1.0), pct(g_cpu, 0.95), ms.size());
    g_cpu.clear();
}

/// A synchronous job: 100 ms steps with noise; 8 ranks are slow by 20-60 ms in 5 % of the
/// steps, and in those steps everyone else waits for them.
std::vector<RankProfile> generate(int ranks, int steps) {
    std::mt19937_64 rng(11);
    std::normal_distribution<double> noise(0, 1.5);
    std::uniform_real_distribution<double> u(0, 1);
    std::vector<double> extra(static_cast<size_t>(steps), 0);
    std::vector<int> slowRank(static_cast<size_t>(steps), -1);
    for (int s = 0; s < steps; ++s)
        if (u(rng) < 0.05) {
            slowRank[static_cast<size_t>(s)] = static_cast<int>(u(rng) * 8) * (ranks / 8);
            extra[static_cast<size_t>(s)] = 20 + 40 * u(rng);
        }
    std::vector<RankProfile> out(static_cast<size_t>(ranks));
    constexpr double ms = 1e6;
    for (int r = 0; r < ranks; ++r) {
        RankProfile& p = out[static_cast<size_t>(r)];
        p.input.rank = r;
        p.input.label = "rank" + std::to_string(r);
        p.stepMarker = "ProfilerStep#N";
        p.steps.resize(static_cast<size_t>(steps));
        for (int s = 0; s < steps; ++s) {
            RankStep& st = p.steps[static_cast<size_t>(s)];
            const double e = extra[static_cast<size_t>(s)];
            const bool slow = slowRank[static_cast<size_t>(s)] == r;
            const double compute = 60 + noise(rng) + (slow ? e : 0);
            const double comm = 30 + (slow ? 0 : e) + std::abs(noise(rng));
            st.number = s + 1;
            st.ts = static_cast<int64_t>(s * 200 * ms);
            st.dur = static_cast<int64_t>((100 + e + noise(rng)) * ms);
            st.computeNs = static_cast<int64_t>(compute * ms);
            st.commNs = static_cast<int64_t>(comm * ms);
            st.overlapNs = static_cast<int64_t>(10 * ms);
            st.idleNs = std::max<int64_t>(0, st.dur - st.computeNs - st.commNs + st.overlapNs);
        }
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);
    const int ranks = argc > 1 ? std::atoi(argv[1]) : 1024;
    const int steps = argc > 2 ? std::atoi(argv[2]) : 1000;
    auto profiles = generate(ranks, steps);

    auto t = Clock::now();
    auto summary = std::make_shared<ClusterSummary>(summarizeCluster(std::move(profiles)));
    const double summaryMs = msSince(t);
    t = Clock::now();
    auto matrix = std::make_shared<ClusterMatrix>(buildClusterMatrix(*summary));
    const double matrixMs = msSince(t);
    std::printf(
        "%d ranks x %d steps: summary %.0f ms, heatmap matrix %.0f ms (off the UI thread); "
        "%zu straggler steps, slowest rank %lld\n",
        ranks, steps, summaryMs, matrixMs, summary->stragglers.size(),
        static_cast<long long>(summary->slowestRank.value_or(-1)));

    SessionContext ctx;
    ClusterView view(&ctx);
    view.resize(1920, 1080);
    t = Clock::now();
    view.setSummary(summary, matrix);
    std::printf("handing the summary to the view (tables filled, UI thread): %.0f ms\n",
                msSince(t));

    ClusterHeatmap& heat = *view.heatmap();
    RankBars& bars = *view.bars();
    QImage heatImg(1500 + ClusterHeatmap::kLeft + ClusterHeatmap::kRight,
                   700 + ClusterHeatmap::kTop + ClusterHeatmap::kBottom, QImage::Format_RGB32);
    QImage barsImg(230, heatImg.height(), QImage::Format_RGB32);
    HeatmapViewport& vp = *view.viewport();

    std::vector<double> ms;
    ms.push_back(frame(heat, heatImg));
    std::printf("first heatmap frame (picture built): %.2f ms\n", ms.back());
    heatImg.save("/tmp/trainscope_cluster_heatmap.png");
    ms.clear();
    g_cpu.clear();
    for (int i = 0; i < 30; ++i) ms.push_back(frame(heat, heatImg));
    report("heatmap, zoomed out (cached):", ms);

    ms.clear();
    std::mt19937 rng(3);
    std::uniform_real_distribution<double> ux(0, 1500), uy(0, 700);
    for (int i = 0; i < 40; ++i) {
        vp.zoomAt(ux(rng), uy(rng), i < 20 ? 1.2 : 1 / 1.2);
        heat.viewportChanged();
        ms.push_back(frame(heat, heatImg));
    }
    report("heatmap, wheel zooms (rebuilt):", ms);

    ms.clear();
    vp.showAll();
    vp.zoomAt(750, 350, 4);
    for (int i = 0; i < 40; ++i) {
        vp.pan(i % 2 ? -37 : 41, i % 3 ? 13 : -17);
        heat.viewportChanged();
        ms.push_back(frame(heat, heatImg));
    }
    report("heatmap, drags at 4x (rebuilt):", ms);

    ms.clear();
    vp.showAll();
    for (int i = 0; i < 20; ++i) {
        heat.setMetric(static_cast<CellMetric>(i % static_cast<int>(CellMetric::Count)));
        ms.push_back(frame(heat, heatImg));
    }
    report("heatmap, metric switches (rebuilt):", ms);
    heat.setMetric(CellMetric::Work);
    QImage small(1100, 540, QImage::Format_RGB32);  // docs/screenshots/cluster_heatmap_1024.png
    frame(heat, small);
    small.save("/tmp/trainscope_cluster_heatmap_work.png");

    ms.clear();
    for (int i = 0; i < 30; ++i) ms.push_back(frame(bars, barsImg));
    report("rank bars, zoomed out:", ms);
    ms.clear();
    for (int i = 0; i < 30; ++i) {
        vp.zoomAt(0, uy(rng), i < 15 ? 1.3 : 1 / 1.3, false, true);
        ms.push_back(frame(bars, barsImg));
    }
    report("rank bars, zooming the ranks:", ms);
    barsImg.save("/tmp/trainscope_cluster_bars.png");
    return 0;
}
