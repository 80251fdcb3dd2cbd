#pragma once
// The engine's differentiable ops. Each runs its kernel through the Dispatcher (op types as in
// MindSpore: MatMul, BiasAdd, Conv2D, ...) and records an autograd Node whose backward kernels
// also go through the Dispatcher. Float32 tensors unless stated; shapes are checked and a
// mismatch throws std::invalid_argument naming the op and shapes.
#include <cstdint>

#include "core/engine/tensor.h"

namespace ts::engine::ops {

/// a[M,K] x b[K,N] (transposes applied first).
Tensor matmul(const Tensor& a, const Tensor& b, bool transA = false, bool transB = false);
/// x + b broadcast over dim 1 (features of [N,F] or channels of [N,C,H,W]).
Tensor biasAdd(const Tensor& x, const Tensor& b);
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
};
/// x[N,C,H,W] * w[O,C,KH,KW] (+ bias[O] when defined); im2col + GEMM.
Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor& bias, const Conv2dOptions& opt);
Tensor maxPool2d(const Tensor& x, int kernel, int stride);
Tensor avgPool2d(const Tensor& x, int kernel, int stride);
/// Batch norm over N,H,W per channel. Training: batch statistics, running stats updated
/// in place with `momentum` (new = momentum*old + (1-momentum)*batch, as MindSpore).
Tensor batchNorm2d(const Tensor& x, const Tensor& gamma, const Tensor& beta, Tensor& runningMean,
                   Tensor& runningVar, bool training, float momentum, float eps);
/// Inverted dropout with drop probability p; `seed` makes the mask reproducible.
Tensor dropout(const Tensor& x, float p, bool training, uint64_t seed);
/// Rounds values to float16 precision (mixed-precision emulation); gradient passes through
/// rounded to float16 as well.
Tensor castFp16(const Tensor& x);
/// x * s (records a node).
Tensor scale(const Tensor& x, float s);

}  // namespace ts::engine::ops
