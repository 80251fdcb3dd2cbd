#include "views/common/plot_theme.h"

#include <qcustomplot.h>

#include <QEvent>

namespace {

class PaletteFollower : public QObject {
public:
    explicit PaletteFollower(QCustomPlot* plot) : QObject(plot), m_plot(plot) {}
    bool eventFilter(QObject* watched, QEvent* e) override {
        if (watched == m_plot && e->type() == QEvent::PaletteChange) applyPlotPalette(m_plot);
        return false;
    }

private:
    QCustomPlot* m_plot;
};

}  // namespace

void applyPlotPalette(QCustomPlot* plot) {
    const QPalette& pal = plot->palette();
    const QColor base = pal.color(QPalette::Base), text = pal.color(QPalette::Text);
    const bool dark = base.lightness() < 128;
    const QColor grid = dark ? QColor(0x3a, 0x3d, 0x42) : QColor(0xdc, 0xdc, 0xdc);
    const QColor subGrid = dark ? QColor(0x2c, 0x2f, 0x33) : QColor(0xf0, 0xf0, 0xf0);
    plot->setBackground(base);
    for (QCPAxisRect* rect : plot->axisRects()) {
        rect->setBackground(base);
        for (QCPAxis* axis : rect->axes()) {
            axis->setBasePen(QPen(text, 1));
            axis->setTickPen(QPen(text, 1));
            axis->setSubTickPen(QPen(text, 1));
            axis->setTickLabelColor(text);
            axis->setLabelColor(text);
            axis->grid()->setPen(QPen(grid, 1, Qt::DotLine));
            axis->grid()->setSubGridPen(QPen(subGrid, 1, Qt::DotLine));
            axis->grid()->setZeroLinePen(QPen(grid, 1));
        }
    }
    if (plot->legend) {
        plot->legend->setBrush(QBrush(base));
        plot->legend->setTextColor(text);
        plot->legend->setBorderPen(QPen(grid));
    }
    for (int i = 0; i < plot->itemCount(); ++i)
        if (auto* t = qobject_cast<QCPItemText*>(plot->item(i));
            t && dark != (t->color().lightness() > 128))
            t->setColor(text);
    plot->replot(QCustomPlot::rpQueuedReplot);
}

void followPalette(QCustomPlot* plot) {
    plot->installEventFilter(new PaletteFollower(plot));
    applyPlotPalette(plot);
}
