#pragma once
// Plots follow the studio's theme: a QCustomPlot's background, axes, ticks, labels, grid and
// legend take the widget's palette now and whenever it changes (View > Theme), so a dark
// studio has dark plots. One call where a plot is made.
class QCustomPlot;

/// Applies the palette to `plot` and keeps doing so on every palette change.
void followPalette(QCustomPlot* plot);
/// Applies the plot's current palette once (and replots).
void applyPlotPalette(QCustomPlot* plot);
