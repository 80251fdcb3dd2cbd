#pragma once
// Iso-lines of a value grid by marching squares, for the loss-landscape view's contour plot.
// No Qt.
#include <vector>

namespace ts::summary {

struct ContourSegment {
    double x1, y1, x2, y2;
};

/// Segments where the grid z (ys.size() rows by xs.size() columns, row-major) crosses
/// `level`, with coordinates interpolated along the cell edges. Cells with a non-finite
/// corner are left out.
std::vector<ContourSegment> contourSegments(const std::vector<double>& xs,
                                            const std::vector<double>& ys,
                                            const std::vector<double>& z, double level);

/// `n` levels evenly spaced strictly between the finite min and max of z.
std::vector<double> contourLevels(const std::vector<double>& z, int n);

}  // namespace ts::summary
