#pragma once
// The engine's ops on device tensors (Device::CUDA): the same op types, inputs, outputs,
// autograd nodes and dispatcher calls as the CPU ops of ops.h — so profiling, dumps, overflow
// checks and the crash recorder see them alike — with kernels from the tensors' DeviceBackend.
// Each public op of ops.h calls its device form first thing when an input is on a device.
#include <cstdint>

#include "core/engine/ops/ops.h"
#include "core/engine/tensor/tensor.h"

namespace ts::engine::ops::dev {

/// True when any defined tensor is on a device (the ops' routing test).
bool any(std::initializer_list<const Tensor*> tensors);

Tensor matmul(const Tensor& a, const Tensor& b, bool transA, bool transB);
Tensor biasAdd(const Tensor& x, const Tensor& b);
Tensor add(const Tensor& a, const Tensor& b);
Tensor sub(const Tensor& a, const Tensor& b);
Tensor mul(const Tensor& a, const Tensor& b);
Tensor div(const Tensor& a, const Tensor& b);
Tensor addN(const Tensor& a, const Tensor& b);
Tensor relu(const Tensor& x);
Tensor sigmoid(const Tensor& x);
Tensor tanh(const Tensor& x);
Tensor softmax(const Tensor& x);
Tensor logSoftmax(const Tensor& x);
Tensor softmaxCrossEntropy(const Tensor& logits, const Tensor& labels);
Tensor mseLoss(const Tensor& pred, const Tensor& target);
Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor& bias, const Conv2dOptions& opt);
Tensor maxPool2d(const Tensor& x, int kernel, int stride);
Tensor avgPool2d(const Tensor& x, int kernel, int stride);
Tensor batchNorm2d(const Tensor& x, const Tensor& gamma, const Tensor& beta, Tensor& runningMean,
                   Tensor& runningVar, bool training, float momentum, float eps);
Tensor dropout(const Tensor& x, float p, bool training, uint64_t seed);
Tensor castFp16(const Tensor& x);
Tensor scale(const Tensor& x, float s);

/// The optimizers' updates on device parameters (op types "ApplyMomentum" and "Adam").
void applyMomentum(const Tensor& w, const Tensor& g, const Tensor& v, float lr, float momentum,
                   float weightDecay, bool nesterov);
void applyAdam(const Tensor& w, const Tensor& g, const Tensor& m, const Tensor& v, float stepSize,
               float beta1, float beta2, float eps, float weightDecay, float sqrtBc2);

}  // namespace ts::engine::ops::dev
