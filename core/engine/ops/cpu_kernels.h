#pragma once
// The host's kernels (the CPU KernelTable, kernel_table_cpu.cpp): one function per table
// entry, documented there (kernel_table.h). Split over the intra-op pool where it pays, in
// fixed parts summed in a fixed order, so results do not depend on the thread count.
#include <cstdint>
#include <vector>

#include "core/engine/ops/kernel_table.h"

namespace ts::engine::cpu {

// cpu_elementwise.cpp
Tensor unary(kernels::Unary op, const Tensor& x, float alpha);
Tensor binary(kernels::Binary op, const Tensor& a, const Tensor& b);
Tensor divGradB(const Tensor& g, const Tensor& a, const Tensor& b);
Tensor softmax(const Tensor& x);
Tensor logSoftmax(const Tensor& x);
Tensor softmaxGrad(const Tensor& g, const Tensor& y);
Tensor logSoftmaxGrad(const Tensor& g, const Tensor& y);
Tensor crossEntropy(const Tensor& logits, const Tensor& labels, const Tensor& logp);
Tensor crossEntropyGrad(const Tensor& g, const Tensor& logp, const Tensor& labels);
Tensor mse(const Tensor& a, const Tensor& b);
Tensor mseGrad(const Tensor& g, const Tensor& a, const Tensor& b);

// cpu_nn.cpp
Tensor gemm(const Tensor& a, bool transA, const Tensor& b, bool transB);
Tensor biasAdd(const Tensor& x, const Tensor& b, int64_t N, int64_t C, int64_t inner);
Tensor biasGrad(const Tensor& g, int64_t N, int64_t C, int64_t inner);
Tensor maxPool(const Tensor& x, const kernels::PoolShape& g, const Tensor& argmax);
Tensor maxPoolGrad(const Tensor& g, const Tensor& argmax, const kernels::PoolShape& s);
Tensor avgPool(const Tensor& x, const kernels::PoolShape& g);
Tensor avgPoolGrad(const Tensor& g, const kernels::PoolShape& s);

// cpu_conv.cpp
Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor& bias, const detail::ConvGeom& g);
Tensor conv2dFilter(const Tensor& dy, const Tensor& x, const detail::ConvGeom& g);
Tensor conv2dInput(const Tensor& dy, const Tensor& w, const detail::ConvGeom& g);

// cpu_conv_grouped.cpp
Tensor depthwiseConv2d(const Tensor& x, const Tensor& w, const Tensor& bias,
                       const detail::ConvGeom& g);
Tensor depthwiseFilter(const Tensor& dy, const Tensor& x, const detail::ConvGeom& g);
Tensor depthwiseInput(const Tensor& dy, const Tensor& w, const detail::ConvGeom& g);
Tensor groupedConv2d(const Tensor& x, const Tensor& w, const Tensor& bias,
                     const detail::ConvGeom& g);
Tensor groupedFilter(const Tensor& dy, const Tensor& x, const detail::ConvGeom& g);
Tensor groupedInput(const Tensor& dy, const Tensor& w, const detail::ConvGeom& g);

// cpu_norm.cpp
Tensor batchNorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, const Tensor& runMean,
                 const Tensor& runVar, const Tensor& mean, const Tensor& invstd,
                 const kernels::BatchNormArgs& a);
std::vector<Tensor> batchNormGrad(const Tensor& g, const Tensor& x, const Tensor& gamma,
                                  const Tensor& mean, const Tensor& invstd,
                                  const kernels::BatchNormArgs& a);

// cpu_reduce.cpp
Tensor broadcastAdd(const Tensor& a, const Tensor& b, const detail::Broadcast& bc);
Tensor reduceSumTo(const Tensor& g, const detail::Broadcast& bc, bool first, const Shape& shape);
Tensor globalAvgPool(const Tensor& x);
Tensor globalAvgPoolGrad(const Tensor& g, const Shape& inShape);

// cpu_shape.cpp
Tensor concat(const std::vector<Tensor>& xs, int axis);
std::vector<Tensor> split(const Tensor& x, int axis, const std::vector<int64_t>& lens);
Tensor transpose(const Tensor& x, const std::vector<int>& perm);
Tensor pad2d(const Tensor& x, int top, int bottom, int left, int right);
Tensor pad2dGrad(const Tensor& g, const Shape& inShape, int top, int left);

// cpu_optimizer.cpp
void sgd(const Tensor& w, const Tensor& g, const Tensor& v, const kernels::SgdArgs& a);
void adam(const Tensor& w, const Tensor& g, const Tensor& m, const Tensor& v,
          const kernels::AdamArgs& a);

}  // namespace ts::engine::cpu
