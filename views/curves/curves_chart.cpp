#include "views/curves/curves_chart.h"

#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "core/analysis/diff/scalar_diff.h"
#include "views/common/plot_theme.h"
#include "views/common/run_colour.h"

using ts::curves::RunScalars;
using ts::curves::ScalarPoint;

namespace {

constexpr const char* kLossScale = "loss_scale";

double plotValue(double v) {
    return std::isfinite(v) ? v : std::numeric_limits<double>::quiet_NaN();
}

/// Loss scale in force at `step`: the last loss_scale sample at or before it (1 if none).
const ScalarPoint* scaleAt(const RunScalars& run, int64_t step) {
    const auto* s = run.find(kLossScale);
    if (!s || s->points.empty()) return nullptr;
    const ScalarPoint* best = nullptr;
    for (const auto& p : s->points)
        if (p.step <= step && (!best || p.step >= best->step)) best = &p;
    return best ? best : &s->points.front();
}

}  // namespace

CurvesChart::CurvesChart(QWidget* parent) : QCustomPlot(parent) {
    setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    setNoAntialiasingOnDrag(true);
    // Polylines instead of line segments: a replot of six panels of 20k-point runs drops
    // from ~100 ms to ~20 ms, which keeps live updates from stalling the UI.
    setPlottingHint(QCP::phFastPolylines, true);
    setMinimumSize(320, 240);
    connect(this, &QCustomPlot::beforeReplot, this, [this] { fitTickCounts(); });
    rebuild();
    followPalette(this);
}

void CurvesChart::fitTickCounts() {
    // Value ticks about 30 px apart: five labels in a short panel overlap one another.
    if (m_panels.empty()) return;
    const int columns = m_panels.size() > 1 ? 2 : 1;
    const int rows = static_cast<int>((m_panels.size() + columns - 1) / columns);
    const int plotHeight = height() / rows - 2 * fontMetrics().height() - 16;  // title, x axis
    const int ticks = std::clamp(plotHeight / 30, 2, 5);
    for (const Panel& p : m_panels) p.rect->axis(QCPAxis::atLeft)->ticker()->setTickCount(ticks);
}

void CurvesChart::addScalars(const RunScalars& piece) {
    RunCurves& run = m_runs[piece.runId];
    RunScalars copy = piece;
    ts::curves::mergeScalars(run.data, std::move(copy));
    fixOrigin(run);
    // A new run that brings no new tag only adds its graphs to the panels there are.
    if (needsRebuild()) {
        rebuild();
        return;
    }
    for (const auto& s : piece.series) {
        auto g = run.graphs.find(s.tag);
        if (g == run.graphs.end()) {
            TagGraphs* made = makeGraphs(piece.runId, run, s.tag);
            if (made) appendPoints(run, *made, run.data.find(s.tag)->points);
        } else {
            appendPoints(run, g->second, s.points);
        }
    }
    if (!piece.overflows.empty() || piece.find(kLossScale)) refreshOverflow(piece.runId, run);
    refreshDifference();
    autoFit();
    replot(rpQueuedReplot);
}

void CurvesChart::removeRun(qint64 runId) {
    if (m_runs.erase(runId)) rebuild();
}

void CurvesChart::clearRuns() {
    m_runs.clear();
    rebuild();
}

void CurvesChart::setSmoothing(double weight) {
    m_weight = ts::curves::clampWeight(weight);
    for (auto& [id, run] : m_runs)
        for (auto& [tag, g] : run.graphs) refillSmooth(run, tag, g);
    replot(rpQueuedReplot);
}

void CurvesChart::setLogScale(bool on) {
    if (m_log == on) return;
    m_log = on;
    applyScaleType();
    fitAll();
}

void CurvesChart::setXAxis(XAxis axis) {
    if (m_xAxis == axis) return;
    m_xAxis = axis;
    m_follow = true;
    rebuild();
}

void CurvesChart::setTagFilter(const QString& regex) {
    if (regex == m_filter.pattern()) return;
    m_filter.setPattern(regex);
    m_follow = true;
    rebuild();
}

void CurvesChart::fitAll() {
    m_follow = true;
    autoFit();
    replot(rpQueuedReplot);
}

QStringList CurvesChart::panelTags() const {
    QStringList out;
    for (const auto& p : m_panels) out << p.tag;
    return out;
}

QCPAxisRect* CurvesChart::panelRect(const QString& tag) const {
    for (const auto& p : m_panels)
        if (p.tag == tag) return p.rect;
    return nullptr;
}

QCPGraph* CurvesChart::rawGraph(qint64 runId, const QString& tag) const {
    auto r = m_runs.find(runId);
    if (r == m_runs.end()) return nullptr;
    auto g = r->second.graphs.find(tag.toStdString());
    return g == r->second.graphs.end() ? nullptr : g->second.raw;
}

QCPGraph* CurvesChart::smoothGraph(qint64 runId, const QString& tag) const {
    auto r = m_runs.find(runId);
    if (r == m_runs.end()) return nullptr;
    auto g = r->second.graphs.find(tag.toStdString());
    return g == r->second.graphs.end() ? nullptr : g->second.smooth;
}

QCPGraph* CurvesChart::overflowGraph(qint64 runId) const {
    auto r = m_runs.find(runId);
    return r == m_runs.end() ? nullptr : r->second.overflow;
}

std::vector<qint64> CurvesChart::runIds() const {
    std::vector<qint64> out;
    for (const auto& [id, run] : m_runs) out.push_back(id);
    return out;
}

std::vector<RunScalars> CurvesChart::data() const {
    std::vector<RunScalars> out;
    for (const auto& [id, run] : m_runs) out.push_back(run.data);
    return out;
}

void CurvesChart::mousePressEvent(QMouseEvent* event) {
    m_follow = false;
    QCustomPlot::mousePressEvent(event);
}

void CurvesChart::wheelEvent(QWheelEvent* event) {
    m_follow = false;
    QCustomPlot::wheelEvent(event);
}

void CurvesChart::mouseDoubleClickEvent(QMouseEvent* event) {
    QCustomPlot::mouseDoubleClickEvent(event);
    fitAll();
}

void CurvesChart::mouseMoveEvent(QMouseEvent* event) {
    QCustomPlot::mouseMoveEvent(event);
    if (event->buttons() != Qt::NoButton) return;
    const QString text = valuesAt(event->position());
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(event->globalPosition().toPoint(), text, this);
}

QString CurvesChart::valuesAt(const QPointF& pos) const {
    QCPAxisRect* rect = axisRectAt(pos);
    if (!rect) return {};
    const double x = rect->axis(QCPAxis::atBottom)->pixelToCoord(pos.x());
    QStringList lines;
    for (const auto& [id, run] : m_runs) {
        for (const auto& [tag, g] : run.graphs) {
            if (g.raw->keyAxis()->axisRect() != rect || g.raw->data()->isEmpty()) continue;
            // The sample nearest to x (QCP keeps graph data sorted by key).
            // findBegin(x, true): the last sample at or below x (the first one if none is).
            auto it = g.raw->data()->findBegin(x, true);
            if (it == g.raw->data()->constEnd()) --it;
            auto next = it + 1;
            if (next != g.raw->data()->constEnd() &&
                std::abs(next->key - x) < std::abs(it->key - x))
                it = next;
            const int i = static_cast<int>(it - g.raw->data()->constBegin());
            const double smoothed = g.smooth->data()->at(i)->value;
            QString line =
                QStringLiteral("<span style='color:%1'>■</span> %2: %3 %4 = %5")
                    .arg(runColour(id).name(),
                         QString::fromStdString(run.data.name).toHtmlEscaped(),
                         m_xAxis == XAxis::Step ? tr("step") : tr("t"),
                         QString::number(it->key, 'g', 8), QString::number(it->value, 'g', 6));
            if (g.smoothed && m_weight > 0)
                line += tr(" (smoothed %1)").arg(QString::number(smoothed, 'g', 6));
            lines << line;
        }
    }
    return lines.join(QStringLiteral("<br>"));
}

std::vector<std::string> CurvesChart::wantedTags() const {
    std::vector<std::string> tags;
    for (const auto& [id, run] : m_runs) {
        for (const auto& s : run.data.series)
            if (std::find(tags.begin(), tags.end(), s.tag) == tags.end()) tags.push_back(s.tag);
        if (!run.data.overflows.empty() &&
            std::find(tags.begin(), tags.end(), kLossScale) == tags.end())
            tags.emplace_back(kLossScale);
    }
    if (!m_filter.pattern().isEmpty() && m_filter.isValid())
        tags.erase(std::remove_if(tags.begin(), tags.end(),
                                  [this](const std::string& t) {
                                      return !m_filter.match(QString::fromStdString(t)).hasMatch();
                                  }),
                   tags.end());
    std::sort(tags.begin(), tags.end(),
              [](const std::string& a, const std::string& b) { return ts::curves::tagLess(a, b); });
    return tags;
}

bool CurvesChart::needsRebuild() const {
    const auto tags = wantedTags();
    if (tags.size() != m_panels.size()) return true;
    for (size_t i = 0; i < tags.size(); ++i)
        if (m_panels[i].tag != QString::fromStdString(tags[i])) return true;
    return false;
}

void CurvesChart::setDifference(bool on) {
    if (m_difference == on) return;
    m_difference = on;
    refreshDifference();
    replot(rpQueuedReplot);
}

QCPGraph* CurvesChart::differenceGraph(const QString& tag) const {
    auto it = m_differenceGraphs.find(tag);
    return it == m_differenceGraphs.end() ? nullptr : it->second;
}

void CurvesChart::refreshDifference() {
    for (auto& [tag, g] : m_differenceGraphs) removeGraph(g);
    m_differenceGraphs.clear();
    for (const Panel& p : m_panels) p.rect->axis(QCPAxis::atRight)->setVisible(false);
    if (!m_difference || m_runs.size() != 2) return;
    const RunCurves& a = m_runs.begin()->second;  // ids ascending: A is the older run
    const RunCurves& b = std::next(m_runs.begin())->second;
    for (const Panel& p : m_panels) {
        const auto* sa = a.data.find(p.tag.toStdString());
        const auto* sb = b.data.find(p.tag.toStdString());
        if (!sa || !sb) continue;
        const auto points = ts::analysis::differenceByStep(*sa, *sb);
        if (points.empty()) continue;
        QCPAxis* y = p.rect->axis(QCPAxis::atRight);
        y->setVisible(true);
        y->setTickLabels(true);
        y->setLabel(tr("B − A"));
        y->setLabelColor(QColor(60, 60, 60));
        QCPGraph* g = addGraph(p.rect->axis(QCPAxis::atBottom), y);
        g->setName(tr("%1 − %2 · %3")
                       .arg(QString::fromStdString(b.data.name),
                            QString::fromStdString(a.data.name), p.tag));
        g->setPen(QPen(QColor(40, 40, 40), 1.3, Qt::DashLine));
        QVector<double> keys, vals;
        for (const auto& pt : points) {
            keys << key(b, pt);
            vals << plotValue(pt.value);
        }
        g->setData(keys, vals);
        bool found = false;
        const QCPRange r = g->getValueRange(found);
        if (found) {
            const double pad =
                r.size() > 0 ? r.size() * 0.08 : std::max(std::abs(r.lower) * 0.1, 1e-6);
            y->setRange(r.lower - pad, r.upper + pad);
        }
        m_differenceGraphs[p.tag] = g;
    }
}

void CurvesChart::rebuild() {
    clearGraphs();
    m_differenceGraphs.clear();  // deleted with the other graphs
    plotLayout()->clear();
    m_panels.clear();
    for (auto& [id, run] : m_runs) {
        run.graphs.clear();
        run.overflow = nullptr;
    }
    const auto tags = wantedTags();
    if (tags.empty()) {
        plotLayout()->addElement(0, 0,
                                 new QCPTextElement(this, tr("No scalars to show: tick a run")));
        replot(rpQueuedReplot);
        return;
    }
    const int columns = tags.size() > 1 ? 2 : 1;
    QFont titleFont = font();
    titleFont.setBold(true);
    for (size_t i = 0; i < tags.size(); ++i) {
        auto* cell = new QCPLayoutGrid;
        plotLayout()->addElement(static_cast<int>(i) / columns, static_cast<int>(i) % columns,
                                 cell);
        cell->setRowSpacing(0);
        const QString tag = QString::fromStdString(tags[i]);
        cell->addElement(0, 0, new QCPTextElement(this, tag, titleFont));
        auto* rect = new QCPAxisRect(this);
        cell->addElement(1, 0, rect);
        rect->axis(QCPAxis::atBottom)
            ->setLabel(m_xAxis == XAxis::Step ? tr("step") : tr("wall time (s)"));
        rect->setRangeDrag(Qt::Horizontal | Qt::Vertical);
        rect->setRangeZoom(Qt::Horizontal | Qt::Vertical);
        m_panels.push_back(Panel{tag, rect});
    }
    applyScaleType();
    for (auto& [id, run] : m_runs) {
        for (const auto& s : run.data.series)
            if (TagGraphs* g = makeGraphs(id, run, s.tag)) appendPoints(run, *g, s.points);
        refreshOverflow(id, run);
    }
    refreshDifference();
    autoFit();
    replot(rpQueuedReplot);
}

CurvesChart::TagGraphs* CurvesChart::makeGraphs(qint64 runId, RunCurves& run,
                                                const std::string& tag) {
    QCPAxisRect* rect = panelRect(QString::fromStdString(tag));
    if (!rect) return nullptr;
    TagGraphs g;
    auto* x = rect->axis(QCPAxis::atBottom);
    auto* y = rect->axis(QCPAxis::atLeft);
    g.raw = addGraph(x, y);
    g.smooth = addGraph(x, y);
    const QString name = QStringLiteral("%1 · %2").arg(QString::fromStdString(run.data.name),
                                                       QString::fromStdString(tag));
    g.raw->setName(name + tr(" (raw)"));
    g.smooth->setName(name);
    g.smoothed = ts::curves::isSmoothedTag(tag);
    g.dots = tag.starts_with("eval/");
    g.ema = ts::curves::EmaSmoother(g.smoothed ? m_weight : 0.0);
    styleGraphs(g, runColour(runId));
    return &(run.graphs[tag] = g);
}

void CurvesChart::styleGraphs(TagGraphs& g, const QColor& colour) {
    QColor faint = colour;
    faint.setAlpha(70);
    g.raw->setPen(QPen(faint, 1));
    g.smooth->setPen(QPen(colour, 1.6));
    // Per-epoch series: the measured points stay visible as dots on the raw line.
    if (g.dots) g.raw->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssDisc, colour, colour, 5));
    showRaw(g);
}

void CurvesChart::showRaw(TagGraphs& g) const {
    g.raw->setVisible(g.dots || (g.smoothed && m_weight > 0));
}

void CurvesChart::appendPoints(RunCurves& run, TagGraphs& g, const std::vector<ScalarPoint>& pts) {
    QVector<double> keys, raw, smooth;
    keys.reserve(static_cast<qsizetype>(pts.size()));
    raw.reserve(keys.capacity());
    smooth.reserve(keys.capacity());
    for (const auto& p : pts) {
        keys << key(run, p);
        raw << plotValue(p.value);
        smooth << plotValue(g.ema.push(p.value));
    }
    g.raw->addData(keys, raw);
    g.smooth->addData(keys, smooth);
}

void CurvesChart::refillSmooth(RunCurves& run, const std::string& tag, TagGraphs& g) {
    const auto* series = run.data.find(tag);
    if (!series) return;
    std::vector<double> values;
    values.reserve(series->points.size());
    for (const auto& p : series->points) values.push_back(p.value);
    const double weight = g.smoothed ? m_weight : 0.0;
    const auto smoothed = ts::curves::smoothSeries(values, weight);
    QVector<double> keys, vals;
    for (size_t i = 0; i < series->points.size(); ++i) {
        keys << key(run, series->points[i]);
        vals << plotValue(smoothed[i]);
    }
    g.smooth->setData(keys, vals);
    showRaw(g);
    // Continue incrementally from the end of the series.
    g.ema = ts::curves::EmaSmoother(weight);
    for (double v : values) g.ema.push(v);
}

void CurvesChart::refreshOverflow(qint64 runId, RunCurves& run) {
    if (run.data.overflows.empty()) return;
    if (!run.overflow) {
        QCPAxisRect* rect = panelRect(QString::fromLatin1(kLossScale));
        if (!rect) return;
        run.overflow = addGraph(rect->axis(QCPAxis::atBottom), rect->axis(QCPAxis::atLeft));
        run.overflow->setName(QString::fromStdString(run.data.name) +
                              tr(" · overflow (step skipped)"));
        run.overflow->setLineStyle(QCPGraph::lsNone);
        run.overflow->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssTriangleInverted,
                                                      runColour(runId), QColor(Qt::red), 9));
    }
    QVector<double> keys, vals;
    for (const auto& o : run.data.overflows) {
        const ScalarPoint* at = scaleAt(run.data, o.step);
        ScalarPoint p{o.step, o.tsNs, at ? at->value : 1.0};
        if (!p.wallTimeNs && at) p.wallTimeNs = at->wallTimeNs;
        keys << key(run, p);
        vals << plotValue(p.value);
    }
    run.overflow->setData(keys, vals);
}

double CurvesChart::key(const RunCurves& run, const ScalarPoint& p) const {
    if (m_xAxis == XAxis::Step) return static_cast<double>(p.step);
    return static_cast<double>(p.wallTimeNs - run.originNs) / 1e9;
}

void CurvesChart::fixOrigin(RunCurves& run) {
    if (run.originNs) return;
    if (run.data.startedAtNs > 0) {
        run.originNs = run.data.startedAtNs;
        return;
    }
    for (const auto& s : run.data.series)
        for (const auto& p : s.points)
            if (p.wallTimeNs && (!run.originNs || p.wallTimeNs < run.originNs))
                run.originNs = p.wallTimeNs;
}

void CurvesChart::applyScaleType() {
    for (const auto& p : m_panels) {
        QCPAxis* y = p.rect->axis(QCPAxis::atLeft);
        if (m_log) {
            y->setScaleType(QCPAxis::stLogarithmic);
            y->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
        } else {
            y->setScaleType(QCPAxis::stLinear);
            y->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
        }
        // Short panels: a few labelled ticks stay readable.
        y->ticker()->setTickCount(4);
    }
}

void CurvesChart::autoFit() {
    if (!m_follow) return;
    // Every panel shares the x range of all data, so a per-epoch eval point lines up with the
    // training steps it follows.
    bool haveX = false;
    QCPRange x;
    for (const auto& p : m_panels)
        for (QCPAbstractPlottable* g : p.rect->axis(QCPAxis::atBottom)->plottables()) {
            bool found = false;
            const QCPRange r = g->getKeyRange(found);
            if (!found) continue;
            x = haveX ? QCPRange(std::min(x.lower, r.lower), std::max(x.upper, r.upper)) : r;
            haveX = true;
        }
    const double xPad = x.size() > 0 ? x.size() * 0.02 : 1.0;
    for (const auto& p : m_panels) {
        if (haveX) p.rect->axis(QCPAxis::atBottom)->setRange(x.lower - xPad, x.upper + xPad);
        // The value range of the visible graphs, computed here: QCPAxis::rescale keeps the
        // old span for a single value or a flat line, which padding would then grow forever.
        QCPAxis* axis = p.rect->axis(QCPAxis::atLeft);
        const bool log = axis->scaleType() == QCPAxis::stLogarithmic;
        bool haveY = false;
        QCPRange r;
        for (QCPAbstractPlottable* g : axis->plottables()) {
            if (!g->visible()) continue;
            bool found = false;
            const QCPRange v =
                g->getValueRange(found, log ? QCP::sdPositive : QCP::sdBoth, QCPRange());
            if (!found) continue;
            r = haveY ? QCPRange(std::min(r.lower, v.lower), std::max(r.upper, v.upper)) : v;
            haveY = true;
        }
        if (!haveY) continue;
        if (!log) {
            // A single value (or a flat line) gets +-5% of itself around it.
            const double pad =
                r.size() > 0 ? r.size() * 0.06 : std::max(std::abs(r.lower) * 0.05, 1e-3);
            axis->setRange(r.lower - pad, r.upper + pad);
        } else if (r.lower > 0) {
            axis->setRange(r.lower / 1.2, r.upper * 1.2);
        }
    }
}
