// The engine's CUDA kernels: each thread runs the element, row, channel or plane function of
// device_kernels.h for its index (grid-stride loops), so the arithmetic is the one the CPU
// emulation checks in the tests. Reductions over a whole tensor (gradient norms, NaN/Inf
// counts) reduce in shared memory and add blocks with atomics.
#include "core/engine/cuda/cuda_kernels.h"

namespace ts::engine::cuda {
namespace {

constexpr int kThreads = 256;

unsigned blocksFor(int64_t n) {
    const int64_t b = (n + kThreads - 1) / kThreads;
    return static_cast<unsigned>(b < 1 ? 1 : (b > 65535 ? 65535 : b));
}

#define TS_FOR(i, n)                                                                       \
    for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < (n); \
         i += static_cast<int64_t>(blockDim.x) * gridDim.x)

__global__ void fillKernel(float* y, float v, int64_t n) {
    TS_FOR(i, n) y[i] = v;
}
__global__ void unaryKernel(Unary op, const float* x, float* y, int64_t n, float alpha) {
    TS_FOR(i, n) y[i] = kernels::unaryAt(op, x[i], alpha);
}
__global__ void binaryKernel(Binary op, const float* a, const float* b, float* y, int64_t n) {
    TS_FOR(i, n) y[i] = kernels::binaryAt(op, a[i], b[i]);
}
__global__ void divGradBKernel(const float* g, const float* a, const float* b, float* y,
                               int64_t n) {
    TS_FOR(i, n) y[i] = kernels::divGradBAt(g[i], a[i], b[i]);
}
__global__ void biasAddKernel(const float* x, const float* b, float* y, int64_t n, int64_t C,
                              int64_t inner) {
    TS_FOR(i, n) y[i] = kernels::biasAddAt(x, b, i, C, inner);
}
__global__ void biasGradKernel(const float* g, float* db, int64_t N, int64_t C, int64_t inner) {
    TS_FOR(c, C) db[c] = kernels::biasGradChannel(g, c, N, C, inner);
}
__global__ void logSoftmaxKernel(const float* x, float* y, int64_t rows, int64_t cols) {
    TS_FOR(r, rows) kernels::logSoftmaxRow(x, y, r, cols);
}
__global__ void softmaxGradKernel(const float* g, const float* y, float* dx, int64_t rows,
                                  int64_t cols) {
    TS_FOR(r, rows) kernels::softmaxGradRow(g, y, dx, r, cols);
}
__global__ void logSoftmaxGradKernel(const float* g, const float* y, float* dx, int64_t rows,
                                     int64_t cols) {
    TS_FOR(r, rows) kernels::logSoftmaxGradRow(g, y, dx, r, cols);
}
__global__ void crossEntropyKernel(const float* logp, const int32_t* labels, float* loss,
                                   int64_t rows, int64_t cols) {
    if (blockIdx.x == 0 && threadIdx.x == 0)
        loss[0] = kernels::crossEntropyLoss(logp, labels, rows, cols);
}
__global__ void crossEntropyGradKernel(const float* g, const float* logp, const int32_t* labels,
                                       float* dx, int64_t rows, int64_t cols) {
    TS_FOR(i, rows * cols) dx[i] = kernels::crossEntropyGradAt(g, logp, labels, i, rows, cols);
}
__global__ void mseKernel(const float* a, const float* b, float* loss, int64_t n) {
    if (blockIdx.x == 0 && threadIdx.x == 0) loss[0] = kernels::mseLoss(a, b, n);
}
__global__ void mseGradKernel(const float* g, const float* a, const float* b, float* dx,
                              int64_t n) {
    TS_FOR(i, n) dx[i] = kernels::mseGradAt(g, a, b, i, n);
}
__global__ void im2colKernel(const float* x, float* cols, ConvShape g, int64_t n) {
    TS_FOR(i, n) cols[i] = kernels::im2colAt(x, i, g);
}
__global__ void col2imKernel(const float* cols, float* dx, ConvShape g, int64_t n) {
    TS_FOR(i, n) dx[i] = kernels::col2imAt(cols, i, g);
}
__global__ void maxPoolKernel(const float* x, float* y, int32_t* arg, PoolShape g, int64_t n) {
    TS_FOR(i, n) y[i] = kernels::maxPoolAt(x, i, g, arg + i);
}
__global__ void maxPoolGradKernel(const float* g, const int32_t* arg, float* dx, PoolShape p,
                                  int64_t planes) {
    TS_FOR(nc, planes) kernels::maxPoolGradPlane(g, arg, dx, nc, p);
}
__global__ void avgPoolKernel(const float* x, float* y, PoolShape g, int64_t n) {
    TS_FOR(i, n) y[i] = kernels::avgPoolAt(x, i, g);
}
__global__ void avgPoolGradKernel(const float* g, float* dx, PoolShape p, int64_t planes) {
    TS_FOR(nc, planes) kernels::avgPoolGradPlane(g, dx, nc, p);
}
__global__ void batchNormKernel(const float* x, const float* gamma, const float* beta,
                                float* runMean, float* runVar, float* y, float* mean, float* invstd,
                                BatchNormArgs a) {
    TS_FOR(c, a.C)
    kernels::batchNormChannel(x, gamma, beta, runMean, runVar, y, mean, invstd, c, a);
}
__global__ void batchNormGradKernel(const float* g, const float* x, const float* gamma,
                                    const float* mean, const float* invstd, float* dx,
                                    float* dgamma, float* dbeta, BatchNormArgs a) {
    TS_FOR(c, a.C)
    kernels::batchNormGradChannel(g, x, gamma, mean, invstd, dx, dgamma, dbeta, c, a);
}
__global__ void sgdKernel(float* w, const float* g, float* v, int64_t n, SgdArgs a) {
    TS_FOR(k, n) kernels::sgdAt(w, g, v, k, a);
}
__global__ void adamKernel(float* w, const float* g, float* m, float* v, int64_t n, AdamArgs a) {
    TS_FOR(k, n) kernels::adamAt(w, g, m, v, k, a);
}
__global__ void sumSquaresKernel(const float* x, int64_t n, double* out) {
    __shared__ double part[kThreads];
    double s = 0;
    TS_FOR(i, n) s += static_cast<double>(x[i]) * x[i];
    part[threadIdx.x] = s;
    __syncthreads();
    for (int half = kThreads / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) part[threadIdx.x] += part[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, part[0]);
}
__global__ void countNonFiniteKernel(const float* x, int64_t n, unsigned long long* out) {
    __shared__ unsigned long long part[kThreads];
    unsigned long long c = 0;
    TS_FOR(i, n) c += isfinite(x[i]) ? 0 : 1;
    part[threadIdx.x] = c;
    __syncthreads();
    for (int half = kThreads / 2; half > 0; half /= 2) {
        if (threadIdx.x < half) part[threadIdx.x] += part[threadIdx.x + half];
        __syncthreads();
    }
    if (threadIdx.x == 0) atomicAdd(out, part[0]);
}

}  // namespace

#define TS_LAUNCH(kernel, n, s, ...)                             \
    do {                                                         \
        kernel<<<blocksFor(n), kThreads, 0, (s)>>>(__VA_ARGS__); \
        return cudaGetLastError();                               \
    } while (0)

cudaError_t fill(float* y, float v, int64_t n, cudaStream_t s) {
    TS_LAUNCH(fillKernel, n, s, y, v, n);
}
cudaError_t unary(Unary op, const float* x, float* y, int64_t n, float alpha, cudaStream_t s) {
    TS_LAUNCH(unaryKernel, n, s, op, x, y, n, alpha);
}
cudaError_t binary(Binary op, const float* a, const float* b, float* y, int64_t n, cudaStream_t s) {
    TS_LAUNCH(binaryKernel, n, s, op, a, b, y, n);
}
cudaError_t divGradB(const float* g, const float* a, const float* b, float* y, int64_t n,
                     cudaStream_t s) {
    TS_LAUNCH(divGradBKernel, n, s, g, a, b, y, n);
}
cudaError_t biasAdd(const float* x, const float* b, float* y, int64_t N, int64_t C, int64_t inner,
                    cudaStream_t s) {
    TS_LAUNCH(biasAddKernel, N * C * inner, s, x, b, y, N * C * inner, C, inner);
}
cudaError_t biasGrad(const float* g, float* db, int64_t N, int64_t C, int64_t inner,
                     cudaStream_t s) {
    TS_LAUNCH(biasGradKernel, C, s, g, db, N, C, inner);
}
cudaError_t logSoftmax(const float* x, float* y, int64_t rows, int64_t cols, cudaStream_t s) {
    TS_LAUNCH(logSoftmaxKernel, rows, s, x, y, rows, cols);
}
cudaError_t softmaxGrad(const float* g, const float* y, float* dx, int64_t rows, int64_t cols,
                        cudaStream_t s) {
    TS_LAUNCH(softmaxGradKernel, rows, s, g, y, dx, rows, cols);
}
cudaError_t logSoftmaxGrad(const float* g, const float* y, float* dx, int64_t rows, int64_t cols,
                           cudaStream_t s) {
    TS_LAUNCH(logSoftmaxGradKernel, rows, s, g, y, dx, rows, cols);
}
cudaError_t crossEntropy(const float* logp, const int32_t* labels, float* loss, int64_t rows,
                         int64_t cols, cudaStream_t s) {
    TS_LAUNCH(crossEntropyKernel, 1, s, logp, labels, loss, rows, cols);
}
cudaError_t crossEntropyGrad(const float* g, const float* logp, const int32_t* labels, float* dx,
                             int64_t rows, int64_t cols, cudaStream_t s) {
    TS_LAUNCH(crossEntropyGradKernel, rows * cols, s, g, logp, labels, dx, rows, cols);
}
cudaError_t mse(const float* a, const float* b, float* loss, int64_t n, cudaStream_t s) {
    TS_LAUNCH(mseKernel, 1, s, a, b, loss, n);
}
cudaError_t mseGrad(const float* g, const float* a, const float* b, float* dx, int64_t n,
                    cudaStream_t s) {
    TS_LAUNCH(mseGradKernel, n, s, g, a, b, dx, n);
}
cudaError_t im2col(const float* x, float* cols, const ConvShape& g, cudaStream_t s) {
    const int64_t n = g.N * g.ckk() * g.ohw();
    TS_LAUNCH(im2colKernel, n, s, x, cols, g, n);
}
cudaError_t col2im(const float* cols, float* dx, const ConvShape& g, cudaStream_t s) {
    const int64_t n = g.N * g.chw();
    TS_LAUNCH(col2imKernel, n, s, cols, dx, g, n);
}
cudaError_t maxPool(const float* x, float* y, int32_t* arg, const PoolShape& g, cudaStream_t s) {
    const int64_t n = g.N * g.C * g.OH * g.OW;
    TS_LAUNCH(maxPoolKernel, n, s, x, y, arg, g, n);
}
cudaError_t maxPoolGrad(const float* g, const int32_t* arg, float* dx, const PoolShape& p,
                        cudaStream_t s) {
    TS_LAUNCH(maxPoolGradKernel, p.N * p.C, s, g, arg, dx, p, p.N * p.C);
}
cudaError_t avgPool(const float* x, float* y, const PoolShape& g, cudaStream_t s) {
    const int64_t n = g.N * g.C * g.OH * g.OW;
    TS_LAUNCH(avgPoolKernel, n, s, x, y, g, n);
}
cudaError_t avgPoolGrad(const float* g, float* dx, const PoolShape& p, cudaStream_t s) {
    TS_LAUNCH(avgPoolGradKernel, p.N * p.C, s, g, dx, p, p.N * p.C);
}
cudaError_t batchNorm(const float* x, const float* gamma, const float* beta, float* runMean,
                      float* runVar, float* y, float* mean, float* invstd, const BatchNormArgs& a,
                      cudaStream_t s) {
    TS_LAUNCH(batchNormKernel, a.C, s, x, gamma, beta, runMean, runVar, y, mean, invstd, a);
}
cudaError_t batchNormGrad(const float* g, const float* x, const float* gamma, const float* mean,
                          const float* invstd, float* dx, float* dgamma, float* dbeta,
                          const BatchNormArgs& a, cudaStream_t s) {
    TS_LAUNCH(batchNormGradKernel, a.C, s, g, x, gamma, mean, invstd, dx, dgamma, dbeta, a);
}
cudaError_t sgd(float* w, const float* g, float* v, int64_t n, const SgdArgs& a, cudaStream_t s) {
    TS_LAUNCH(sgdKernel, n, s, w, g, v, n, a);
}
cudaError_t adam(float* w, const float* g, float* m, float* v, int64_t n, const AdamArgs& a,
                 cudaStream_t s) {
    TS_LAUNCH(adamKernel, n, s, w, g, m, v, n, a);
}
cudaError_t sumSquares(const float* x, int64_t n, double* out, cudaStream_t s) {
    TS_LAUNCH(sumSquaresKernel, n, s, x, n, out);
}
cudaError_t countNonFinite(const float* x, int64_t n, unsigned long long* out, cudaStream_t s) {
    TS_LAUNCH(countNonFiniteKernel, n, s, x, n, out);
}

}  // namespace ts::engine::cuda
