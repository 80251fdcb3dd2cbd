#pragma once
// TensorsView (view "tensors"): the tensors of a summary tag (MindSpore's TensorSummary,
// SummaryCollector's collected tensors, TensorBoard tensors) in the tensor inspector the
// HDF5 dumps use (views/dumps/dataset_panel.h): shape, dtype, statistics and histogram,
// paged values, slices and heatmap. A step slider picks the step; the tensor is decoded
// and written to a scratch HDF5 file (core/debug/msdump/tensor_to_h5.h) on a job.
#include <QTemporaryDir>

#include "views/summary/summary_kind_view.h"

class DatasetPanel;
class QLabel;
class QSlider;

class TensorsView : public SummaryKindView {
    Q_OBJECT
public:
    explicit TensorsView(SessionContext* ctx, QWidget* parent = nullptr);
    DatasetPanel* panel() const { return m_panel; }
    QSlider* stepSlider() const { return m_step; }
    QString stepText() const;

signals:
    /// The tensor of the slider's step is in the panel (or why not is).
    void tensorShown();

protected:
    void showValues(qint64 runId, const QString& tag,
                    std::vector<ts::summary::StoredValue> values) override;
    void showNothing(const QString& message) override;

private:
    void showStep(int index);

    QSlider* m_step;
    QLabel* m_stepInfo;
    DatasetPanel* m_panel;
    QTemporaryDir m_scratch;
    QString m_tag;
    std::vector<ts::summary::StoredValue> m_values;
    quint64 m_files = 0;
};
