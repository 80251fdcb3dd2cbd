// Conv2D (one group: Conv2D, Conv2DBackpropFilter, Conv2DBackpropInput, BiasAddGrad), grouped
// Conv2D (op Conv2D with its "group" attribute) and depthwise convolution (groups == C == O:
// DepthwiseConv2dNative and its BackpropFilter / BackpropInput). The host's kernels are in
// cpu_conv.cpp (per-sample im2col + GEMM, or the direct kernels of conv_direct.h) and
// cpu_conv_grouped.cpp (conv_depthwise.h's channels-last kernels).
#include "core/engine/ops/conv_geometry.h"
#include "core/engine/ops/op_util.h"
#include "core/engine/ops/ops.h"

namespace ts::engine::detail {

std::string convAttrs(const ConvGeom& g) {
    return "\"strides\":[" + std::to_string(g.sh) + "," + std::to_string(g.sw) + "],\"pads\":[" +
           std::to_string(g.pt) + "," + std::to_string(g.pl) + "," + std::to_string(g.pb()) + "," +
           std::to_string(g.pr()) + "],\"group\":" + std::to_string(g.groups);
}

namespace {

/// The kernels of one convolution: forward, filter gradient, input gradient.
struct ConvKernels {
    Tensor (*forward)(const Tensor&, const Tensor&, const Tensor&, const ConvGeom&);
    Tensor (*filter)(const Tensor&, const Tensor&, const ConvGeom&);
    Tensor (*input)(const Tensor&, const Tensor&, const ConvGeom&);
};

/// The op `type` with geometry g (C and O per group; O * groups output channels): the
/// forward, and a node whose backward runs <type>BackpropFilter (when w requires grad),
/// <type>BackpropInput (when x does) and BiasAddGrad (with a bias).
Tensor convolution(const std::string& type, const KernelTable* k, const ConvKernels& kc,
                   const Tensor& x, const Tensor& w, const Tensor& bias, const ConvGeom& g) {
    const int64_t O = g.groups * g.O;
    const bool hasBias = bias.defined();
    if (hasBias && (bias.dtype() != DType::Float32 || bias.rank() != 1 || bias.dim(0) != O))
        throw std::invalid_argument(type + ": bias " + shapeString(bias.shape()) +
                                    " does not match " + std::to_string(O) + " output channels");
    std::vector<Tensor> inputs{x, w};
    if (hasBias) inputs.push_back(bias);
    const std::string attrs = Dispatcher::current().observed() ? convAttrs(g) : "";
    Tensor out = run1(
        k, type, inputs,
        [&](std::vector<Tensor>& in) {
            return kc.forward(in[0], in[1], hasBias ? in[2] : Tensor(), g);
        },
        false, attrs);
    const Tensor dx = detach(x), dw = detach(w);
    const bool gx = x.requiresGrad(), gw = w.requiresGrad();
    return record(out, type, inputs, [=](const Tensor& grad) {
        std::vector<Tensor> grads(hasBias ? 3 : 2);
        if (gw)
            grads[1] = run1(
                k, type + "BackpropFilter", {grad, dx},
                [&](std::vector<Tensor>& in) { return kc.filter(in[0], in[1], g); }, true);
        if (gx)
            grads[0] = run1(
                k, type + "BackpropInput", {grad, dw},
                [&](std::vector<Tensor>& in) { return kc.input(in[0], in[1], g); }, true);
        if (hasBias)
            grads[2] = run1(
                k, "BiasAddGrad", {grad},
                [&](std::vector<Tensor>& in) { return k->biasGrad(in[0], g.N, O, g.ohw()); }, true);
        return grads;
    });
}

}  // namespace

Tensor groupedConv2d(const Tensor& x, const Tensor& w, const Tensor& bias,
                     const ops::Conv2dOptions& opt) {
    const ConvGeom probe = convGeometry("Conv2D", x, w, opt);
    const bool dw = probe.C == 1 && probe.O == 1;  // per group: one input and one output channel
    const std::string type = dw ? "DepthwiseConv2dNative" : "Conv2D";
    const ConvGeom g = dw ? probe : convGeometry(type, x, w, opt);
    if (dw) {
        const KernelTable* k =
            kernelsFor(type, {&x, &w, &bias}, &KernelTable::depthwiseConv2d,
                       &KernelTable::depthwiseFilter, &KernelTable::depthwiseInput);
        return convolution(type, k, {k->depthwiseConv2d, k->depthwiseFilter, k->depthwiseInput}, x,
                           w, bias, g);
    }
    const KernelTable* k = kernelsFor(type, {&x, &w, &bias}, &KernelTable::groupedConv2d,
                                      &KernelTable::groupedFilter, &KernelTable::groupedInput);
    return convolution(type, k, {k->groupedConv2d, k->groupedFilter, k->groupedInput}, x, w, bias,
                       g);
}

}  // namespace ts::engine::detail

namespace ts::engine::ops {

Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor& bias, const Conv2dOptions& opt) {
    if (opt.groups != 1) return detail::groupedConv2d(x, w, bias, opt);
    const detail::ConvGeom g = detail::convGeometry("Conv2D", x, w, opt);
    const KernelTable* k = detail::kernelsFor("Conv2D", {&x, &w, &bias});
    return detail::convolution("Conv2D", k, {k->conv2d, k->conv2dFilter, k->conv2dInput}, x, w,
                               bias, g);
}

}  // namespace ts::engine::ops
