#include "core/engine/train/metrics.h"

#include <stdexcept>

namespace ts::engine {

namespace {
int argmaxRow(const float* row, int64_t cols) {
    int best = 0;
    for (int64_t c = 1; c < cols; ++c)
        if (row[c] > row[best]) best = static_cast<int>(c);
    return best;
}
void check(const Tensor& logits, const Tensor& labels) {
    if (logits.rank() != 2 || labels.rank() != 1 || labels.dim(0) != logits.dim(0) ||
        labels.dtype() != DType::Int32)
        throw std::invalid_argument(
            "metric update: logits [N,C] and int32 labels [N] expected, got " +
            shapeString(logits.shape()) + " and " + shapeString(labels.shape()));
}
}  // namespace

void ConfusionMatrix::update(const Tensor& logits, const Tensor& labels, double) {
    check(logits, labels);
    for (int64_t r = 0; r < logits.dim(0); ++r) {
        const int truth = labels.i32()[r];
        const int pred = argmaxRow(logits.f32() + r * logits.dim(1), logits.dim(1));
        if (truth >= 0 && truth < m_n && pred < m_n)
            ++m_counts[static_cast<size_t>(truth * m_n + pred)];
    }
}

std::map<std::string, double> ConfusionMatrix::eval() const {
    std::map<std::string, double> out;
    for (int t = 0; t < m_n; ++t)
        for (int p = 0; p < m_n; ++p)
            out["confusion_matrix/" + std::to_string(t) + "/" + std::to_string(p)] =
                static_cast<double>(at(t, p));
    return out;
}

double ConfusionMatrix::precision(int c) const {
    int64_t col = 0;
    for (int t = 0; t < m_n; ++t) col += at(t, c);
    return col ? static_cast<double>(at(c, c)) / static_cast<double>(col) : 0.0;
}

double ConfusionMatrix::recall(int c) const {
    int64_t row = 0;
    for (int p = 0; p < m_n; ++p) row += at(c, p);
    return row ? static_cast<double>(at(c, c)) / static_cast<double>(row) : 0.0;
}

double ConfusionMatrix::f1(int c) const {
    const double p = precision(c), r = recall(c);
    return p + r > 0 ? 2 * p * r / (p + r) : 0.0;
}

int64_t ConfusionMatrix::total() const {
    int64_t n = 0;
    for (int64_t v : m_counts) n += v;
    return n;
}

void Accuracy::update(const Tensor& logits, const Tensor& labels, double) {
    check(logits, labels);
    for (int64_t r = 0; r < logits.dim(0); ++r)
        if (argmaxRow(logits.f32() + r * logits.dim(1), logits.dim(1)) == labels.i32()[r])
            ++m_correct;
    m_total += logits.dim(0);
}

std::map<std::string, double> Accuracy::eval() const {
    return {{"accuracy",
             m_total ? static_cast<double>(m_correct) / static_cast<double>(m_total) : 0.0}};
}

void LossMetric::update(const Tensor&, const Tensor&, double loss) {
    m_sum += loss;
    ++m_batches;
}

std::map<std::string, double> LossMetric::eval() const {
    return {{"loss", m_batches ? m_sum / static_cast<double>(m_batches) : 0.0}};
}

std::string ClassMetric::name() const {
    switch (m_kind) {
        case Kind::Precision:
            return "precision";
        case Kind::Recall:
            return "recall";
        case Kind::F1:
            return "f1";
    }
    return "?";
}

std::map<std::string, double> ClassMetric::eval() const {
    std::map<std::string, double> out;
    double sum = 0;
    for (int c = 0; c < m_cm.classes(); ++c) {
        const double v = m_kind == Kind::Precision ? m_cm.precision(c)
                         : m_kind == Kind::Recall  ? m_cm.recall(c)
                                                   : m_cm.f1(c);
        out[name() + "/" + std::to_string(c)] = v;
        sum += v;
    }
    out[name()] = m_cm.classes() ? sum / m_cm.classes() : 0.0;
    return out;
}

std::vector<std::unique_ptr<Metric>> defaultMetrics(int classes) {
    std::vector<std::unique_ptr<Metric>> m;
    m.push_back(std::make_unique<Accuracy>());
    m.push_back(std::make_unique<LossMetric>());
    m.push_back(std::make_unique<ClassMetric>(ClassMetric::Kind::Precision, classes));
    m.push_back(std::make_unique<ClassMetric>(ClassMetric::Kind::Recall, classes));
    m.push_back(std::make_unique<ClassMetric>(ClassMetric::Kind::F1, classes));
    m.push_back(std::make_unique<ConfusionMatrix>(classes));
    return m;
}

}  // namespace ts::engine
