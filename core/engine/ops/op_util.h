#pragma once
// Helpers shared by the op implementations (not part of the public engine API): finding the
// kernels of the inputs' device and running them through the dispatcher.
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "core/engine/device/device.h"
#include "core/engine/ops/kernel_table.h"
#include "core/engine/ops/ops.h"
#include "core/engine/tensor/autograd.h"
#include "core/engine/tensor/dispatcher.h"

namespace ts::engine::detail {

/// "<op>: not available on a CUDA device yet (CPU only; docs/GPU.md)".
[[noreturn]] void refuseDevice(std::string_view op);

/// The kernel table of the device the defined `tensors` are on (one device, else
/// std::invalid_argument naming `op`: commonDevice()). `needed`: the table's kernels the op
/// calls that a backend may lack; a backend without one of them is refused by name before
/// anything runs (refuseDevice()).
template <class... K>
const KernelTable* kernelsFor(std::string_view op, std::initializer_list<const Tensor*> tensors,
                              K KernelTable::*... needed) {
    const KernelTable& k = kernelsOf(commonDevice(op, tensors));
    if (!((k.*needed != nullptr) && ...)) refuseDevice(op);
    return &k;
}

/// The same for the tensors of `xs` (Concat).
template <class... K>
const KernelTable* kernelsFor(std::string_view op, const std::vector<Tensor>& xs,
                              K KernelTable::*... needed) {
    if (xs.empty()) return &kernelsOf(Device::CPU);
    for (const Tensor& x : xs) commonDevice(op, {&xs.front(), &x});
    return kernelsFor(op, {&xs.front()}, needed...);
}

/// Runs a kernel of `k` through the current dispatcher as op `opType`. Inputs an observer
/// replaced (load mode: host tensors read from a dump) are put on k's device first.
/// `attrs`: the op's attributes as JSON object members (see Dispatcher::run).
template <class F>
std::vector<Tensor> runN(const KernelTable* k, std::string_view opType, std::vector<Tensor> inputs,
                         F&& kernel, bool backward = false, std::string_view attrs = {}) {
    const Device d = k->device;
    return Dispatcher::current().run(
        opType, std::move(inputs),
        [&](std::vector<Tensor>& in) {
            for (Tensor& t : in)
                if (t.defined() && t.device() != d) t = toDevice(t, d);
            return kernel(in);
        },
        backward, attrs);
}

/// The same for a one-output kernel.
template <class F>
Tensor run1(const KernelTable* k, std::string_view opType, std::vector<Tensor> inputs, F&& kernel,
            bool backward = false, std::string_view attrs = {}) {
    return runN(
               k, opType, std::move(inputs),
               [&](std::vector<Tensor>& in) { return std::vector<Tensor>{kernel(in)}; }, backward,
               attrs)
        .at(0);
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

/// Conv2D with opt.groups > 1: depthwise (op DepthwiseConv2dNative) or grouped (ops_conv.cpp).
Tensor groupedConv2d(const Tensor& x, const Tensor& w, const Tensor& bias,
                     const ops::Conv2dOptions& opt);

/// a + b for shapes that differ but broadcast (ops_reduce.cpp); ops::add's general case.
Tensor broadcastAdd(const Tensor& a, const Tensor& b);

/// A tensor sharing `t`'s data with no autograd link (safe to capture in a backward closure).
inline Tensor detach(const Tensor& t) {
    return t.view(t.shape());
}

}  // namespace ts::engine::detail
