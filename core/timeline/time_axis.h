#pragma once
// TimeAxis: the mapping between time (ns) and x (pixels) of a timeline viewport, with the
// zoom and pan operations the widget needs. A plain value type, tested without widgets.
// The visible window is [start, start + width * nsPerPixel]; zoom is clamped between
// 1 ns per 100 px and the whole bounds on screen (plus a margin).
#include <cstdint>
#include <string>
#include <vector>

#include "core/common/units.h"

namespace ts::timeline {

class TimeAxis {
public:
    TimeAxis() = default;
    /// Sets the data bounds and the viewport width; shows everything.
    void reset(int64_t boundsStart, int64_t boundsEnd, double widthPx);
    void setWidth(double widthPx);

    double width() const { return m_width; }
    double start() const { return m_start; }
    double end() const { return m_start + m_width * m_nsPerPx; }
    double nsPerPixel() const { return m_nsPerPx; }
    int64_t boundsStart() const { return m_boundsStart; }
    int64_t boundsEnd() const { return m_boundsEnd; }

    double xOf(double ns) const { return (ns - m_start) / m_nsPerPx; }
    double timeAt(double x) const { return m_start + x * m_nsPerPx; }

    /// Zooms by `factor` (>1 zooms in) keeping the time under x fixed.
    void zoomAt(double x, double factor);
    /// Moves the window by dx pixels (positive: later times).
    void panPixels(double dx);
    /// Shows [a, b] (a < b); with `marginFraction` of the span added on both sides.
    void showRange(double a, double b, double marginFraction = 0.0);
    void showAll() {
        showRange(static_cast<double>(m_boundsStart), static_cast<double>(m_boundsEnd), 0.02);
    }

private:
    void clamp();
    int64_t m_boundsStart = 0, m_boundsEnd = 1;
    double m_width = 1000;
    double m_start = 0;
    double m_nsPerPx = 1;
};

/// A tick of the time ruler: where (ns) and its label ("1.5 ms").
struct RulerTick {
    double ns;
    std::string label;
    bool major;
};

/// Ticks at a round step (1, 2, 5 x 10^k ns) so that labels are ~`minSpacingPx` apart;
/// labels relative to `origin` (the trace start) in readable units, or, when the view is
/// more than 10,000 steps from the origin, relative to the first tick ("+200 µs").
std::vector<RulerTick> rulerTicks(const TimeAxis& axis, double origin, double minSpacingPx = 90);

/// "1.234 ms", "15 µs", "2.5 s", "830 ns": core/common/units.h, here for the timeline's callers.
using ts::formatDuration;

}  // namespace ts::timeline
