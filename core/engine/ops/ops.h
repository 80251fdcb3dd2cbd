#pragma once
// The engine's differentiable ops. Each runs its kernel through the Dispatcher (op types as in
// MindSpore: MatMul, BiasAdd, Conv2D, ...) and records an autograd Node whose backward kernels
// also go through the Dispatcher. Float32 tensors unless stated; shapes are checked and a
// mismatch throws std::invalid_argument naming the op and shapes. Each op is written once
// (ops_*.cpp) for tensors on any device: its kernels come from the KernelTable of the device
// its inputs are on (kernel_table.h); tensors on two devices are refused by name.
#include <cstdint>
#include <vector>

#include "core/engine/tensor/tensor.h"

namespace ts::engine::ops {

/// a[M,K] x b[K,N] (transposes applied first).
Tensor matmul(const Tensor& a, const Tensor& b, bool transA = false, bool transB = false);
/// x + b broadcast over dim 1 (features of [N,F] or channels of [N,C,H,W]).
Tensor biasAdd(const Tensor& x, const Tensor& b);
/// a + b with numpy broadcasting (shapes aligned at the right, each dim equal or 1; the
/// residual Add of ResNet is the same-shape case). The gradient of a broadcast operand is
/// summed over the dims it was broadcast along (ReduceSum).
Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
/// a + b without recording (gradient accumulation).
Tensor addN(const Tensor& a, const Tensor& b);
Tensor relu(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor reshape(const Tensor& x, const Shape& shape);
/// [N, ...] -> [N, prod(...)].
Tensor flatten(const Tensor& x);
/// Over the last dim of a 2-D tensor.
Tensor softmax(const Tensor& x);
Tensor logSoftmax(const Tensor& x);
/// Mean cross entropy of logits [N,C] against Int32 class labels [N] (sparse=True).
Tensor softmaxCrossEntropy(const Tensor& logits, const Tensor& labels);
/// Mean squared error.
Tensor mseLoss(const Tensor& pred, const Tensor& target);

struct Conv2dOptions {
    int strideH = 1, strideW = 1;
    int padH = 0, padW = 0;
    bool padSame = false;  // pad_mode='same': output = ceil(input / stride)
    /// Grouped convolution: C and O split into `groups` groups, group g's outputs see only
    /// group g's inputs; w is [O, C/groups, KH, KW]. groups == C is depthwise (O a multiple
    /// of C), with its own kernels and op type DepthwiseConv2dNative.
    int groups = 1;
};
/// x[N,C,H,W] * w[O,C/groups,KH,KW] (+ bias[O] when defined). groups 1: oneDNN where it is
/// faster (conv_dnnl.h), else im2col + GEMM or the direct kernels (cpu_conv.cpp); depthwise and
/// grouped: cpu_conv_grouped.cpp.
Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor& bias, const Conv2dOptions& opt);
Tensor maxPool2d(const Tensor& x, int kernel, int stride);
Tensor avgPool2d(const Tensor& x, int kernel, int stride);
/// Batch norm over N,H,W per channel. Training: batch statistics, running stats updated
/// in place with `momentum` (new = momentum*old + (1-momentum)*batch, as MindSpore).
Tensor batchNorm2d(const Tensor& x, const Tensor& gamma, const Tensor& beta, Tensor& runningMean,
                   Tensor& runningVar, bool training, float momentum, float eps);
/// Mean over H and W of NCHW: [N, C] (global average pooling; ONNX GlobalAveragePool then
/// Flatten).
Tensor globalAvgPool(const Tensor& x);
/// Inverted dropout with drop probability p; `seed` makes the mask reproducible.
Tensor dropout(const Tensor& x, float p, bool training, uint64_t seed);
/// Rounds values to float16 precision (mixed-precision emulation); gradient passes through
/// rounded to float16 as well.
Tensor castFp16(const Tensor& x);
/// x * s (records a node).
Tensor scale(const Tensor& x, float s);

// Shape ops (ops_shape.cpp). Axes may be negative (counted from the end).
/// Concatenation along `axis`; the other dims must agree. Gradient: ConcatGrad slices.
Tensor concat(const std::vector<Tensor>& xs, int axis);
/// Pieces of `sizes` along `axis` (summing to its length), one op with several outputs;
/// its backward concatenates the pieces' gradients (zeros where one got none).
std::vector<Tensor> split(const Tensor& x, int axis, const std::vector<int64_t>& sizes);
/// `chunks` equal pieces along `axis` (torch.chunk; the length must divide evenly).
std::vector<Tensor> chunk(const Tensor& x, int chunks, int axis);
/// Dims permuted: output dim i is input dim perm[i] (numpy.transpose, ONNX Transpose).
Tensor transpose(const Tensor& x, const std::vector<int>& perm);
/// ShuffleNet's channel shuffle of NCHW: Reshape [N, g, C/g, H, W], Transpose (0, 2, 1, 3,
/// 4), Reshape back, as three ops (torchvision's channel_shuffle).
Tensor channelShuffle(const Tensor& x, int groups);
/// Zero padding of H (top, bottom) and W (left, right) of NCHW.
Tensor pad2d(const Tensor& x, int top, int bottom, int left, int right);

}  // namespace ts::engine::ops
