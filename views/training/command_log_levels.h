#pragma once
// CommandLogLevels: the log levels of a command run — the framework's, not the studio's own
// (LogLevelPanel): a global level, PyTorch's C++ level, Ascend's global level and event
// logs, and MindSpore's sub-modules (the seeds' table: KERNEL, DEVICE, PIPELINE, ...). The
// launcher writes them as GLOG_v, GLOG_stderrthreshold, MS_SUBMODULE_LOG_v,
// ASCEND_GLOBAL_LOG_LEVEL, ASCEND_GLOBAL_EVENT_ENABLE and TORCH_CPP_LOG_LEVEL
// (core/run/launch_env.h); the Command form shows the resulting variables beside it.
#include <QWidget>
#include <vector>

#include "core/run/launch_spec.h"

class QCheckBox;
class QComboBox;
class QTableWidget;

class CommandLogLevels : public QWidget {
    Q_OBJECT
public:
    explicit CommandLogLevels(QWidget* parent = nullptr);

    /// What the controls say (nothing for controls left at "(framework default)").
    std::vector<ts::run::LogLevelSetting> settings() const;
    /// Shows `levels` (modules the table does not list are added as rows).
    void setSettings(const std::vector<ts::run::LogLevelSetting>& levels);

    QComboBox* globalCombo() const { return m_global; }
    QComboBox* torchCombo() const { return m_torch; }
    QComboBox* ascendCombo() const { return m_ascend; }
    QCheckBox* eventsCheck() const { return m_events; }
    QTableWidget* moduleTable() const { return m_modules; }
    /// The level combo of MindSpore sub-module `name`, or nullptr.
    QComboBox* moduleCombo(const QString& name) const;

    /// MindSpore's sub-modules, as the seeds list them.
    static const QStringList& mindsporeSubModules();

signals:
    void changed();

private:
    QComboBox* levelCombo();
    void apply(const std::vector<ts::run::LogLevelSetting>& levels);
    int addModuleRow(const QString& name);

    QComboBox* m_global;
    QComboBox* m_torch;
    QComboBox* m_ascend;
    QCheckBox* m_events;
    QTableWidget* m_modules;
};
