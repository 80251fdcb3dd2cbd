#pragma once
// CommandForm: the Training panel's second kind of run, "Command": a user's program (a
// PyTorch or MindSpore script, a launcher, any executable) with its arguments, working
// folder, environment, processes (one per rank), the folders to watch, the studio's
// debugging switches (PyTorch hooks: profiler, dumps, overflow check; crash records; log
// levels) and, below them, the exact variables the command will get. Presets fill the
// usual cases: a PyTorch script, a multi-process PyTorch job (RANK / WORLD_SIZE /
// MASTER_ADDR / MASTER_PORT per process) and a MindSpore script (RANK_ID / RANK_SIZE,
// GLOG_*, MS_*). It edits a ts::run::LaunchSpec (core/run/launch_spec.h).
#include <QWidget>

#include "core/run/launch_spec.h"

class CommandLogLevels;
class PathEdit;
class QCheckBox;
class QComboBox;
class QLineEdit;
class QPlainTextEdit;
class QSpinBox;
class QTableWidget;

class CommandForm : public QWidget {
    Q_OBJECT
public:
    enum Preset { PyTorchScript, PyTorchDistributed, MindSporeScript, AnyProgram };

    explicit CommandForm(QWidget* parent = nullptr);

    /// The settings; false with `error` naming the field when they are not valid.
    bool spec(ts::run::LaunchSpec* out, QString* error) const;
    /// Shows `s` (a past run's settings, or a preset's).
    void setSpec(const ts::run::LaunchSpec& s);
    /// Fills the form with a preset (keeps the program's script path and arguments).
    void applyPreset(Preset p);
    /// The variables the studio sets for rank 0 of a run of `sessionPath` ("NAME=value" per
    /// line with where it comes from), as the preview shows them.
    QString environmentText(const QString& sessionPath) const;

    QComboBox* presetCombo() const { return m_preset; }
    PathEdit* programEdit() const { return m_program; }
    QLineEdit* argumentsEdit() const { return m_args; }
    PathEdit* folderEdit() const { return m_cwd; }
    QSpinBox* processesSpin() const { return m_nproc; }
    QTableWidget* environmentTable() const { return m_env; }
    QPlainTextEdit* watchEdit() const { return m_watch; }
    QCheckBox* profileCheck() const { return m_profile; }
    QCheckBox* overflowCheck() const { return m_overflow; }
    PathEdit* dumpEdit() const { return m_dump; }
    QCheckBox* crashRecordCheck() const { return m_rdr; }
    QCheckBox* recordCudaCheck() const { return m_recordCuda; }
    CommandLogLevels* logLevels() const { return m_levels; }
    QPlainTextEdit* environmentPreview() const { return m_preview; }
    /// Arguments as a POSIX shell splits them (single quotes, double quotes with \\ escapes,
    /// backslashes); `error` says which quote is not closed.
    static QStringList splitArguments(const QString& text, QString* error);
    /// The inverse: each argument bare or single-quoted.
    static QString joinArguments(const QStringList& args);
    /// The session the preview shows paths for.
    void setSessionPath(const QString& path);

signals:
    void changed();

private:
    QWidget* commandBox();
    QWidget* environmentBox();
    QWidget* hooksBox();
    QWidget* crashBox();
    QWidget* cudaBox();
    void addEnvRow(const QString& name, const QString& value);
    void updatePreview();

    QComboBox* m_preset;
    PathEdit* m_program;
    QLineEdit* m_args;
    PathEdit* m_cwd;
    QLineEdit* m_name;
    QSpinBox* m_nproc;
    QComboBox* m_ranks;
    QTableWidget* m_env;
    QPlainTextEdit* m_watch;
    QLineEdit* m_lossRegex;
    QCheckBox* m_hooks;
    QCheckBox* m_loss;
    QCheckBox* m_profile;
    QSpinBox *m_wait, *m_warmup, *m_active, *m_repeat;
    PathEdit* m_dump;
    QCheckBox* m_overflow;
    QCheckBox* m_stopOnOverflow;
    QCheckBox* m_rdr;
    QComboBox* m_rdrMode;
    QCheckBox* m_recordCuda;
    CommandLogLevels* m_levels;
    QPlainTextEdit* m_preview;
    QString m_session;
    bool m_loading = false;
};
