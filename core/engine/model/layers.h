#pragma once
// Built-in cells (MindSpore nn names): Dense, Conv2d (grouped and depthwise too), MaxPool2d,
// AvgPool2d, GlobalAvgPool, Pad, BatchNorm2d, Dropout, Flatten, ReLU, Sigmoid, Tanh and
// SequentialCell. Weights start as PyTorch's
// defaults (uniform +-1/sqrt(fan_in)) drawn from the given seed.
#include <cstdint>
#include <random>
#include <string>

#include "core/engine/model/cell.h"
#include "core/engine/ops/ops.h"

namespace ts::engine {

/// Mixed-precision level in effect on the calling thread (set by the trainer).
enum class AmpLevel { O0, O1, O2 };
AmpLevel ampLevel();
void setAmpLevel(AmpLevel level);
const char* ampLevelName(AmpLevel level);
bool ampLevelFromName(const std::string& s, AmpLevel* out);

class Dense : public Cell {
public:
    Dense(int64_t in, int64_t out, std::mt19937_64& rng, bool hasBias = true);
    Tensor forward(const Tensor& x) override;

private:
    Tensor m_weight, m_bias;
};

class Conv2d : public Cell {
public:
    /// padMode "same" or "valid" (padding then ignored) or "pad" (use `padding`). `groups`:
    /// the weight is [out, in/groups, kernel, kernel]; groups == in == out is depthwise.
    Conv2d(int64_t in, int64_t out, int kernel, std::mt19937_64& rng, int stride = 1,
           const std::string& padMode = "valid", int padding = 0, bool hasBias = false,
           int groups = 1);
    Tensor forward(const Tensor& x) override;

private:
    Tensor m_weight, m_bias;
    ops::Conv2dOptions m_opt;
};

class MaxPool2d : public Cell {
public:
    MaxPool2d(int kernel, int stride) : Cell("MaxPool2d"), m_k(kernel), m_s(stride) {}
    Tensor forward(const Tensor& x) override { return ops::maxPool2d(x, m_k, m_s); }

private:
    int m_k, m_s;
};

class AvgPool2d : public Cell {
public:
    AvgPool2d(int kernel, int stride) : Cell("AvgPool2d"), m_k(kernel), m_s(stride) {}
    Tensor forward(const Tensor& x) override { return ops::avgPool2d(x, m_k, m_s); }

private:
    int m_k, m_s;
};

/// Mean over H and W: [N, C, H, W] -> [N, C] (AdaptiveAvgPool2d(1) + Flatten).
class GlobalAvgPool : public Cell {
public:
    GlobalAvgPool() : Cell("GlobalAvgPool") {}
    Tensor forward(const Tensor& x) override { return ops::globalAvgPool(x); }
};

/// Zero padding of H and W by `pad` on every side (nn.Pad / torch ZeroPad2d).
class Pad : public Cell {
public:
    explicit Pad(int pad) : Cell("Pad"), m_pad(pad) {}
    Tensor forward(const Tensor& x) override { return ops::pad2d(x, m_pad, m_pad, m_pad, m_pad); }

private:
    int m_pad;
};

class BatchNorm2d : public Cell {
public:
    explicit BatchNorm2d(int64_t channels, float momentum = 0.9f, float eps = 1e-5f);
    Tensor forward(const Tensor& x) override;

private:
    Tensor m_gamma, m_beta, m_mean, m_var;
    float m_momentum, m_eps;
};

class Dropout : public Cell {
public:
    /// keepProb as MindSpore's nn.Dropout(keep_prob).
    Dropout(float keepProb, uint64_t seed) : Cell("Dropout"), m_p(1.f - keepProb), m_seed(seed) {}
    Tensor forward(const Tensor& x) override {
        return ops::dropout(x, m_p, training(), m_seed + m_calls++);
    }

private:
    float m_p;
    uint64_t m_seed;
    uint64_t m_calls = 0;
};

class Flatten : public Cell {
public:
    Flatten() : Cell("Flatten") {}
    Tensor forward(const Tensor& x) override { return ops::flatten(x); }
};

class ReLU : public Cell {
public:
    ReLU() : Cell("ReLU") {}
    Tensor forward(const Tensor& x) override { return ops::relu(x); }
};

class Sigmoid : public Cell {
public:
    Sigmoid() : Cell("Sigmoid") {}
    Tensor forward(const Tensor& x) override { return ops::sigmoid(x); }
};

class Tanh : public Cell {
public:
    Tanh() : Cell("Tanh") {}
    Tensor forward(const Tensor& x) override { return ops::tanh(x); }
};

/// Runs its children in order.
class SequentialCell : public Cell {
public:
    explicit SequentialCell(std::string typeName = "SequentialCell") : Cell(std::move(typeName)) {}
    template <class C>
    std::shared_ptr<C> append(const std::string& name, std::shared_ptr<C> c) {
        return addChild(name, std::move(c));
    }
    Tensor forward(const Tensor& x) override;
};

}  // namespace ts::engine
