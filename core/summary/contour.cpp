#include "core/summary/contour.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ts::summary {

std::vector<ContourSegment> contourSegments(const std::vector<double>& xs,
                                            const std::vector<double>& ys,
                                            const std::vector<double>& z, double level) {
    std::vector<ContourSegment> out;
    const size_t nx = xs.size(), ny = ys.size();
    if (nx < 2 || ny < 2 || z.size() != nx * ny) return out;
    auto at = [&](size_t r, size_t c) { return z[r * nx + c]; };
    for (size_t r = 0; r + 1 < ny; ++r)
        for (size_t c = 0; c + 1 < nx; ++c) {
            // Corners: 0 (c, r), 1 (c+1, r), 2 (c+1, r+1), 3 (c, r+1).
            const double v[4] = {at(r, c), at(r, c + 1), at(r + 1, c + 1), at(r + 1, c)};
            const double px[4] = {xs[c], xs[c + 1], xs[c + 1], xs[c]};
            const double py[4] = {ys[r], ys[r], ys[r + 1], ys[r + 1]};
            if (!std::isfinite(v[0]) || !std::isfinite(v[1]) || !std::isfinite(v[2]) ||
                !std::isfinite(v[3]))
                continue;
            // Points where each of the 4 edges crosses the level.
            double ex[4], ey[4];
            int n = 0;
            for (int e = 0; e < 4; ++e) {
                const int a = e, b = (e + 1) % 4;
                const bool ia = v[a] >= level, ib = v[b] >= level;
                if (ia == ib) continue;
                const double t = (level - v[a]) / (v[b] - v[a]);
                ex[n] = px[a] + t * (px[b] - px[a]);
                ey[n] = py[a] + t * (py[b] - py[a]);
                ++n;
            }
            if (n == 2) {
                out.push_back({ex[0], ey[0], ex[1], ey[1]});
            } else if (n == 4) {
                // Saddle: decide by the cell's centre value.
                const double mid = (v[0] + v[1] + v[2] + v[3]) / 4;
                const bool c0 = v[0] >= level;
                if ((mid >= level) == c0) {
                    out.push_back({ex[0], ey[0], ex[1], ey[1]});
                    out.push_back({ex[2], ey[2], ex[3], ey[3]});
                } else {
                    out.push_back({ex[0], ey[0], ex[3], ey[3]});
                    out.push_back({ex[1], ey[1], ex[2], ey[2]});
                }
            }
        }
    return out;
}

std::vector<double> contourLevels(const std::vector<double>& z, int n) {
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (double v : z)
        if (std::isfinite(v)) {
            lo = std::min(lo, v);
            hi = std::max(hi, v);
        }
    std::vector<double> out;
    if (!(hi > lo) || n <= 0) return out;
    for (int i = 1; i <= n; ++i) out.push_back(lo + (hi - lo) * i / (n + 1));
    return out;
}

}  // namespace ts::summary
