#pragma once
// CurvesChart: the plots of the curves view, one QCustomPlot with one panel (axis rect)
// per scalar tag in TensorBoard's order (train/loss, eval/loss, eval/accuracy, ..., lr,
// loss_scale, ...). Each shown run draws a faint raw line and a smoothed line in its own
// colour in every panel it has data for (lr and loss_scale are not smoothed; per-epoch
// eval/* points are dots); loss-scale overflows are red markers on the
// loss_scale panel. Data arrives in pieces (addScalars) and is appended to the graphs;
// a new tag relays the panels out. Drag/wheel zoom a panel; a double click fits again;
// hovering shows each run's values at the x under the cursor.
#include <qcustomplot.h>
#include <QHash>
#include <QRegularExpression>
#include <QStringList>
#include <map>
#include <string>

#include "core/curves/scalar_series.h"
#include "core/curves/smoothing.h"

class CurvesChart : public QCustomPlot {
    Q_OBJECT
public:
    enum class XAxis { Step, WallTime };

    explicit CurvesChart(QWidget* parent = nullptr);

    /// Adds the rows of a (partial) read of a run; the first piece of a run adds the run.
    void addScalars(const ts::curves::RunScalars& piece);
    /// Forgets a run and its graphs.
    void removeRun(qint64 runId);
    void clearRuns();
    bool hasRun(qint64 runId) const { return m_runs.count(runId) != 0; }
    /// Ids of the runs shown, ascending.
    std::vector<qint64> runIds() const;

    /// Smoothing weight in [0, 0.999] (TensorBoard's EMA with debias); 0 shows raw lines.
    void setSmoothing(double weight);
    double smoothing() const { return m_weight; }
    void setLogScale(bool on);
    bool logScale() const { return m_log; }
    /// x = training step, or wall time in seconds since the run started.
    void setXAxis(XAxis axis);
    /// Shows only the tags matching this regular expression (TensorBoard's tag filter;
    /// "" shows every tag). An invalid expression shows every tag.
    void setTagFilter(const QString& regex);
    QString tagFilter() const { return m_filter.pattern(); }
    XAxis xAxisKind() const { return m_xAxis; }
    /// Fits every panel to its data again (and follows new data until the next zoom).
    void fitAll();
    /// With exactly two runs shown, each panel also draws B - A (the newer run minus the
    /// older, at the steps both logged; ts::analysis::differenceByStep) on its right axis.
    void setDifference(bool on);
    bool difference() const { return m_difference; }
    /// The difference graph of a tag's panel, or nullptr.
    QCPGraph* differenceGraph(const QString& tag) const;

    /// Tags with a panel, in display order.
    QStringList panelTags() const;
    QCPAxisRect* panelRect(const QString& tag) const;
    /// The raw / smoothed graph of a run's tag, or nullptr.
    QCPGraph* rawGraph(qint64 runId, const QString& tag) const;
    QCPGraph* smoothGraph(qint64 runId, const QString& tag) const;
    /// The overflow markers of a run, or nullptr when it has none.
    QCPGraph* overflowGraph(qint64 runId) const;
    /// Everything received for the shown runs, by run id (for CSV export).
    std::vector<ts::curves::RunScalars> data() const;

protected:
    void mousePressEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;

public:
    /// The tooltip text at a widget position: each run's value (raw and smoothed) nearest
    /// to the x under the cursor in the panel there ("" outside the panels).
    QString valuesAt(const QPointF& pos) const;

private:
private:
    struct TagGraphs {
        QCPGraph* raw = nullptr;
        QCPGraph* smooth = nullptr;
        ts::curves::EmaSmoother ema;
        bool smoothed = true;  // see ts::curves::isSmoothedTag
        bool dots = false;     // per-epoch series
    };
    struct RunCurves {
        ts::curves::RunScalars data;
        qint64 originNs = 0;
        std::map<std::string, TagGraphs> graphs;
        QCPGraph* overflow = nullptr;
    };
    struct Panel {
        QString tag;
        QCPAxisRect* rect = nullptr;
    };

    void rebuild();
    bool needsRebuild() const;
    std::vector<std::string> wantedTags() const;
    TagGraphs* makeGraphs(qint64 runId, RunCurves& run, const std::string& tag);
    void appendPoints(RunCurves& run, TagGraphs& g,
                      const std::vector<ts::curves::ScalarPoint>& pts);
    void refillSmooth(RunCurves& run, const std::string& tag, TagGraphs& g);
    void refreshOverflow(qint64 runId, RunCurves& run);
    double key(const RunCurves& run, const ts::curves::ScalarPoint& p) const;
    void fixOrigin(RunCurves& run);
    void applyScaleType();
    void autoFit();
    void fitTickCounts();
    void styleGraphs(TagGraphs& g, const QColor& colour);
    void showRaw(TagGraphs& g) const;
    void refreshDifference();

    std::map<qint64, RunCurves> m_runs;
    std::vector<Panel> m_panels;
    double m_weight = 0.6;
    bool m_log = false;
    bool m_follow = true;
    XAxis m_xAxis = XAxis::Step;
    QRegularExpression m_filter;
    bool m_difference = false;
    std::map<QString, QCPGraph*> m_differenceGraphs;  // by tag
};
