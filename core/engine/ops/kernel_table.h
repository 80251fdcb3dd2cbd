#pragma once
// KernelTable: all an op takes from a backend. Each op of ops.h is written once (ops_*.cpp):
// its checks, its dispatcher calls (op types, inputs, attributes), the tensors its autograd
// node saves and its gradient rule. The kernels it calls come from the table of the device
// its inputs are on (kernelsFor(), op_util.h): the host's (cpu_*.cpp) or Device::CUDA's
// (kernel_table_device.cpp, over the tensors' DeviceBackend). Kernels take tensors on their
// table's device and return new ones there; they never record autograd nodes nor call the
// dispatcher, and they do not check shapes (the op did).
//
// A kernel a backend does not have is nullptr in its table; an op that needs it refuses
// that backend's tensors by name before anything runs ("Concat: not available on a CUDA
// device yet (CPU only; docs/GPU.md)"). Both tables have every op's kernels today; a new op's
// device form is its kernels in the device table (and the DeviceBackend calls they need),
// not the op or its gradient written again. The multi-tensor updates (sgdMany, adamMany) are
// optional: where nullptr the optimizers update one parameter at a time.
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/engine/device/device_kernels.h"
#include "core/engine/ops/broadcast.h"
#include "core/engine/ops/conv_geometry.h"
#include "core/engine/tensor/tensor.h"

namespace ts::engine {

namespace detail {
/// The sizes of op(a)[M,K] x op(b)[K,N] of 2-D tensors; std::invalid_argument naming MatMul
/// when the inner dims differ (the gemm kernels' check, inside the op as observers see it).
struct GemmShape {
    int64_t M, N, K;
};
inline GemmShape gemmShape(const Tensor& a, bool transA, const Tensor& b, bool transB) {
    const int64_t K = transA ? a.dim(0) : a.dim(1);
    const int64_t KB = transB ? b.dim(1) : b.dim(0);
    if (K != KB)
        throw std::invalid_argument("MatMul: inner dimensions differ: " + shapeString(a.shape()) +
                                    (transA ? "^T" : "") + " x " + shapeString(b.shape()) +
                                    (transB ? "^T" : ""));
    return {transA ? a.dim(1) : a.dim(0), transB ? b.dim(0) : b.dim(1), K};
}
}  // namespace detail

struct KernelTable {
    Device device;

    // ---- element-wise ----
    /// op(x) (alpha: Scale's factor).
    Tensor (*unary)(kernels::Unary op, const Tensor& x, float alpha);
    /// op(a, b) of same-shape tensors (the activations' gradients take (g, y)).
    Tensor (*binary)(kernels::Binary op, const Tensor& a, const Tensor& b);
    /// RealDiv's gradient for the divisor: -g * a / (b * b).
    Tensor (*divGradB)(const Tensor& g, const Tensor& a, const Tensor& b);
    /// a + b of shapes that broadcast to bc.out.
    Tensor (*broadcastAdd)(const Tensor& a, const Tensor& b, const detail::Broadcast& bc);
    /// The gradient of Add's first (or second) operand: g summed over the dims the operand
    /// was broadcast along, in the operand's `shape`.
    Tensor (*reduceSumTo)(const Tensor& g, const detail::Broadcast& bc, bool first,
                          const Shape& shape);

    // ---- dense algebra ----
    /// op(a)[M,K] x op(b)[K,N] of 2-D tensors (checked with detail::gemmShape()).
    Tensor (*gemm)(const Tensor& a, bool transA, const Tensor& b, bool transB);
    /// x[N, C, inner] + b[C].
    Tensor (*biasAdd)(const Tensor& x, const Tensor& b, int64_t N, int64_t C, int64_t inner);
    /// BiasAdd's (and Conv2D's) bias gradient: g[N, C, inner] summed over N and inner.
    Tensor (*biasGrad)(const Tensor& g, int64_t N, int64_t C, int64_t inner);

    // ---- rows of a 2-D tensor: the softmax family and the losses ----
    Tensor (*softmax)(const Tensor& x);
    Tensor (*logSoftmax)(const Tensor& x);
    /// The gradients given the output y.
    Tensor (*softmaxGrad)(const Tensor& g, const Tensor& y);
    Tensor (*logSoftmaxGrad)(const Tensor& g, const Tensor& y);
    /// The mean of -logp[r, labels[r]] (a scalar), logp = log softmax(logits) written into
    /// `logp` (the op keeps it for the gradient).
    Tensor (*crossEntropy)(const Tensor& logits, const Tensor& labels, const Tensor& logp);
    /// d loss / d logits, the loss's gradient being the scalar g.
    Tensor (*crossEntropyGrad)(const Tensor& g, const Tensor& logp, const Tensor& labels);
    /// The mean squared difference (a scalar) and its gradient w.r.t. a.
    Tensor (*mse)(const Tensor& a, const Tensor& b);
    Tensor (*mseGrad)(const Tensor& g, const Tensor& a, const Tensor& b);

    // ---- convolution (g: conv_geometry.h; C and O per group) ----
    /// One group: x * w (+ bias when defined), and the gradients w.r.t. w and x.
    Tensor (*conv2d)(const Tensor& x, const Tensor& w, const Tensor& bias,
                     const detail::ConvGeom& g);
    Tensor (*conv2dFilter)(const Tensor& dy, const Tensor& x, const detail::ConvGeom& g);
    Tensor (*conv2dInput)(const Tensor& dy, const Tensor& w, const detail::ConvGeom& g);
    /// g.groups > 1, one input and one output channel per group (DepthwiseConv2dNative).
    Tensor (*depthwiseConv2d)(const Tensor& x, const Tensor& w, const Tensor& bias,
                              const detail::ConvGeom& g);
    Tensor (*depthwiseFilter)(const Tensor& dy, const Tensor& x, const detail::ConvGeom& g);
    Tensor (*depthwiseInput)(const Tensor& dy, const Tensor& w, const detail::ConvGeom& g);
    /// Other groupings.
    Tensor (*groupedConv2d)(const Tensor& x, const Tensor& w, const Tensor& bias,
                            const detail::ConvGeom& g);
    Tensor (*groupedFilter)(const Tensor& dy, const Tensor& x, const detail::ConvGeom& g);
    Tensor (*groupedInput)(const Tensor& dy, const Tensor& w, const detail::ConvGeom& g);

    // ---- pooling ----
    /// Writes the flat index in its [H, W] plane of each window's maximum into `argmax`.
    Tensor (*maxPool)(const Tensor& x, const kernels::PoolShape& g, const Tensor& argmax);
    Tensor (*maxPoolGrad)(const Tensor& g, const Tensor& argmax, const kernels::PoolShape& s);
    Tensor (*avgPool)(const Tensor& x, const kernels::PoolShape& g);
    Tensor (*avgPoolGrad)(const Tensor& g, const kernels::PoolShape& s);
    /// Mean over H and W of NCHW: [N, C]; its gradient spreads g[N, C] over `inShape`.
    Tensor (*globalAvgPool)(const Tensor& x);
    Tensor (*globalAvgPoolGrad)(const Tensor& g, const Shape& inShape);

    // ---- batch norm over N, H, W per channel ----
    /// y = gamma * (x - mean) / sqrt(var + eps) + beta. Training: the batch's mean and
    /// variance, runMean / runVar updated in place (momentum); evaluation: runMean / runVar.
    /// Writes the mean and 1 / sqrt(var + eps) used per channel into `mean` and `invstd`.
    Tensor (*batchNorm)(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                        const Tensor& runMean, const Tensor& runVar, const Tensor& mean,
                        const Tensor& invstd, const kernels::BatchNormArgs& a);
    /// {dx, dgamma, dbeta} from the forward's x, mean and invstd.
    std::vector<Tensor> (*batchNormGrad)(const Tensor& g, const Tensor& x, const Tensor& gamma,
                                         const Tensor& mean, const Tensor& invstd,
                                         const kernels::BatchNormArgs& a);

    // ---- shape (axes already normalised) ----
    Tensor (*concat)(const std::vector<Tensor>& xs, int axis);
    /// Pieces of `lens` along `axis`.
    std::vector<Tensor> (*split)(const Tensor& x, int axis, const std::vector<int64_t>& lens);
    Tensor (*transpose)(const Tensor& x, const std::vector<int>& perm);
    /// Zero padding of NCHW's H and W; its gradient is the window of g that x filled.
    Tensor (*pad2d)(const Tensor& x, int top, int bottom, int left, int right);
    Tensor (*pad2dGrad)(const Tensor& g, const Shape& inShape, int top, int left);

    // ---- optimizer updates, in place (w, and the moments) ----
    void (*sgd)(const Tensor& w, const Tensor& g, const Tensor& v, const kernels::SgdArgs& a);
    void (*adam)(const Tensor& w, const Tensor& g, const Tensor& m, const Tensor& v,
                 const kernels::AdamArgs& a);
    /// The same over many parameters in as few launches as the backend can (the device's:
    /// one per TensorChunk::kMax parameters); nullptr: one sgd / adam call per parameter.
    void (*sgdMany)(const std::vector<Tensor>& w, const std::vector<Tensor>& g,
                    const std::vector<Tensor>& v, const kernels::SgdArgs& a);
    void (*adamMany)(const std::vector<Tensor>& w, const std::vector<Tensor>& g,
                     const std::vector<Tensor>& m, const std::vector<Tensor>& v,
                     const kernels::AdamArgs& a);
};

/// The host's kernels (cpu_*.cpp; kernel_table_cpu.cpp).
const KernelTable& cpuKernels();
/// Device::CUDA's kernels over its DeviceBackend (kernel_table_device.cpp).
const KernelTable& deviceKernels();
/// The table of `d`.
const KernelTable& kernelsOf(Device d);

}  // namespace ts::engine
