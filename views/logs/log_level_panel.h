#pragma once
// LogLevelPanel: the global log level and a table of sub-modules with their own levels.
// Every change applies at once to the process's logger (a running engine logs with the
// new levels on its next call); "Save as default" stores them in QSettings, and
// applySavedLogLevels() restores them at start-up.
#include <QWidget>

class QComboBox;
class QTableWidget;
class QSettings;

class LogLevelPanel : public QWidget {
    Q_OBJECT
public:
    explicit LogLevelPanel(QWidget* parent = nullptr);

    /// Re-reads the logger's levels into the controls.
    void refresh();
    /// Writes the current levels to `settings` (group "logging").
    void saveAsDefault(QSettings& settings);

    QComboBox* globalCombo() const { return m_global; }
    /// The combo of a sub-module row (index 0 = follow the global level, 1..5 = DEBUG..CRITICAL).
    QComboBox* moduleCombo(int row) const;
    int moduleRows() const;

signals:
    void levelsChanged();

private:
    void applyGlobal(int index);
    void applyModule(int row, int index);
    QComboBox* m_global;
    QTableWidget* m_table;
    bool m_updating = false;
};

/// Applies levels saved by LogLevelPanel::saveAsDefault. When `environmentWins`, GLOG_v
/// and MS_SUBMODULE_LOG_v (if set) keep priority over the saved global/sub-module levels.
void applySavedLogLevels(QSettings& settings, bool environmentWins = true);
