#include "views/cluster/heatmap_viewport.h"

#include <algorithm>
#include <cmath>

void HeatmapViewport::setExtent(size_t rows, size_t cols) {
    m_rows = rows;
    m_cols = cols;
    showAll();
}

void HeatmapViewport::setPlotSize(int width, int height) {
    m_width = std::max(1, width);
    m_height = std::max(1, height);
}

double HeatmapViewport::colAt(double x) const {
    return m_c0 + x / m_width * (m_c1 - m_c0);
}
double HeatmapViewport::rowAt(double y) const {
    return m_r0 + y / m_height * (m_r1 - m_r0);
}
double HeatmapViewport::xOf(double col) const {
    return (col - m_c0) / (m_c1 - m_c0) * m_width;
}
double HeatmapViewport::yOf(double row) const {
    return (row - m_r0) / (m_r1 - m_r0) * m_height;
}
double HeatmapViewport::cellWidth() const {
    return m_width / (m_c1 - m_c0);
}
double HeatmapViewport::cellHeight() const {
    return m_height / (m_r1 - m_r0);
}

bool HeatmapViewport::cellAt(double x, double y, size_t& row, size_t& col) const {
    if (x < 0 || y < 0 || x >= m_width || y >= m_height) return false;
    const double c = std::floor(colAt(x)), r = std::floor(rowAt(y));
    if (c < 0 || r < 0 || c >= static_cast<double>(m_cols) || r >= static_cast<double>(m_rows))
        return false;
    col = static_cast<size_t>(c);
    row = static_cast<size_t>(r);
    return true;
}

void HeatmapViewport::zoomAt(double x, double y, double factor, bool cols, bool rows) {
    if (factor <= 0) return;
    if (cols) {
        const double at = colAt(x);
        m_c0 = at - (at - m_c0) / factor;
        m_c1 = at + (m_c1 - at) / factor;
    }
    if (rows) {
        const double at = rowAt(y);
        m_r0 = at - (at - m_r0) / factor;
        m_r1 = at + (m_r1 - at) / factor;
    }
    clamp();
}

void HeatmapViewport::pan(double dx, double dy) {
    const double dc = dx / m_width * (m_c1 - m_c0);
    const double dr = dy / m_height * (m_r1 - m_r0);
    m_c0 -= dc;
    m_c1 -= dc;
    m_r0 -= dr;
    m_r1 -= dr;
    clamp();
}

void HeatmapViewport::showAll() {
    m_c0 = 0;
    m_c1 = static_cast<double>(std::max<size_t>(1, m_cols));
    m_r0 = 0;
    m_r1 = static_cast<double>(std::max<size_t>(1, m_rows));
}

void HeatmapViewport::showCells(double c0, double c1, double r0, double r1) {
    m_c0 = c0;
    m_c1 = c1;
    m_r0 = r0;
    m_r1 = r1;
    clamp();
}

void HeatmapViewport::clamp() {
    auto fit = [](double& a, double& b, double extent) {
        extent = std::max(1.0, extent);
        double span = std::clamp(b - a, 1.0, extent);
        a = std::clamp(a, 0.0, extent - span);
        b = a + span;
    };
    fit(m_c0, m_c1, static_cast<double>(m_cols));
    fit(m_r0, m_r1, static_cast<double>(m_rows));
}
