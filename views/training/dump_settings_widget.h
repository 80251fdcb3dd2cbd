#pragma once
// DumpSettingsWidget: the dump.json settings and the overflow check as a form, for the
// Training panel (or any dialog that starts a run) to embed: dump on/off, dump_path,
// dump_mode, dump_list, op_filter, steps, file per step or run, load_file_path; overflow
// check and stop at the first overflow. applyTo() fills the JobOptions block of
// core/run/training_job.h; validate() parses the result with the same parser as the CLI.
#include <QWidget>

#include "core/run/training_job.h"

class QCheckBox;
class QComboBox;
class QGroupBox;
class QLineEdit;

class DumpSettingsWidget : public QWidget {
    Q_OBJECT
public:
    explicit DumpSettingsWidget(QWidget* parent = nullptr);

    /// dump.json text for the current form ("" when dumping is off).
    std::string dumpJson() const;
    bool overflowCheck() const;
    bool stopOnOverflow() const;
    /// Empty when the settings are usable, else the message to show.
    QString validate() const;
    /// Sets dumpConfigJson, overflowCheck and stopOnOverflow of `o`.
    void applyTo(ts::run::JobOptions& o) const;
    /// Shows the dump and overflow settings of `o` (dumping off when dumpConfigJson is empty).
    void setFrom(const ts::run::JobOptions& o);
    /// Fills the form from dump.json text (fields it does not know are dropped).
    bool load(const std::string& dumpJson, QString* error = nullptr);

    QGroupBox* dumpBox() const { return m_dump; }

private:
    QGroupBox* m_dump;
    QLineEdit* m_path;
    QComboBox* m_mode;
    QLineEdit* m_list;
    QLineEdit* m_filter;
    QLineEdit* m_steps;
    QComboBox* m_filePer;
    QLineEdit* m_load;
    QCheckBox* m_overflow;
    QCheckBox* m_stop;
};
