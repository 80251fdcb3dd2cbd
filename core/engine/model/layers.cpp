#include "core/engine/model/layers.h"

#include <algorithm>
#include <cmath>

namespace ts::engine {

namespace {
thread_local AmpLevel t_amp = AmpLevel::O0;

Tensor uniform(const Shape& shape, float bound, std::mt19937_64& rng) {
    std::uniform_real_distribution<float> u(-bound, bound);
    Tensor t = Tensor::empty(shape);
    for (int64_t i = 0, n = t.numel(); i < n; ++i) t.f32()[i] = u(rng);
    return t;
}

Tensor maybeHalf(const Tensor& t) {
    return ampLevel() == AmpLevel::O0 ? t : ops::castFp16(t);
}
}  // namespace

AmpLevel ampLevel() {
    return t_amp;
}
void setAmpLevel(AmpLevel level) {
    t_amp = level;
}
const char* ampLevelName(AmpLevel level) {
    switch (level) {
        case AmpLevel::O0:
            return "O0";
        case AmpLevel::O1:
            return "O1";
        case AmpLevel::O2:
            return "O2";
    }
    return "O0";
}
bool ampLevelFromName(const std::string& s, AmpLevel* out) {
    if (s == "O0")
        *out = AmpLevel::O0;
    else if (s == "O1")
        *out = AmpLevel::O1;
    else if (s == "O2")
        *out = AmpLevel::O2;
    else
        return false;
    return true;
}

Dense::Dense(int64_t in, int64_t out, std::mt19937_64& rng, bool hasBias) : Cell("Dense") {
    const float bound = 1.f / std::sqrt(static_cast<float>(in));
    m_weight = addParam("weight", uniform({out, in}, bound, rng));
    if (hasBias) m_bias = addParam("bias", uniform({out}, bound, rng));
}

Tensor Dense::forward(const Tensor& x) {
    Tensor y = ops::matmul(maybeHalf(x), maybeHalf(m_weight), false, true);
    if (m_bias.defined()) y = ops::biasAdd(y, m_bias);
    return ampLevel() == AmpLevel::O2 ? ops::castFp16(y) : y;
}

Conv2d::Conv2d(int64_t in, int64_t out, int kernel, std::mt19937_64& rng, int stride,
               const std::string& padMode, int padding, bool hasBias, int groups)
    : Cell("Conv2d") {
    const int64_t perGroup = in / std::max(1, groups);
    const float bound = 1.f / std::sqrt(static_cast<float>(perGroup * kernel * kernel));
    m_weight = addParam("weight", uniform({out, perGroup, kernel, kernel}, bound, rng));
    m_opt.groups = groups;
    if (hasBias) m_bias = addParam("bias", uniform({out}, bound, rng));
    m_opt.strideH = m_opt.strideW = stride;
    m_opt.padSame = padMode == "same";
    if (padMode == "pad") m_opt.padH = m_opt.padW = padding;
}

Tensor Conv2d::forward(const Tensor& x) {
    Tensor y = ops::conv2d(maybeHalf(x), maybeHalf(m_weight), m_bias, m_opt);
    return ampLevel() == AmpLevel::O2 ? ops::castFp16(y) : y;
}

BatchNorm2d::BatchNorm2d(int64_t channels, float momentum, float eps)
    : Cell("BatchNorm2d"), m_momentum(momentum), m_eps(eps) {
    m_gamma = addParam("gamma", Tensor::full({channels}, 1.f));
    m_beta = addParam("beta", Tensor::zeros({channels}));
    m_mean = addParam("moving_mean", Tensor::zeros({channels}), false);
    m_var = addParam("moving_variance", Tensor::full({channels}, 1.f), false);
}

Tensor BatchNorm2d::forward(const Tensor& x) {
    // Batch norm stays in float32 at every AMP level (as MindSpore's O2 keeps BN in fp32).
    return ops::batchNorm2d(x, m_gamma, m_beta, m_mean, m_var, training(), m_momentum, m_eps);
}

Tensor SequentialCell::forward(const Tensor& x) {
    Tensor y = x;
    for (const auto& [name, child] : children()) y = (*child)(y);
    return y;
}

}  // namespace ts::engine
