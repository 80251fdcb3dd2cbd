#pragma once
// Helpers shared by the op implementations (not part of the public engine API).
#include <stdexcept>
#include <string>
#include <string_view>

#include "core/engine/autograd.h"
#include "core/engine/dispatcher.h"

namespace ts::engine::detail {

/// Runs a one-output kernel through the current dispatcher.
template <class K>
Tensor run1(std::string_view opType, std::vector<Tensor> inputs, K&& kernel,
            bool backward = false) {
    auto outs = Dispatcher::current().run(
        opType, std::move(inputs),
        [&](std::vector<Tensor>& in) { return std::vector<Tensor>{kernel(in)}; }, backward);
    return outs.at(0);
}

inline void requireF32(std::string_view op, const Tensor& t) {
    if (!t.defined() || t.dtype() != DType::Float32)
        throw std::invalid_argument(std::string(op) + ": expects a float32 tensor");
}

inline void requireSameShape(std::string_view op, const Tensor& a, const Tensor& b) {
    if (a.shape() != b.shape())
        throw std::invalid_argument(std::string(op) + ": shapes " + shapeString(a.shape()) +
                                    " and " + shapeString(b.shape()) + " differ");
}

/// A tensor sharing `t`'s data with no autograd link (safe to capture in a backward closure).
inline Tensor detach(const Tensor& t) {
    return t.view(t.shape());
}

}  // namespace ts::engine::detail
