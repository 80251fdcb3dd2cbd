#include "core/curves/smoothing.h"

#include <algorithm>
#include <cmath>

namespace ts::curves {

double clampWeight(double weight) {
    if (!(weight > 0)) return 0;
    return std::min(weight, 0.999);
}

bool isSmoothedTag(std::string_view tag) {
    return tag != "lr" && tag != "loss_scale" && tag.substr(0, 5) != "eval/";
}

EmaSmoother::EmaSmoother(double weight) : m_weight(clampWeight(weight)) {}

double EmaSmoother::push(double v) {
    if (!std::isfinite(v)) return v;
    m_last = m_last * m_weight + (1 - m_weight) * v;
    m_decay *= m_weight;
    return m_last / (1 - m_decay);
}

void EmaSmoother::reset() {
    m_last = 0;
    m_decay = 1;
}

std::vector<double> smoothSeries(std::span<const double> values, double weight) {
    std::vector<double> out(values.begin(), values.end());
    const bool constant =
        std::all_of(values.begin(), values.end(), [&](double v) { return v == values.front(); });
    if (constant) return out;
    EmaSmoother ema(weight);
    for (double& v : out) v = ema.push(v);
    return out;
}

}  // namespace ts::curves
