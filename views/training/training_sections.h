#pragma once
// The settings of a training run as the Training panel edits them: one section per group of
// ts::run::JobOptions fields (model & data, optimizer & schedule, precision & memory,
// callbacks). A section is a widget that writes its fields into JobOptions and shows them
// back. The "Instrumentation" group of the panel is made of the sections that
// instrumentationSections() lists: a feature that adds fields to JobOptions (profiler, dumps,
// overflow checks, crash recorder) adds one factory there and nothing else in the panel.
#include <QString>
#include <QWidget>
#include <functional>
#include <memory>
#include <vector>

#include "core/run/training_job.h"

class TrainingOptionsSection {
public:
    virtual ~TrainingOptionsSection() = default;
    /// Group box title, e.g. "Optimizer".
    virtual QString title() const = 0;
    /// The section's editor; the panel reparents it into its group box.
    virtual QWidget* widget() = 0;
    /// Writes the section's settings into `o`; returns what is wrong with them ("" when
    /// nothing is), naming the field as the panel labels it.
    virtual QString apply(ts::run::JobOptions& o) const = 0;
    /// Shows the settings of `o` (a past run's, or the defaults).
    virtual void load(const ts::run::JobOptions& o) = 0;
};

using TrainingSectionFactory = std::function<std::unique_ptr<TrainingOptionsSection>()>;

/// The built-in sections, in panel order.
std::vector<std::unique_ptr<TrainingOptionsSection>> builtinTrainingSections();
/// Sections of the "Instrumentation" group, in panel order (empty: the group is hidden).
const std::vector<TrainingSectionFactory>& instrumentationSections();

// The built-in sections (training_sections_*.cpp).
std::unique_ptr<TrainingOptionsSection> makeModelDataSection();
std::unique_ptr<TrainingOptionsSection> makeOptimizerSection();
std::unique_ptr<TrainingOptionsSection> makePrecisionSection();
std::unique_ptr<TrainingOptionsSection> makeCallbacksSection();
// The instrumentation sections (training_sections_instrumentation.cpp).
std::unique_ptr<TrainingOptionsSection> makeProfilerSection();
std::unique_ptr<TrainingOptionsSection> makeDumpSection();
std::unique_ptr<TrainingOptionsSection> makeCrashRecorderSection();
