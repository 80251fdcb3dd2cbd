#pragma once
// Helpers shared by the op implementations (not part of the public engine API).
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/engine/ops/ops.h"
#include "core/engine/tensor/autograd.h"
#include "core/engine/tensor/dispatcher.h"

namespace ts::engine::detail {

/// Runs a one-output kernel through the current dispatcher.
/// `attrs`: the op's attributes as JSON object members (see Dispatcher::run).
template <class K>
Tensor run1(std::string_view opType, std::vector<Tensor> inputs, K&& kernel, bool backward = false,
            std::string_view attrs = {}) {
    auto outs = Dispatcher::current().run(
        opType, std::move(inputs),
        [&](std::vector<Tensor>& in) { return std::vector<Tensor>{kernel(in)}; }, backward, attrs);
    return outs.at(0);
}

inline void requireF32(std::string_view op, const Tensor& t) {
    if (!t.defined() || t.dtype() != DType::Float32)
        throw std::invalid_argument(std::string(op) + ": expects a float32 tensor");
}

/// For the ops that have no device form yet: a device tensor is refused with the op's name.
inline void requireHost(std::string_view op, const Tensor& t) {
    if (t.defined() && t.device() != Device::CPU)
        throw std::invalid_argument(std::string(op) +
                                    ": not available on a CUDA device yet (CPU only; docs/GPU.md)");
}

inline void requireSameShape(std::string_view op, const Tensor& a, const Tensor& b) {
    if (a.shape() != b.shape())
        throw std::invalid_argument(std::string(op) + ": shapes " + shapeString(a.shape()) +
                                    " and " + shapeString(b.shape()) + " differ");
}

/// The op's attributes (JSON object members) built by `make`, only when an observer will see
/// them: profiles show them as args, the ONNX exporter reads them.
template <class F>
std::string attrsIfObserved(F&& make) {
    return Dispatcher::current().observed() ? make() : std::string();
}

/// "[a,b,c]" for attributes.
template <class V>
std::string jsonList(const V& values) {
    std::string s = "[";
    for (const auto& v : values) s += (s.size() > 1 ? "," : "") + std::to_string(v);
    return s + "]";
}

/// Conv2D with opt.groups > 1: depthwise (direct kernels) or grouped (ops_conv_grouped.cpp).
Tensor groupedConv2d(const Tensor& x, const Tensor& w, const Tensor& bias,
                     const ops::Conv2dOptions& opt);

/// a + b for shapes that differ but broadcast (ops_reduce.cpp); ops::add's general case.
Tensor broadcastAdd(const Tensor& a, const Tensor& b);

/// A tensor sharing `t`'s data with no autograd link (safe to capture in a backward closure).
inline Tensor detach(const Tensor& t) {
    return t.view(t.shape());
}

}  // namespace ts::engine::detail
