#pragma once
// DeviceBackend: the memory and kernels of an accelerator as the engine's ops call them
// (through the device's KernelTable, core/engine/ops/kernel_table_device.cpp: a new op's
// device form adds its calls here), on raw pointers so that an implementation needs nothing
// of the engine: the CUDA backend (core/engine/cuda, libtrainscope_cuda.so, loaded at run
// time) and the CPU emulation used by the tests (device_emulation.cpp). Pointers are the
// backend's own memory except where a parameter says "host". Kernels run in order on one
// stream; copies to the host wait for them. A failed kernel or allocation surfaces as
// std::runtime_error with the device's message (from check() or the next call).
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/engine/device/device_kernels.h"

namespace ts::engine {

class DeviceBackend {
public:
    virtual ~DeviceBackend() = default;

    /// "cuda" or "cuda (emulated on the CPU)".
    virtual std::string name() const = 0;
    /// The device: "NVIDIA H100 80GB HBM3 (device 0, compute 9.0, 80 GiB)".
    virtual std::string deviceName() const = 0;

    // ---- memory ----
    /// nullptr when the device is out of memory.
    virtual void* allocate(size_t bytes) = 0;
    virtual void release(void* p) = 0;
    enum class Copy { HostToDevice, DeviceToHost, DeviceToDevice };
    virtual void copy(void* dst, const void* src, size_t bytes, Copy kind) = 0;
    virtual void zero(void* dst, size_t bytes) = 0;
    virtual void fill(float* dst, float value, int64_t n) = 0;
    /// Waits for every kernel; throws std::runtime_error naming `what` when one failed.
    virtual void check(const char* what) = 0;

    // ---- dense algebra: row-major C[M,N] = alpha op(A)[M,K] op(B)[K,N] + beta C ----
    virtual void sgemm(bool transA, bool transB, int64_t M, int64_t N, int64_t K, float alpha,
                       const float* A, int64_t lda, const float* B, int64_t ldb, float beta,
                       float* C, int64_t ldc) = 0;
    /// `batch` GEMMs, the i-th on A + i*strideA, B + i*strideB, C + i*strideC.
    virtual void sgemmStrided(bool transA, bool transB, int64_t M, int64_t N, int64_t K,
                              float alpha, const float* A, int64_t lda, int64_t strideA,
                              const float* B, int64_t ldb, int64_t strideB, float beta, float* C,
                              int64_t ldc, int64_t strideC, int64_t batch) = 0;

    // ---- element-wise ----
    virtual void unary(kernels::Unary op, const float* x, float* y, int64_t n, float alpha) = 0;
    virtual void binary(kernels::Binary op, const float* a, const float* b, float* y,
                        int64_t n) = 0;
    virtual void divGradB(const float* g, const float* a, const float* b, float* y, int64_t n) = 0;
    virtual void biasAdd(const float* x, const float* b, float* y, int64_t N, int64_t C,
                         int64_t inner) = 0;
    virtual void biasGrad(const float* g, float* db, int64_t N, int64_t C, int64_t inner) = 0;

    // ---- rows ----
    virtual void logSoftmax(const float* x, float* y, int64_t rows, int64_t cols) = 0;
    virtual void softmaxGrad(const float* g, const float* y, float* dx, int64_t rows,
                             int64_t cols) = 0;
    virtual void logSoftmaxGrad(const float* g, const float* y, float* dx, int64_t rows,
                                int64_t cols) = 0;
    /// loss[0] = mean -logp[r, labels[r]].
    virtual void crossEntropy(const float* logp, const int32_t* labels, float* loss, int64_t rows,
                              int64_t cols) = 0;
    /// dx = the gradient of the mean cross entropy, the loss's gradient being g[0].
    virtual void crossEntropyGrad(const float* g, const float* logp, const int32_t* labels,
                                  float* dx, int64_t rows, int64_t cols) = 0;
    virtual void mse(const float* a, const float* b, float* loss, int64_t n) = 0;
    virtual void mseGrad(const float* g, const float* a, const float* b, float* dx, int64_t n) = 0;

    // ---- convolution, pooling, batch norm ----
    /// cols[N][C*KH*KW][OH*OW] of x[N][C][H][W].
    virtual void im2col(const float* x, float* cols, const kernels::ConvShape& g) = 0;
    /// dx[N][C][H][W] from the column gradients (overwrites dx).
    virtual void col2im(const float* cols, float* dx, const kernels::ConvShape& g) = 0;
    virtual void maxPool(const float* x, float* y, int32_t* arg, const kernels::PoolShape& g) = 0;
    virtual void maxPoolGrad(const float* g, const int32_t* arg, float* dx,
                             const kernels::PoolShape& s) = 0;
    virtual void avgPool(const float* x, float* y, const kernels::PoolShape& g) = 0;
    virtual void avgPoolGrad(const float* g, float* dx, const kernels::PoolShape& s) = 0;
    /// Writes y and, per channel, the mean and 1/sqrt(var + eps) used; training updates
    /// runMean/runVar, evaluation reads them.
    virtual void batchNorm(const float* x, const float* gamma, const float* beta, float* runMean,
                           float* runVar, float* y, float* mean, float* invstd,
                           const kernels::BatchNormArgs& a) = 0;
    virtual void batchNormGrad(const float* g, const float* x, const float* gamma,
                               const float* mean, const float* invstd, float* dx, float* dgamma,
                               float* dbeta, const kernels::BatchNormArgs& a) = 0;

    // ---- optimizers and gradient checks ----
    virtual void sgd(float* w, const float* g, float* v, int64_t n, const kernels::SgdArgs& a) = 0;
    virtual void adam(float* w, const float* g, float* m, float* v, int64_t n,
                      const kernels::AdamArgs& a) = 0;
    /// Sum of x[i]^2 (host value).
    virtual double sumSquares(const float* x, int64_t n) = 0;
    /// Values that are NaN or +-Inf (host value).
    virtual int64_t countNonFinite(const float* x, int64_t n) = 0;

    // ---- profiling: the CUPTI collector (core/profiler/cuda) in this process ----
    /// Starts recording the device's activity into `path` (an activity file); false and
    /// `error` when it cannot (no collector, CUPTI refused).
    virtual bool startActivity(const std::string& path, std::string* error) = 0;
    virtual bool stopActivity(std::string* error) = 0;
};

}  // namespace ts::engine
