#include "core/timeline/time_axis.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace ts::timeline {

void TimeAxis::reset(int64_t boundsStart, int64_t boundsEnd, double widthPx) {
    m_boundsStart = boundsStart;
    m_boundsEnd = std::max(boundsEnd, boundsStart + 1);
    m_width = std::max(1.0, widthPx);
    showAll();
}

void TimeAxis::setWidth(double widthPx) {
    const double span = end() - m_start;
    m_width = std::max(1.0, widthPx);
    m_nsPerPx = span / m_width;
    clamp();
}

void TimeAxis::zoomAt(double x, double factor) {
    if (!(factor > 0)) return;
    const double t = timeAt(x);
    m_nsPerPx /= factor;
    clamp();
    m_start = t - x * m_nsPerPx;
    clamp();
}

void TimeAxis::panPixels(double dx) {
    m_start += dx * m_nsPerPx;
    clamp();
}

void TimeAxis::showRange(double a, double b, double marginFraction) {
    if (b < a) std::swap(a, b);
    const double margin = (b - a) * marginFraction;
    a -= margin;
    b += margin;
    m_nsPerPx = std::max(b - a, 1.0) / m_width;
    m_start = a;
    clamp();
}

void TimeAxis::clamp() {
    const double span = static_cast<double>(m_boundsEnd - m_boundsStart);
    const double maxNsPerPx = span * 1.2 / m_width;
    m_nsPerPx = std::clamp(m_nsPerPx, 0.01, std::max(maxNsPerPx, 0.01));
    const double visible = m_width * m_nsPerPx;
    const double lo = static_cast<double>(m_boundsStart) - span * 0.1;
    const double hi = static_cast<double>(m_boundsEnd) + span * 0.1 - visible;
    m_start = hi < lo ? (lo + hi) / 2 : std::clamp(m_start, lo, hi);
}

std::vector<RulerTick> rulerTicks(const TimeAxis& axis, double origin, double minSpacingPx) {
    std::vector<RulerTick> ticks;
    const double minStep = axis.nsPerPixel() * minSpacingPx;
    double step = std::pow(10.0, std::floor(std::log10(std::max(minStep, 1e-3))));
    for (double m : {1.0, 2.0, 5.0, 10.0})
        if (step * m >= minStep) {
            step *= m;
            break;
        }
    const double first = std::ceil((axis.start() - origin) / step) * step + origin;
    // Far from the origin (deep into a long trace, or two clocks years apart), a label from
    // the origin would need more digits than it shows ("18786.4 d" on every tick): the
    // ticks then count from the first one ("+200 µs"), the ruler saying where that is.
    const bool fromFirst = std::fabs(first - origin) / step > 1e4;
    for (double t = first; t <= axis.end() && ticks.size() < 1000; t += step) {
        const double rel = t - origin;
        const bool major = std::fmod(std::fabs(std::round(rel / step)), 5.0) == 0.0;
        const std::string label =
            fromFirst ? "+" + formatDuration(std::round((t - first) / step) * step, 6)
                      : formatDuration(std::round(rel / step) * step, 6);
        ticks.push_back({t, label, major});
    }
    return ticks;
}

}  // namespace ts::timeline
