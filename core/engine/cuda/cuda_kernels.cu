// The engine's CUDA kernels: each thread runs the element, row, channel or plane function of
// device_kernels.h for its index (grid-stride loops), so the arithmetic is the one the CPU
// emulation checks in the tests. Reductions over a channel (batch norm, bias and depthwise
// filter gradients) run one block per (channel, slice) with a warp-shuffle block sum, then
// add a channel's slices in order; the losses reduce their rows in one block; reductions over
// a whole tensor (gradient norms, NaN/Inf counts) add blocks with atomics. The optimizers
// update a chunk of up to TensorChunk::kMax parameters per launch.
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
__global__ void crossEntropyGradKernel(const float* g, const float* logp, const int32_t* labels,
                                       float* dx, int64_t rows, int64_t cols) {
    TS_FOR(i, rows * cols) dx[i] = kernels::crossEntropyGradAt(g, logp, labels, i, rows, cols);
}
__global__ void mseGradKernel(const float* g, const float* a, const float* b, float* dx,
                              int64_t n) {
    TS_FOR(i, n) dx[i] = kernels::mseGradAt(g, a, b, i, n);
}
__global__ void im2colKernel(const float* x, float* cols, ConvShape g, int64_t n) {
    TS_FOR(i, n) cols[i] = kernels::im2colAt(x, i, g);
}
__global__ void col2imKernel(const float* cols, float* dx, ConvShape g, int64_t n) {
    TS_FOR(i, n) dx[kernels::col2imDst(i, g)] = kernels::col2imAt(cols, i, g);
}
__global__ void im2colTKernel(const float* x, float* cols, ConvShape g, int64_t n) {
    TS_FOR(i, n) cols[i] = kernels::im2colTAt(x, i, g);
}
__global__ void depthwiseKernel(const float* x, const float* w, const float* b, float* y,
                                ConvShape g, int64_t n) {
    TS_FOR(i, n) y[i] = kernels::depthwiseAt(x, w, b, i, g);
}
__global__ void depthwiseInputKernel(const float* dy, const float* w, float* dx, ConvShape g,
                                     int64_t n) {
    TS_FOR(i, n) dx[i] = kernels::depthwiseInputAt(dy, w, i, g);
}
__global__ void maxPoolKernel(const float* x, float* y, int32_t* arg, PoolShape g, int64_t n) {
    TS_FOR(i, n) y[i] = kernels::maxPoolAt(x, i, g, arg + i);
}
__global__ void avgPoolKernel(const float* x, float* y, PoolShape g, int64_t n) {
    TS_FOR(i, n) y[i] = kernels::avgPoolAt(x, i, g);
}
__global__ void sgdKernel(float* w, const float* g, float* v, int64_t n, SgdArgs a) {
    TS_FOR(k, n) kernels::sgdAt(w, g, v, k, a);
}
__global__ void adamKernel(float* w, const float* g, float* m, float* v, int64_t n, AdamArgs a) {
    TS_FOR(k, n) kernels::adamAt(w, g, m, v, k, a);
}
__global__ void maxPoolGradKernel(const float* g, const int32_t* arg, float* dx, PoolShape p,
                                  int64_t n) {
    TS_FOR(i, n) dx[i] = kernels::maxPoolGradAt(g, arg, i, p);
}
__global__ void avgPoolGradKernel(const float* g, float* dx, PoolShape p, int64_t n) {
    TS_FOR(i, n) dx[i] = kernels::avgPoolGradAt(g, i, p);
}
__global__ void globalAvgPoolKernel(const float* x, float* y, int64_t planes, int64_t HW) {
    TS_FOR(p, planes) y[p] = kernels::globalAvgPoolAt(x, p, HW);
}
__global__ void globalAvgPoolGradKernel(const float* g, float* dx, int64_t n, int64_t HW) {
    TS_FOR(i, n) dx[i] = kernels::globalAvgPoolGradAt(g, i, HW);
}
__global__ void broadcastAddKernel(const float* a, const float* b, float* y, int64_t n,
                                   BroadcastShape sh) {
    TS_FOR(i, n) y[i] = kernels::broadcastAddAt(a, b, i, sh);
}
__global__ void reduceSumToKernel(const float* g, float* dst, int64_t n, ReduceShape sh) {
    TS_FOR(j, n) dst[j] = kernels::reduceSumToAt(g, j, sh);
}
__global__ void permuteKernel(const float* x, float* y, int64_t n, PermuteShape sh) {
    TS_FOR(i, n) y[i] = x[kernels::permuteSource(i, sh)];
}
__global__ void pad2dKernel(const float* x, float* y, PadShape sh, int64_t n) {
    TS_FOR(i, n) y[i] = kernels::pad2dAt(x, i, sh);
}
__global__ void pad2dGradKernel(const float* g, float* dx, PadShape sh, int64_t n) {
    TS_FOR(i, n) dx[i] = kernels::pad2dGradAt(g, i, sh);
}
__global__ void gatherRowsKernel(const uint32_t* src, const int32_t* order, int64_t first,
                                 uint32_t* dst, int64_t n, int64_t words) {
    TS_FOR(i, n) dst[i] = kernels::gatherRowsAt(src, order, first, i, words);
}

// ---- block sums (blockDim.x a multiple of 32, at most 1024) ----

__device__ double warpSum(double v) {
    for (int o = 16; o > 0; o /= 2) v += __shfl_down_sync(0xffffffffu, v, o);
    return v;
}

/// The block's sum of v, valid in thread 0; `shared` holds 32 doubles.
__device__ double blockSum(double v, double* shared) {
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
    v = warpSum(v);
    __syncthreads();  // `shared` may still be read by a previous call
    if (lane == 0) shared[warp] = v;
    __syncthreads();
    const int warps = (blockDim.x + 31) / 32;
    v = threadIdx.x < warps ? shared[threadIdx.x] : 0.0;
    if (warp == 0) v = warpSum(v);
    return v;
}

/// Channel blockIdx.x of g[N, C, inner] summed over N and inner.
__global__ void biasGradKernel(const float* g, float* db, int64_t N, int64_t C, int64_t inner) {
    __shared__ double shared[32];
    const int64_t c = blockIdx.x, M = N * inner;
    double s = 0;
    for (int64_t m = threadIdx.x; m < M; m += blockDim.x)
        s += g[kernels::channelIndex(m, c, C, inner)];
    s = blockSum(s, shared);
    if (threadIdx.x == 0) db[c] = static_cast<float>(s);
}

/// The fused softmax cross entropy in one block: each thread's rows, then their mean.
__global__ void crossEntropyKernel(const float* x, const int32_t* labels, float* logp, float* loss,
                                   int64_t rows, int64_t cols, DeviceError* err) {
    __shared__ double shared[32];
    double s = 0;
    for (int64_t r = threadIdx.x; r < rows; r += blockDim.x) {
        int32_t bad = 0;
        s += kernels::crossEntropyRow(x, logp, labels, r, cols, &bad);
        const int32_t l = labels[r];
        if ((l < 0 || l >= cols) && err) {
            // A benign race between bad rows: any of them is reported.
            volatile DeviceError* e = err;
            e->value = l;
            e->limit = static_cast<int32_t>(cols);
            e->code = 1;
        }
    }
    s = blockSum(s, shared);
    if (threadIdx.x == 0) loss[0] = static_cast<float>(s / static_cast<double>(rows));
}

__global__ void mseKernel(const float* a, const float* b, float* loss, int64_t n) {
    __shared__ double shared[32];
    double s = 0;
    for (int64_t i = threadIdx.x; i < n; i += blockDim.x) s += kernels::mseTerm(a, b, i);
    s = blockSum(s, shared);
    if (threadIdx.x == 0) loss[0] = static_cast<float>(s / static_cast<double>(n > 1 ? n : 1));
}

/// Depthwise filter gradient, slice blockIdx.y of weight blockIdx.x into work[j * S + s].
__global__ void depthwiseFilterSliceKernel(const float* dy, const float* x, double* work,
                                           ConvShape g) {
    __shared__ double shared[32];
    const int64_t j = blockIdx.x, s = blockIdx.y, S = gridDim.y;
    int64_t b, e;
    kernels::sliceRange(g.N * g.ohw(), s, S, &b, &e);
    double acc = 0;
    for (int64_t m = b + threadIdx.x; m < e; m += blockDim.x)
        acc += kernels::depthwiseFilterTerm(dy, x, j, m, g);
    acc = blockSum(acc, shared);
    if (threadIdx.x == 0) work[j * S + s] = acc;
}
__global__ void sliceTotalKernel(const double* work, float* out, int64_t units, int64_t S) {
    TS_FOR(j, units) {
        double acc = 0;
        for (int64_t s = 0; s < S; ++s) acc += work[j * S + s];
        out[j] = static_cast<float>(acc);
    }
}

/// Batch norm's per-(channel, slice) sums: of x and x^2 (forward), or of g and g * x-hat
/// (gradient: g given).
__global__ void batchNormSliceKernel(const float* x, const float* g, const float* mean,
                                     const float* invstd, double* work, BatchNormArgs a) {
    __shared__ double shared[32];
    const int64_t c = blockIdx.x, s = blockIdx.y, S = gridDim.y;
    int64_t b, e;
    kernels::sliceRange(a.count(), s, S, &b, &e);
    double s1 = 0, s2 = 0;
    if (g) {
        const float mu = mean[c], is = invstd[c];
        for (int64_t m = b + threadIdx.x; m < e; m += blockDim.x) {
            const int64_t i = kernels::channelIndex(m, c, a.C, a.HW);
            s1 += g[i];
            s2 += g[i] * ((x[i] - mu) * is);
        }
    } else {
        for (int64_t m = b + threadIdx.x; m < e; m += blockDim.x) {
            const double v = x[kernels::channelIndex(m, c, a.C, a.HW)];
            s1 += v;
            s2 += v * v;
        }
    }
    s1 = blockSum(s1, shared);
    s2 = blockSum(s2, shared);
    if (threadIdx.x == 0) {
        work[(c * S + s) * 2] = s1;
        work[(c * S + s) * 2 + 1] = s2;
    }
}
__global__ void batchNormStatsKernel(const double* work, float* runMean, float* runVar, float* mean,
                                     float* invstd, BatchNormArgs a) {
    TS_FOR(c, a.C) kernels::batchNormStats(work, runMean, runVar, mean, invstd, c, a);
}
__global__ void batchNormApplyKernel(const float* x, const float* gamma, const float* beta,
                                     const float* mean, const float* invstd, float* y,
                                     BatchNormArgs a, int64_t n) {
    TS_FOR(i, n) y[i] = kernels::batchNormAt(x, gamma, beta, mean, invstd, i, a);
}
__global__ void batchNormGradStatsKernel(const double* work, float* dgamma, float* dbeta,
                                         float* means, BatchNormArgs a) {
    TS_FOR(c, a.C) kernels::batchNormGradStats(work, dgamma, dbeta, means, c, a);
}
__global__ void batchNormGradApplyKernel(const float* g, const float* x, const float* gamma,
                                         const float* mean, const float* invstd, const float* means,
                                         float* dx, BatchNormArgs a, int64_t n) {
    TS_FOR(i, n) dx[i] = kernels::batchNormGradAt(g, x, gamma, mean, invstd, means, i, a);
}

// ---- the optimizers over a chunk of parameters ----

constexpr int kChunkValuesPerBlock = kThreads * 4;

/// A chunk and where each of its tensors' blocks start (block b updates values
/// [(b - start[t]) * kChunkValuesPerBlock, ...) of the tensor t with start[t] <= b).
struct ChunkLaunch {
    TensorChunk c;
    int32_t start[TensorChunk::kMax + 1];
};

__device__ int chunkTensor(const ChunkLaunch& l) {
    int t = 0;
    while (t + 1 < l.c.count && l.start[t + 1] <= static_cast<int32_t>(blockIdx.x)) ++t;
    return t;
}

__global__ void sgdChunkKernel(ChunkLaunch l, SgdArgs a) {
    const int t = chunkTensor(l);
    const int64_t base = static_cast<int64_t>(blockIdx.x - l.start[t]) * kChunkValuesPerBlock;
    const int64_t end =
        base + kChunkValuesPerBlock < l.c.n[t] ? base + kChunkValuesPerBlock : l.c.n[t];
    for (int64_t k = base + threadIdx.x; k < end; k += blockDim.x)
        kernels::sgdAt(l.c.w[t], l.c.g[t], l.c.m[t], k, a);
}
__global__ void adamChunkKernel(ChunkLaunch l, AdamArgs a) {
    const int t = chunkTensor(l);
    const int64_t base = static_cast<int64_t>(blockIdx.x - l.start[t]) * kChunkValuesPerBlock;
    const int64_t end =
        base + kChunkValuesPerBlock < l.c.n[t] ? base + kChunkValuesPerBlock : l.c.n[t];
    for (int64_t k = base + threadIdx.x; k < end; k += blockDim.x)
        kernels::adamAt(l.c.w[t], l.c.g[t], l.c.m[t], l.c.v[t], k, a);
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

/// Slices of a reduction over M values: at most 64, each of at least 4096 values.
dim3 sliceGrid(int64_t units, int64_t M) {
    return dim3(static_cast<unsigned>(units), static_cast<unsigned>(kernels::reduceSlices(M)));
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
    biasGradKernel<<<static_cast<unsigned>(C), kThreads, 0, s>>>(g, db, N, C, inner);
    return cudaGetLastError();
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
cudaError_t crossEntropy(const float* x, const int32_t* labels, float* logp, float* loss,
                         int64_t rows, int64_t cols, DeviceError* err, cudaStream_t s) {
    crossEntropyKernel<<<1, kThreads, 0, s>>>(x, labels, logp, loss, rows, cols, err);
    return cudaGetLastError();
}
cudaError_t crossEntropyGrad(const float* g, const float* logp, const int32_t* labels, float* dx,
                             int64_t rows, int64_t cols, cudaStream_t s) {
    TS_LAUNCH(crossEntropyGradKernel, rows * cols, s, g, logp, labels, dx, rows, cols);
}
cudaError_t mse(const float* a, const float* b, float* loss, int64_t n, cudaStream_t s) {
    mseKernel<<<1, kThreads, 0, s>>>(a, b, loss, n);
    return cudaGetLastError();
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
    const int64_t n = p.N * p.C * p.H * p.W;
    TS_LAUNCH(maxPoolGradKernel, n, s, g, arg, dx, p, n);
}
cudaError_t avgPool(const float* x, float* y, const PoolShape& g, cudaStream_t s) {
    const int64_t n = g.N * g.C * g.OH * g.OW;
    TS_LAUNCH(avgPoolKernel, n, s, x, y, g, n);
}
cudaError_t avgPoolGrad(const float* g, float* dx, const PoolShape& p, cudaStream_t s) {
    const int64_t n = p.N * p.C * p.H * p.W;
    TS_LAUNCH(avgPoolGradKernel, n, s, g, dx, p, n);
}
cudaError_t globalAvgPool(const float* x, float* y, int64_t planes, int64_t HW, cudaStream_t s) {
    TS_LAUNCH(globalAvgPoolKernel, planes, s, x, y, planes, HW);
}
cudaError_t globalAvgPoolGrad(const float* g, float* dx, int64_t planes, int64_t HW,
                              cudaStream_t s) {
    TS_LAUNCH(globalAvgPoolGradKernel, planes * HW, s, g, dx, planes * HW, HW);
}
cudaError_t im2colT(const float* x, float* cols, const ConvShape& g, cudaStream_t s) {
    const int64_t n = g.N * g.ckk() * g.ohw();
    TS_LAUNCH(im2colTKernel, n, s, x, cols, g, n);
}
cudaError_t depthwise(const float* x, const float* w, const float* bias, float* y,
                      const ConvShape& g, cudaStream_t s) {
    const int64_t n = g.N * g.C * g.ohw();
    TS_LAUNCH(depthwiseKernel, n, s, x, w, bias, y, g, n);
}
cudaError_t depthwiseInput(const float* dy, const float* w, float* dx, const ConvShape& g,
                           cudaStream_t s) {
    const int64_t n = g.N * g.chw();
    TS_LAUNCH(depthwiseInputKernel, n, s, dy, w, dx, g, n);
}
cudaError_t depthwiseFilter(const float* dy, const float* x, float* dw, double* work,
                            const ConvShape& g, cudaStream_t s) {
    const int64_t units = g.C * g.KH * g.KW, M = g.N * g.ohw();
    depthwiseFilterSliceKernel<<<sliceGrid(units, M), kThreads, 0, s>>>(dy, x, work, g);
    if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
    TS_LAUNCH(sliceTotalKernel, units, s, work, dw, units, kernels::reduceSlices(M));
}
cudaError_t batchNorm(const float* x, const float* gamma, const float* beta, float* runMean,
                      float* runVar, float* y, float* mean, float* invstd, double* work,
                      const BatchNormArgs& a, cudaStream_t s) {
    if (a.training) {
        batchNormSliceKernel<<<sliceGrid(a.C, a.count()), kThreads, 0, s>>>(x, nullptr, nullptr,
                                                                            nullptr, work, a);
        if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
    }
    batchNormStatsKernel<<<blocksFor(a.C), kThreads, 0, s>>>(work, runMean, runVar, mean, invstd,
                                                             a);
    if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
    const int64_t n = a.N * a.C * a.HW;
    TS_LAUNCH(batchNormApplyKernel, n, s, x, gamma, beta, mean, invstd, y, a, n);
}
cudaError_t batchNormGrad(const float* g, const float* x, const float* gamma, const float* mean,
                          const float* invstd, float* dx, float* dgamma, float* dbeta, double* work,
                          const BatchNormArgs& a, cudaStream_t s) {
    float* means = reinterpret_cast<float*>(work + a.C * a.slices() * 2);
    batchNormSliceKernel<<<sliceGrid(a.C, a.count()), kThreads, 0, s>>>(x, g, mean, invstd, work,
                                                                        a);
    if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
    batchNormGradStatsKernel<<<blocksFor(a.C), kThreads, 0, s>>>(work, dgamma, dbeta, means, a);
    if (const cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
    const int64_t n = a.N * a.C * a.HW;
    TS_LAUNCH(batchNormGradApplyKernel, n, s, g, x, gamma, mean, invstd, means, dx, a, n);
}
cudaError_t broadcastAdd(const float* a, const float* b, float* y, int64_t n,
                         const BroadcastShape& sh, cudaStream_t s) {
    TS_LAUNCH(broadcastAddKernel, n, s, a, b, y, n, sh);
}
cudaError_t reduceSumTo(const float* g, float* dst, int64_t n, const ReduceShape& sh,
                        cudaStream_t s) {
    TS_LAUNCH(reduceSumToKernel, n, s, g, dst, n, sh);
}
cudaError_t permute(const float* x, float* y, int64_t n, const PermuteShape& sh, cudaStream_t s) {
    TS_LAUNCH(permuteKernel, n, s, x, y, n, sh);
}
cudaError_t pad2d(const float* x, float* y, const PadShape& sh, cudaStream_t s) {
    const int64_t n = sh.NC * sh.OH * sh.OW;
    TS_LAUNCH(pad2dKernel, n, s, x, y, sh, n);
}
cudaError_t pad2dGrad(const float* g, float* dx, const PadShape& sh, cudaStream_t s) {
    const int64_t n = sh.NC * sh.H * sh.W;
    TS_LAUNCH(pad2dGradKernel, n, s, g, dx, sh, n);
}
cudaError_t gatherRows(const uint32_t* src, const int32_t* order, int64_t first, int64_t rows,
                       int64_t words, uint32_t* dst, cudaStream_t s) {
    TS_LAUNCH(gatherRowsKernel, rows * words, s, src, order, first, dst, rows * words, words);
}
cudaError_t sgd(float* w, const float* g, float* v, int64_t n, const SgdArgs& a, cudaStream_t s) {
    TS_LAUNCH(sgdKernel, n, s, w, g, v, n, a);
}
cudaError_t adam(float* w, const float* g, float* m, float* v, int64_t n, const AdamArgs& a,
                 cudaStream_t s) {
    TS_LAUNCH(adamKernel, n, s, w, g, m, v, n, a);
}
namespace {
/// The launch of a chunk: each tensor's first block, and the blocks in all.
ChunkLaunch chunkLaunch(const TensorChunk& c, unsigned* blocks) {
    ChunkLaunch l{c, {}};
    int64_t b = 0;
    for (int t = 0; t < c.count; ++t) {
        l.start[t] = static_cast<int32_t>(b);
        b += (c.n[t] + kChunkValuesPerBlock - 1) / kChunkValuesPerBlock;
    }
    l.start[c.count] = static_cast<int32_t>(b);
    *blocks = static_cast<unsigned>(b < 1 ? 1 : b);
    return l;
}
}  // namespace

cudaError_t sgdChunk(const TensorChunk& c, const SgdArgs& a, cudaStream_t s) {
    if (c.count == 0) return cudaSuccess;
    unsigned blocks = 0;
    const ChunkLaunch l = chunkLaunch(c, &blocks);
    sgdChunkKernel<<<blocks, kThreads, 0, s>>>(l, a);
    return cudaGetLastError();
}
cudaError_t adamChunk(const TensorChunk& c, const AdamArgs& a, cudaStream_t s) {
    if (c.count == 0) return cudaSuccess;
    unsigned blocks = 0;
    const ChunkLaunch l = chunkLaunch(c, &blocks);
    adamChunkKernel<<<blocks, kThreads, 0, s>>>(l, a);
    return cudaGetLastError();
}
cudaError_t sumSquares(const float* x, int64_t n, double* out, cudaStream_t s) {
    TS_LAUNCH(sumSquaresKernel, n, s, x, n, out);
}
cudaError_t countNonFinite(const float* x, int64_t n, unsigned long long* out, cudaStream_t s) {
    TS_LAUNCH(countNonFiniteKernel, n, s, x, n, out);
}

}  // namespace ts::engine::cuda
