#include "views/diff/diff_split_plot.h"

#include <algorithm>

#include "core/timeline/time_axis.h"
#include "views/common/plot_theme.h"

namespace {

/// Unit for the value axis so bars read in whole numbers.
std::pair<double, QString> unitFor(double ns) {
    if (ns >= 1e9) return {1e9, QStringLiteral("s")};
    if (ns >= 1e6) return {1e6, QStringLiteral("ms")};
    if (ns >= 1e3) return {1e3, QStringLiteral("µs")};
    return {1, QStringLiteral("ns")};
}

/// A short tick label for a part (the long one is in the table's tooltip and the CLI).
QString shortLabel(const std::string& key) {
    static const std::pair<const char*, const char*> kShort[] = {{"iteration_gap", "gap/data"},
                                                                 {"forward", "forward"},
                                                                 {"backward", "backward"},
                                                                 {"optimizer", "optimizer"},
                                                                 {"callbacks", "callbacks"},
                                                                 {"cpu_ops", "CPU ops"},
                                                                 {"idle", "idle"},
                                                                 {"communication", "comm."},
                                                                 {"kernels", "kernels"},
                                                                 {"device_idle", "dev. idle"}};
    for (const auto& [k, v] : kShort)
        if (key == k) return QObject::tr(v);
    return QString::fromStdString(key);
}

}  // namespace

DiffSplitPlot::DiffSplitPlot(QWidget* parent) : QCustomPlot(parent) {
    setMinimumSize(280, 140);
    legend->setVisible(true);
    legend->setBrush(QColor(255, 255, 255, 200));
    axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignLeft);
    xAxis->setTickLabelRotation(35);
    xAxis->setTickLength(0, 3);
    followPalette(this);
}

void DiffSplitPlot::setDiff(const ts::analysis::RunDiff& d) {
    clearPlottables();
    clearItems();
    m_a = m_b = nullptr;
    if (d.split.empty()) {
        replot();
        return;
    }
    double maxNs = 0;
    for (const auto& p : d.split) maxNs = std::max({maxNs, p.ns[0], p.ns[1]});
    const auto [scale, unit] = unitFor(maxNs);
    auto* group = new QCPBarsGroup(this);
    group->setSpacing(2);
    m_a = new QCPBars(xAxis, yAxis);
    m_b = new QCPBars(xAxis, yAxis);
    m_a->setName(tr("A (%1)").arg(QString::fromStdString(d.a.label)));
    m_b->setName(tr("B (%1)").arg(QString::fromStdString(d.b.label)));
    m_a->setBrush(QColor(86, 120, 160));
    m_a->setPen(QPen(QColor(86, 120, 160).darker(130)));
    m_b->setBrush(QColor(230, 159, 0));
    m_b->setPen(QPen(QColor(230, 159, 0).darker(130)));
    auto ticker = QSharedPointer<QCPAxisTickerText>::create();
    QVector<double> keys, va, vb;
    for (size_t i = 0; i < d.split.size(); ++i) {
        const auto& p = d.split[i];
        const double k = static_cast<double>(i + 1);
        keys << k;
        va << p.ns[0] / scale;
        vb << p.ns[1] / scale;
        QString label = shortLabel(p.key);
        if (!p.disjoint) label = QStringLiteral("(%1)").arg(label);
        ticker->addTick(k, label);
        if (p.key == d.splitExplains) {
            auto* mark = new QCPItemText(this);
            mark->position->setCoords(k, std::max(p.ns[0], p.ns[1]) / scale);
            mark->setPositionAlignment(Qt::AlignHCenter | Qt::AlignBottom);
            mark->setText(tr("▲ %1%2")
                              .arg(p.ns[1] >= p.ns[0] ? QStringLiteral("+") : QStringLiteral("-"))
                              .arg(QString::fromStdString(
                                  ts::timeline::formatDuration(std::abs(p.ns[1] - p.ns[0])))));
            mark->setColor(QColor(192, 57, 43));
            QFont f = font();
            f.setBold(true);
            mark->setFont(f);
        }
    }
    for (QCPBars* b : {m_a, m_b}) {
        b->setWidth(0.38);
        b->setBarsGroup(group);
    }
    m_a->setData(keys, va, true);
    m_b->setData(keys, vb, true);
    xAxis->setTicker(ticker);
    xAxis->setRange(0.4, static_cast<double>(d.split.size()) + 0.6);
    yAxis->setLabel(tr("per step (%1)").arg(unit));
    // Headroom above the bars for the legend and the "explains" mark.
    yAxis->setRange(0, maxNs / scale * 1.55 + 1e-9);
    replot();
}
