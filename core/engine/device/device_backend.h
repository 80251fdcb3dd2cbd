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

/// What a backend did, counted since it was created: how tests and the benchmark see that a
/// step allocates nothing, never waits for the device and launches what it should.
struct DeviceCounters {
    /// Work put on the stream: each call that runs a kernel, a GEMM, a copy or a memset
    /// counts one (a call the CUDA backend runs as several kernels still counts one); a
    /// graph launch counts one. Calls recorded into a graph count when recorded.
    int64_t enqueued = 0;
    int64_t graphLaunches = 0;
    /// Device memory blocks allocated / freed (cudaMalloc / cudaFree).
    int64_t allocations = 0, releases = 0;
    /// Times the host waited for the stream: synchronous copies, check(), host results.
    int64_t hostWaits = 0;
    /// Asynchronous readbacks collected (readbackWait()).
    int64_t readbacks = 0;
};

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
    /// `rows` rows of `cols` floats from src (rows `srcPitch` floats apart) to dst (rows
    /// `dstPitch` apart), both on the device: Concat's and Split's pieces.
    virtual void copy2d(float* dst, int64_t dstPitch, const float* src, int64_t srcPitch,
                        int64_t rows, int64_t cols) = 0;
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
    /// logp = log softmax(x) per row and loss[0] = mean -logp[r, labels[r]], in one pass. A
    /// label outside [0, cols) raises std::invalid_argument naming the op at the backend's
    /// next synchronisation (copy to the host, check(), readbackWait()).
    virtual void crossEntropy(const float* x, const int32_t* labels, float* logp, float* loss,
                              int64_t rows, int64_t cols) = 0;
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
    /// The column matrix in channel-major order [C*KH*KW][N][OH*OW] (filter gradients).
    virtual void im2colT(const float* x, float* cols, const kernels::ConvShape& g) = 0;
    /// Depthwise convolution (ConvShape's C and O: the channels; `bias` may be null), its
    /// input gradient, and its filter gradient dw[C][KH][KW] (`work`: C*KH*KW*slices doubles,
    /// kernels::reduceSlices(N*OH*OW) slices).
    virtual void depthwise(const float* x, const float* w, const float* bias, float* y,
                           const kernels::ConvShape& g) = 0;
    virtual void depthwiseInput(const float* dy, const float* w, float* dx,
                                const kernels::ConvShape& g) = 0;
    virtual void depthwiseFilter(const float* dy, const float* x, float* dw, double* work,
                                 const kernels::ConvShape& g) = 0;
    virtual void maxPool(const float* x, float* y, int32_t* arg, const kernels::PoolShape& g) = 0;
    virtual void maxPoolGrad(const float* g, const int32_t* arg, float* dx,
                             const kernels::PoolShape& s) = 0;
    virtual void avgPool(const float* x, float* y, const kernels::PoolShape& g) = 0;
    virtual void avgPoolGrad(const float* g, float* dx, const kernels::PoolShape& s) = 0;
    /// y[N, C] = the mean of each HW plane of x; its gradient spreads g over the planes.
    virtual void globalAvgPool(const float* x, float* y, int64_t planes, int64_t HW) = 0;
    virtual void globalAvgPoolGrad(const float* g, float* dx, int64_t planes, int64_t HW) = 0;
    /// Writes y and, per channel, the mean and 1/sqrt(var + eps) used; training updates
    /// runMean/runVar, evaluation reads them. `work`: a.workDoubles() doubles of scratch.
    virtual void batchNorm(const float* x, const float* gamma, const float* beta, float* runMean,
                           float* runVar, float* y, float* mean, float* invstd, double* work,
                           const kernels::BatchNormArgs& a) = 0;
    virtual void batchNormGrad(const float* g, const float* x, const float* gamma,
                               const float* mean, const float* invstd, float* dx, float* dgamma,
                               float* dbeta, double* work, const kernels::BatchNormArgs& a) = 0;

    // ---- shape ----
    virtual void broadcastAdd(const float* a, const float* b, float* y, int64_t n,
                              const kernels::BroadcastShape& s) = 0;
    /// dst[j] for j < n: g summed over the dims the operand was broadcast along.
    virtual void reduceSumTo(const float* g, float* dst, int64_t n,
                             const kernels::ReduceShape& s) = 0;
    /// y[i] = x[permuteSource(i)] for i < n.
    virtual void permute(const float* x, float* y, int64_t n, const kernels::PermuteShape& s) = 0;
    virtual void pad2d(const float* x, float* y, const kernels::PadShape& s) = 0;
    virtual void pad2dGrad(const float* g, float* dx, const kernels::PadShape& s) = 0;
    /// Batch row r of dst = source row order[first + r], for `rows` rows of `words` 4-byte
    /// values (the device-resident training data, data/device_feed.h).
    virtual void gatherRows(const void* src, const int32_t* order, int64_t first, int64_t rows,
                            int64_t words, void* dst) = 0;

    // ---- optimizers and gradient checks ----
    virtual void sgd(float* w, const float* g, float* v, int64_t n, const kernels::SgdArgs& a) = 0;
    virtual void adam(float* w, const float* g, float* m, float* v, int64_t n,
                      const kernels::AdamArgs& a) = 0;
    /// The same updates over a chunk of parameters in one launch (m: the momenta for SGD).
    virtual void sgdChunk(const kernels::TensorChunk& c, const kernels::SgdArgs& a) = 0;
    virtual void adamChunk(const kernels::TensorChunk& c, const kernels::AdamArgs& a) = 0;
    /// Sum of x[i]^2 (host value).
    virtual double sumSquares(const float* x, int64_t n) = 0;
    /// Values that are NaN or +-Inf (host value).
    virtual int64_t countNonFinite(const float* x, int64_t n) = 0;

    // ---- asynchronous readback: a few bytes to the host without waiting ----
    static constexpr int kReadbackSlots = 4;
    static constexpr size_t kReadbackBytes = 64;
    /// Copies `bytes` (<= kReadbackBytes) at `src` into slot `slot` (< kReadbackSlots) of
    /// the backend's page-locked host buffer once the work enqueued so far is done, and
    /// returns at once.
    virtual void readbackAsync(int slot, const void* src, size_t bytes) = 0;
    /// Waits for that copy and writes the bytes into `dst`; raises a pending device error.
    virtual void readbackWait(int slot, void* dst, size_t bytes) = 0;

    // ---- CUDA Graphs: the stream's work recorded once and replayed ----
    /// Records the calls that follow into a graph instead of running them (CUDA's stream
    /// capture). A call that would make the host wait (a copy to or from the host, check(),
    /// a host result) fails while recording, and so does endCapture().
    virtual void beginCapture() = 0;
    /// The recorded graph (an id > 0), ready to launch; throws std::runtime_error with the
    /// reason when the recording failed (it is then discarded and the stream records no more).
    virtual int64_t endCapture() = 0;
    virtual void launchGraph(int64_t graph) = 0;
    virtual void destroyGraph(int64_t graph) = 0;

    virtual DeviceCounters counters() const = 0;

    // ---- profiling: the CUPTI collector (core/profiler/cuda) in this process ----
    /// Starts recording the device's activity into `path` (an activity file); false and
    /// `error` when it cannot (no collector, CUPTI refused).
    virtual bool startActivity(const std::string& path, std::string* error) = 0;
    virtual bool stopActivity(std::string* error) = 0;
};

}  // namespace ts::engine
