#pragma once
// CurvesView: loss curves of the session's training runs (view name "curves").
// Left: the runs, each with a check box and its colour, filtered by a regular expression
// (a summary folder of many runs); ticked runs that pass the filter are overlaid.
// Top: smoothing slider (0..0.99), log scale, x axis (step / wall time), export
// (PNG, PDF, CSV). Right: CurvesChart with a panel per scalar tag. Runs that are
// 'running' are polled live by CurvesLoader; dataChanged reloads the run list.
#include <QHash>
#include <QWidget>

#include "core/curves/scalar_series.h"

class CurvesChart;
class CurvesLoader;
class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QListWidgetItem;
class QSlider;
class SessionContext;

class CurvesView : public QWidget {
    Q_OBJECT
public:
    /// Runs ticked when a session opens (the newest ones).
    static constexpr size_t kInitiallyShown = 5;

    explicit CurvesView(SessionContext* ctx, QWidget* parent = nullptr);

    CurvesChart* chart() const { return m_chart; }
    CurvesLoader* loader() const { return m_loader; }
    /// One item per run; Qt::UserRole holds the run id, the check state whether it is shown.
    QListWidget* runList() const { return m_runList; }

    /// Smoothing weight, 0..0.99 (moves the slider).
    void setSmoothing(double weight);
    void setLogScale(bool on);
    void setWallTimeAxis(bool on);
    /// The difference series (B − A of the two runs shown; see CurvesChart::setDifference).
    void setDifference(bool on);
    /// Shows only the tags matching `regex` (moves the filter field); "" shows all.
    void setTagFilter(const QString& regex);
    /// Lists and draws only the runs whose label (name, id, status) matches `regex` (moves
    /// the run filter field); ticks are kept for when the filter lets a run back in.
    void setRunFilter(const QString& regex);
    /// Width of the run list beside the plots.
    void setRunListWidth(int px);

    /// Writes the plots as PNG or PDF (by the file's extension) or the shown runs' scalars
    /// as CSV. On failure returns false and sets `error`.
    bool exportTo(const QString& path, QString* error = nullptr);

private:
    void onSessionChanged();
    void onRunsListed(const std::vector<ts::curves::RunEntry>& runs);
    void onItemChanged(QListWidgetItem* item);
    void onRunStatusChanged(qint64 runId, ts::store::RunStatus status);
    void onExportClicked();
    void applyShownRuns();
    void updateStatus();

    SessionContext* m_ctx;
    CurvesChart* m_chart;
    CurvesLoader* m_loader;
    QListWidget* m_runList;
    QSlider* m_smoothing;
    QLabel* m_smoothingLabel;
    QCheckBox* m_log;
    QCheckBox* m_difference;
    QComboBox* m_xAxis;
    QLineEdit* m_filter;
    QLineEdit* m_runFilter;
    class QSplitter* m_split = nullptr;
    QLabel* m_status;
    QString m_lastError;
    QHash<qint64, ts::curves::RunEntry> m_entries;
    bool m_updatingList = false;
};
