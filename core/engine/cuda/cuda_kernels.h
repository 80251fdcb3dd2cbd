#pragma once
// The launchers of the engine's CUDA kernels (cuda_kernels.cu), called by the CUDA backend
// (cuda_backend.cpp) on its stream. Each returns the launch's error (cudaGetLastError).
#include <cuda_runtime_api.h>

#include <cstdint>

#include "core/engine/device/device_kernels.h"

namespace ts::engine::cuda {

using kernels::AdamArgs;
using kernels::BatchNormArgs;
using kernels::Binary;
using kernels::ConvShape;
using kernels::PoolShape;
using kernels::SgdArgs;
using kernels::Unary;

cudaError_t fill(float* y, float v, int64_t n, cudaStream_t s);
cudaError_t unary(Unary op, const float* x, float* y, int64_t n, float alpha, cudaStream_t s);
cudaError_t binary(Binary op, const float* a, const float* b, float* y, int64_t n, cudaStream_t s);
cudaError_t divGradB(const float* g, const float* a, const float* b, float* y, int64_t n,
                     cudaStream_t s);
cudaError_t biasAdd(const float* x, const float* b, float* y, int64_t N, int64_t C, int64_t inner,
                    cudaStream_t s);
cudaError_t biasGrad(const float* g, float* db, int64_t N, int64_t C, int64_t inner,
                     cudaStream_t s);
cudaError_t logSoftmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t s);
cudaError_t softmaxGrad(const float* g, const float* y, float* dx, int64_t rows, int64_t cols,
                        cudaStream_t s);
cudaError_t logSoftmaxGrad(const float* g, const float* y, float* dx, int64_t rows, int64_t cols,
                           cudaStream_t s);
cudaError_t crossEntropy(const float* logp, const int32_t* labels, float* loss, int64_t rows,
                         int64_t cols, cudaStream_t s);
cudaError_t crossEntropyGrad(const float* g, const float* logp, const int32_t* labels, float* dx,
                             int64_t rows, int64_t cols, cudaStream_t s);
cudaError_t mse(const float* a, const float* b, float* loss, int64_t n, cudaStream_t s);
cudaError_t mseGrad(const float* g, const float* a, const float* b, float* dx, int64_t n,
                    cudaStream_t s);
cudaError_t im2col(const float* x, float* cols, const ConvShape& g, cudaStream_t s);
cudaError_t col2im(const float* cols, float* dx, const ConvShape& g, cudaStream_t s);
cudaError_t maxPool(const float* x, float* y, int32_t* arg, const PoolShape& g, cudaStream_t s);
cudaError_t maxPoolGrad(const float* g, const int32_t* arg, float* dx, const PoolShape& p,
                        cudaStream_t s);
cudaError_t avgPool(const float* x, float* y, const PoolShape& g, cudaStream_t s);
cudaError_t avgPoolGrad(const float* g, float* dx, const PoolShape& p, cudaStream_t s);
cudaError_t batchNorm(const float* x, const float* gamma, const float* beta, float* runMean,
                      float* runVar, float* y, float* mean, float* invstd, const BatchNormArgs& a,
                      cudaStream_t s);
cudaError_t batchNormGrad(const float* g, const float* x, const float* gamma, const float* mean,
                          const float* invstd, float* dx, float* dgamma, float* dbeta,
                          const BatchNormArgs& a, cudaStream_t s);
cudaError_t sgd(float* w, const float* g, float* v, int64_t n, const SgdArgs& a, cudaStream_t s);
cudaError_t adam(float* w, const float* g, float* m, float* v, int64_t n, const AdamArgs& a,
                 cudaStream_t s);
/// *out (device) = sum of x[i]^2; *out must be zeroed first.
cudaError_t sumSquares(const float* x, int64_t n, double* out, cudaStream_t s);
/// *out (device) = count of NaN/Inf; *out must be zeroed first.
cudaError_t countNonFinite(const float* x, int64_t n, unsigned long long* out, cudaStream_t s);

}  // namespace ts::engine::cuda
