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

using kernels::BroadcastShape;
using kernels::PadShape;
using kernels::PermuteShape;
using kernels::ReduceShape;
using kernels::TensorChunk;

/// Where a kernel reports a device assertion (a label out of range): page-locked host memory
/// the device writes to; the backend reads it after each synchronisation.
struct DeviceError {
    int32_t code;   // 0: none; 1: a cross-entropy label out of range
    int32_t value;  // the label
    int32_t limit;  // the number of classes
};

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
cudaError_t crossEntropy(const float* x, const int32_t* labels, float* logp, float* loss,
                         int64_t rows, int64_t cols, DeviceError* err, cudaStream_t s);
cudaError_t crossEntropyGrad(const float* g, const float* logp, const int32_t* labels, float* dx,
                             int64_t rows, int64_t cols, cudaStream_t s);
cudaError_t mse(const float* a, const float* b, float* loss, int64_t n, cudaStream_t s);
cudaError_t mseGrad(const float* g, const float* a, const float* b, float* dx, int64_t n,
                    cudaStream_t s);
cudaError_t im2col(const float* x, float* cols, const ConvShape& g, cudaStream_t s);
cudaError_t col2im(const float* cols, float* dx, const ConvShape& g, cudaStream_t s);
cudaError_t im2colT(const float* x, float* cols, const ConvShape& g, cudaStream_t s);
cudaError_t depthwise(const float* x, const float* w, const float* bias, float* y,
                      const ConvShape& g, cudaStream_t s);
cudaError_t depthwiseInput(const float* dy, const float* w, float* dx, const ConvShape& g,
                           cudaStream_t s);
cudaError_t depthwiseFilter(const float* dy, const float* x, float* dw, double* work,
                            const ConvShape& g, cudaStream_t s);
cudaError_t maxPool(const float* x, float* y, int32_t* arg, const PoolShape& g, cudaStream_t s);
cudaError_t maxPoolGrad(const float* g, const int32_t* arg, float* dx, const PoolShape& p,
                        cudaStream_t s);
cudaError_t avgPool(const float* x, float* y, const PoolShape& g, cudaStream_t s);
cudaError_t avgPoolGrad(const float* g, float* dx, const PoolShape& p, cudaStream_t s);
cudaError_t globalAvgPool(const float* x, float* y, int64_t planes, int64_t HW, cudaStream_t s);
cudaError_t globalAvgPoolGrad(const float* g, float* dx, int64_t planes, int64_t HW,
                              cudaStream_t s);
cudaError_t batchNorm(const float* x, const float* gamma, const float* beta, float* runMean,
                      float* runVar, float* y, float* mean, float* invstd, double* work,
                      const BatchNormArgs& a, cudaStream_t s);
cudaError_t batchNormGrad(const float* g, const float* x, const float* gamma, const float* mean,
                          const float* invstd, float* dx, float* dgamma, float* dbeta, double* work,
                          const BatchNormArgs& a, cudaStream_t s);
cudaError_t broadcastAdd(const float* a, const float* b, float* y, int64_t n,
                         const BroadcastShape& sh, cudaStream_t s);
cudaError_t reduceSumTo(const float* g, float* dst, int64_t n, const ReduceShape& sh,
                        cudaStream_t s);
cudaError_t permute(const float* x, float* y, int64_t n, const PermuteShape& sh, cudaStream_t s);
cudaError_t pad2d(const float* x, float* y, const PadShape& sh, cudaStream_t s);
cudaError_t pad2dGrad(const float* g, float* dx, const PadShape& sh, cudaStream_t s);
cudaError_t gatherRows(const uint32_t* src, const int32_t* order, int64_t first, int64_t rows,
                       int64_t words, uint32_t* dst, cudaStream_t s);
cudaError_t sgd(float* w, const float* g, float* v, int64_t n, const SgdArgs& a, cudaStream_t s);
cudaError_t adam(float* w, const float* g, float* m, float* v, int64_t n, const AdamArgs& a,
                 cudaStream_t s);
cudaError_t sgdChunk(const TensorChunk& c, const SgdArgs& a, cudaStream_t s);
cudaError_t adamChunk(const TensorChunk& c, const AdamArgs& a, cudaStream_t s);
/// *out (device) = sum of x[i]^2; *out must be zeroed first.
cudaError_t sumSquares(const float* x, int64_t n, double* out, cudaStream_t s);
/// *out (device) = count of NaN/Inf; *out must be zeroed first.
cudaError_t countNonFinite(const float* x, int64_t n, unsigned long long* out, cudaStream_t s);

}  // namespace ts::engine::cuda
