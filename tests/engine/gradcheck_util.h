#pragma once
// Finite-difference gradient checks shared by the engine's op tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

#include "core/engine/ops/ops.h"
#include "core/engine/tensor/dispatcher.h"

namespace ts::test {

inline engine::Tensor randn(const engine::Shape& s, uint64_t seed, float scale = 1.f,
                            float offset = 0.f) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> d(0.f, 1.f);
    engine::Tensor t = engine::Tensor::empty(s);
    for (int64_t i = 0; i < t.numel(); ++i) t.f32()[i] = d(rng) * scale + offset;
    return t;
}

/// Conv2D options: square stride and padding, groups, pad_mode 'same'.
inline engine::ops::Conv2dOptions convOpt(int stride, int pad, int groups, bool same = false) {
    engine::ops::Conv2dOptions o;
    o.strideH = o.strideW = stride;
    o.padH = o.padW = pad;
    o.groups = groups;
    o.padSame = same;
    return o;
}

/// Checks d loss / d inputs of loss = MSE(f(inputs), target) (or f itself when scalar)
/// against central differences, element by element.
inline void gradCheck(const std::string& name, std::vector<engine::Tensor> inputs,
                      const std::function<engine::Tensor(std::vector<engine::Tensor>&)>& f,
                      double tol = 2e-2) {
    using namespace engine;
    auto loss = [&](std::vector<Tensor>& in) {
        Tensor y = f(in);
        if (y.numel() == 1 && y.rank() == 0) return y;
        return ops::mseLoss(y, randn(y.shape(), 99));
    };
    for (auto& t : inputs) t.setRequiresGrad(true);
    Tensor l = loss(inputs);
    l.backward();
    NoGradGuard ng;
    for (size_t k = 0; k < inputs.size(); ++k) {
        Tensor g = inputs[k].grad();
        ASSERT_TRUE(g.defined()) << name << ": no gradient for input " << k;
        ASSERT_EQ(g.shape(), inputs[k].shape()) << name;
        for (int64_t i = 0; i < inputs[k].numel(); ++i) {
            const float orig = inputs[k].f32()[i];
            const float eps = 1e-2f * std::max(1.f, std::fabs(orig));
            inputs[k].f32()[i] = orig + eps;
            const double up = loss(inputs).item();
            inputs[k].f32()[i] = orig - eps;
            const double down = loss(inputs).item();
            inputs[k].f32()[i] = orig;
            const double numeric = (up - down) / (2.0 * eps);
            const double analytic = g.f32()[i];
            EXPECT_NEAR(analytic, numeric, tol * std::max(1.0, std::fabs(numeric)))
                << name << " input " << k << " element " << i;
        }
    }
}

}  // namespace ts::test
