#include "views/cluster/heatmap_image.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace {

/// Viridis at 9 stops (matplotlib's table), interpolated to 256 entries.
const std::array<QRgb, 256>& palette() {
    static const std::array<QRgb, 256> table = [] {
        constexpr double stops[9][3] = {{68, 1, 84},    {71, 44, 122},  {59, 81, 139},
                                        {44, 113, 142}, {33, 144, 141}, {39, 173, 129},
                                        {92, 200, 99},  {170, 220, 50}, {253, 231, 37}};
        std::array<QRgb, 256> t{};
        for (int i = 0; i < 256; ++i) {
            const double x = i / 255.0 * 8;
            const int k = std::min(7, static_cast<int>(x));
            const double f = x - k;
            auto mix = [&](int c) {
                return static_cast<int>(std::lround(stops[k][c] * (1 - f) + stops[k + 1][c] * f));
            };
            t[static_cast<size_t>(i)] = qRgb(mix(0), mix(1), mix(2));
        }
        return t;
    }();
    return table;
}

/// For each of `pixels` pixels over the window [w0, w1) of `extent` cells: the cells
/// [first, last) it covers (at least one; when cells are wider than pixels, the cell under
/// the pixel's centre).
void cellRanges(double w0, double w1, int pixels, size_t extent, std::vector<size_t>& first,
                std::vector<size_t>& last) {
    first.resize(static_cast<size_t>(pixels));
    last.resize(static_cast<size_t>(pixels));
    const double per = (w1 - w0) / pixels;
    for (int p = 0; p < pixels; ++p) {
        double a = w0 + p * per, b = w0 + (p + 1) * per;
        if (per <= 1)
            a = b = std::floor(w0 + (p + 0.5) * per);  // a cell spans pixels: its own
        else
            b -= 1e-9;  // a cell that only touches the pixel's end is the next pixel's
        size_t f = static_cast<size_t>(std::clamp(std::floor(a), 0.0, static_cast<double>(extent)));
        size_t l = static_cast<size_t>(std::clamp(std::ceil(b), 0.0, static_cast<double>(extent)));
        if (l <= f) l = std::min(extent, f + 1);
        if (f >= extent && extent > 0) f = extent - 1;
        first[static_cast<size_t>(p)] = f;
        last[static_cast<size_t>(p)] = l;
    }
}

}  // namespace

QRgb heatColour(double t) {
    const int i = static_cast<int>(std::lround(std::clamp(t, 0.0, 1.0) * 255));
    return palette()[static_cast<size_t>(i)];
}

QRgb missingColour() {
    return qRgb(225, 225, 225);
}

HeatmapPicture renderHeatmap(const ts::analysis::ClusterMatrix& m, ts::analysis::CellMetric metric,
                             const HeatmapViewport& vp) {
    HeatmapPicture out;
    const int w = vp.width(), h = vp.height();
    out.image = QImage(w, h, QImage::Format_RGB32);
    out.image.fill(missingColour());
    out.flagRows.assign(static_cast<size_t>(h), 0);
    out.flagCols.assign(static_cast<size_t>(w), 0);
    if (m.rows == 0 || m.cols == 0) return out;
    const auto& values = m.of(metric);
    const size_t k = static_cast<size_t>(metric);
    const double lo = m.low[k], span = std::max(1e-9, static_cast<double>(m.high[k]) - lo);
    const double toIndex = 255.0 / span;
    const auto& pal = palette();
    std::vector<size_t> cf, cl, rf, rl;
    cellRanges(vp.col0(), vp.col1(), w, m.cols, cf, cl);
    cellRanges(vp.row0(), vp.row1(), h, m.rows, rf, rl);
    const float kNone = -std::numeric_limits<float>::infinity();
    std::vector<float> rowMax(static_cast<size_t>(w)), acc(static_cast<size_t>(w));
    std::vector<uint8_t> rowFlag(static_cast<size_t>(w)), accFlag(static_cast<size_t>(w));
    size_t cached = static_cast<size_t>(-1);
    for (int py = 0; py < h; ++py) {
        std::fill(acc.begin(), acc.end(), kNone);
        std::fill(accFlag.begin(), accFlag.end(), 0);
        for (size_t r = rf[static_cast<size_t>(py)]; r < rl[static_cast<size_t>(py)]; ++r) {
            if (r != cached) {
                const float* row = values.data() + r * m.cols;
                const uint8_t* flags = m.straggler.data() + r * m.cols;
                for (int px = 0; px < w; ++px) {
                    float best = kNone;
                    uint8_t flag = 0;
                    for (size_t c = cf[static_cast<size_t>(px)]; c < cl[static_cast<size_t>(px)];
                         ++c) {
                        const float v = row[c];
                        if (v > best) best = v;  // NaN compares false: skipped
                        flag |= flags[c];
                    }
                    rowMax[static_cast<size_t>(px)] = best;
                    rowFlag[static_cast<size_t>(px)] = flag;
                }
                cached = r;
            }
            for (size_t px = 0; px < acc.size(); ++px) {
                acc[px] = std::max(acc[px], rowMax[px]);
                accFlag[px] |= rowFlag[px];
            }
        }
        auto* line = reinterpret_cast<QRgb*>(out.image.scanLine(py));
        for (int px = 0; px < w; ++px) {
            const float v = acc[static_cast<size_t>(px)];
            if (v != kNone) {
                const double x = (v - lo) * toIndex + 0.5;
                line[px] = pal[x <= 0 ? 0 : x >= 255 ? 255 : static_cast<size_t>(x)];
            }
            if (accFlag[static_cast<size_t>(px)]) {
                out.flagRows[static_cast<size_t>(py)] = 1;
                out.flagCols[static_cast<size_t>(px)] = 1;
            }
        }
    }
    return out;
}
