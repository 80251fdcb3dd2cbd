#pragma once
// Evaluation metrics with MindSpore's clear() / update() / eval() protocol. update() takes the
// network output logits [N,C], int32 labels [N] and the batch loss.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/engine/tensor/tensor.h"

namespace ts::engine {

class Metric {
public:
    virtual ~Metric() = default;
    virtual std::string name() const = 0;
    virtual void clear() = 0;
    virtual void update(const Tensor& logits, const Tensor& labels, double loss) = 0;
    /// Values by key; the main value under name(), per-class values as "<name>/<class>".
    virtual std::map<std::string, double> eval() const = 0;
};

/// Counts [true class][predicted class].
class ConfusionMatrix : public Metric {
public:
    explicit ConfusionMatrix(int classes) : m_n(classes) { clear(); }
    std::string name() const override { return "confusion_matrix"; }
    void clear() override { m_counts.assign(static_cast<size_t>(m_n * m_n), 0); }
    void update(const Tensor& logits, const Tensor& labels, double loss) override;
    /// Flattened counts as "confusion_matrix/<true>/<pred>".
    std::map<std::string, double> eval() const override;
    int64_t at(int truth, int pred) const {
        return m_counts[static_cast<size_t>(truth * m_n + pred)];
    }
    int classes() const { return m_n; }
    double precision(int c) const;
    double recall(int c) const;
    double f1(int c) const;
    int64_t total() const;

private:
    int m_n;
    std::vector<int64_t> m_counts;
};

class Accuracy : public Metric {
public:
    std::string name() const override { return "accuracy"; }
    void clear() override { m_correct = m_total = 0; }
    void update(const Tensor& logits, const Tensor& labels, double loss) override;
    std::map<std::string, double> eval() const override;

private:
    int64_t m_correct = 0, m_total = 0;
};

class LossMetric : public Metric {
public:
    std::string name() const override { return "loss"; }
    void clear() override { m_sum = 0, m_batches = 0; }
    void update(const Tensor& logits, const Tensor& labels, double loss) override;
    std::map<std::string, double> eval() const override;

private:
    double m_sum = 0;
    int64_t m_batches = 0;
};

/// Precision, Recall or F1: per class and macro average (under the plain name).
class ClassMetric : public Metric {
public:
    enum class Kind { Precision, Recall, F1 };
    ClassMetric(Kind kind, int classes) : m_kind(kind), m_cm(classes) {}
    std::string name() const override;
    void clear() override { m_cm.clear(); }
    void update(const Tensor& logits, const Tensor& labels, double loss) override {
        m_cm.update(logits, labels, loss);
    }
    std::map<std::string, double> eval() const override;

private:
    Kind m_kind;
    ConfusionMatrix m_cm;
};

/// accuracy, loss, precision, recall, f1 (macro + per class) and the confusion matrix.
std::vector<std::unique_ptr<Metric>> defaultMetrics(int classes);

}  // namespace ts::engine
