#pragma once
// The heatmap's picture for one viewport: every pixel is the largest value of the cells it
// covers (max pooling: a straggler stays visible when 1,024 ranks share 600 pixels), coloured
// on a perceptual scale (viridis: dark = fast, yellow = slow), light grey where no cell has
// a value. Which pixel rows / columns hold a straggler comes with it, for the margin marks.
// Cost: the visible cells plus the pixels, computed once per zoom, not per paint.
#include <QColor>
#include <QImage>
#include <vector>

#include "core/analysis/cluster/cluster_matrix.h"
#include "views/cluster/heatmap_viewport.h"

struct HeatmapPicture {
    QImage image;                   // viewport width x height
    std::vector<uint8_t> flagRows;  // per pixel row: 1 when a straggler is in it
    std::vector<uint8_t> flagCols;  // per pixel column
};

/// Colour of t in [0, 1] on the scale (clamped).
QRgb heatColour(double t);
/// The colour of a cell without a value.
QRgb missingColour();

HeatmapPicture renderHeatmap(const ts::analysis::ClusterMatrix& m, ts::analysis::CellMetric metric,
                             const HeatmapViewport& vp);
