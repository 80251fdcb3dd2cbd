#pragma once
// TrainingForm: every setting of a training run, as group boxes of TrainingOptionsSections
// (the built-in ones, then the "Instrumentation" sections when any is registered) in a
// scroll area. It turns them into ts::run::JobOptions and shows a past run's back.
#include <QWidget>
#include <memory>
#include <vector>

#include "core/run/training_job.h"

class TrainingOptionsSection;

class TrainingForm : public QWidget {
    Q_OBJECT
public:
    explicit TrainingForm(QWidget* parent = nullptr);
    ~TrainingForm() override;

    /// The settings as JobOptions (sessionPath and runName left empty). On invalid input
    /// returns false and sets `error` to what is wrong, naming the field.
    bool options(ts::run::JobOptions* out, QString* error) const;
    /// Shows `o` in every section.
    void setOptions(const ts::run::JobOptions& o);
    /// Number of sections (built-in and instrumentation).
    int sectionCount() const { return static_cast<int>(m_sections.size()); }

private:
    std::vector<std::unique_ptr<TrainingOptionsSection>> m_sections;
};
