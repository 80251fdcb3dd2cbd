#pragma once
// HeatmapViewport: which part of the rank x step matrix the Cluster view shows and how it
// maps to pixels — columns (steps) along x, rows (ranks) along y, as a window in cell units
// over a plot of width x height pixels. Zoom at a point, pan by pixels, show all; the window
// never leaves the matrix and never gets narrower than one cell. A plain object (no
// widget), shared by the heatmap and the per-rank bars so their rows line up.
#include <cstddef>

class HeatmapViewport {
public:
    /// The matrix size; shows all of it.
    void setExtent(size_t rows, size_t cols);
    void setPlotSize(int width, int height);
    size_t rows() const { return m_rows; }
    size_t cols() const { return m_cols; }
    int width() const { return m_width; }
    int height() const { return m_height; }

    // The window, in cells: columns [col0, col1), rows [row0, row1).
    double col0() const { return m_c0; }
    double col1() const { return m_c1; }
    double row0() const { return m_r0; }
    double row1() const { return m_r1; }

    double colAt(double x) const;  // x in plot pixels -> column (fractional)
    double rowAt(double y) const;
    double xOf(double col) const;
    double yOf(double row) const;
    double cellWidth() const;  // pixels per column
    double cellHeight() const;
    /// The cell under (x, y), or false outside the matrix.
    bool cellAt(double x, double y, size_t& row, size_t& col) const;

    /// factor > 1 zooms in, keeping what is under (x, y) there; `cols` / `rows` choose axes.
    void zoomAt(double x, double y, double factor, bool cols = true, bool rows = true);
    /// Moves the window by a drag of (dx, dy) pixels.
    void pan(double dx, double dy);
    void showAll();
    /// Shows columns [c0, c1) and rows [r0, r1) (clamped).
    void showCells(double c0, double c1, double r0, double r1);

private:
    void clamp();
    size_t m_rows = 0, m_cols = 0;
    int m_width = 1, m_height = 1;
    double m_c0 = 0, m_c1 = 1, m_r0 = 0, m_r1 = 1;
};
