// libtrainscope_cuda.so: the engine's DeviceBackend on one NVIDIA GPU — cudaMalloc'd memory
// (pooled by the engine's MemoryPool), one stream, cuBLAS for the GEMMs (FP32, TF32 off, so
// results follow the CPU's; a workspace of its own so a stream capture allocates nothing),
// the kernels of cuda_kernels.cu, stream capture into CUDA Graphs, readbacks through
// page-locked memory and an event per slot, and the CUPTI collector linked in for profiled
// runs. Device assertions (a label out of range) are written by the kernels into mapped
// page-locked memory and raised after the next synchronisation. Loaded by the engine with dlopen
// (core/engine/device/device.cpp); nothing runs at load time: trainscope_cuda_backend_create() asks
// the runtime for a device and says why not ("cudaGetDeviceCount: no CUDA-capable device is
// detected", a missing driver, ...).
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>

#include "core/engine/cuda/cuda_kernels.h"
#include "core/engine/device/device_backend.h"
#include "core/profiler/cuda/cupti_collector.h"

namespace ts::engine::cuda {
namespace {

std::string cudaText(cudaError_t e) {
    return std::string(cudaGetErrorName(e)) + ": " + cudaGetErrorString(e);
}

const char* blasText(cublasStatus_t s) {
    switch (s) {
        case CUBLAS_STATUS_SUCCESS:
            return "success";
        case CUBLAS_STATUS_NOT_INITIALIZED:
            return "CUBLAS_STATUS_NOT_INITIALIZED";
        case CUBLAS_STATUS_ALLOC_FAILED:
            return "CUBLAS_STATUS_ALLOC_FAILED";
        case CUBLAS_STATUS_INVALID_VALUE:
            return "CUBLAS_STATUS_INVALID_VALUE";
        case CUBLAS_STATUS_ARCH_MISMATCH:
            return "CUBLAS_STATUS_ARCH_MISMATCH";
        case CUBLAS_STATUS_EXECUTION_FAILED:
            return "CUBLAS_STATUS_EXECUTION_FAILED";
        case CUBLAS_STATUS_INTERNAL_ERROR:
            return "CUBLAS_STATUS_INTERNAL_ERROR";
        case CUBLAS_STATUS_NOT_SUPPORTED:
            return "CUBLAS_STATUS_NOT_SUPPORTED";
        default:
            return "cuBLAS error";
    }
}

void ok(cudaError_t e, const char* what) {
    if (e != cudaSuccess)
        throw std::runtime_error(std::string("CUDA ") + what + ": " + cudaText(e));
}

void ok(cublasStatus_t s, const char* what) {
    if (s != CUBLAS_STATUS_SUCCESS)
        throw std::runtime_error(std::string("cuBLAS ") + what + ": " + blasText(s));
}

cublasOperation_t op(bool t) {
    return t ? CUBLAS_OP_T : CUBLAS_OP_N;
}

constexpr size_t kBlasWorkspace = 32u << 20;  // cuBLAS's recommendation for Hopper

class CudaBackend final : public DeviceBackend {
public:
    CudaBackend(int device, std::string name, cudaStream_t stream, cublasHandle_t blas)
        : m_device(device), m_name(std::move(name)), m_stream(stream), m_blas(blas) {
        cudaMalloc(reinterpret_cast<void**>(&m_scratch), 16);
        if (cudaMalloc(&m_blasWorkspace, kBlasWorkspace) == cudaSuccess)
            cublasSetWorkspace(m_blas, m_blasWorkspace, kBlasWorkspace);
        else
            m_blasWorkspace = nullptr;
        cudaHostAlloc(reinterpret_cast<void**>(&m_readback), kReadbackSlots * kReadbackBytes,
                      cudaHostAllocDefault);
        for (cudaEvent_t& e : m_events) cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
        cudaHostAlloc(reinterpret_cast<void**>(&m_error), sizeof(DeviceError), cudaHostAllocMapped);
        if (m_error) {
            *m_error = DeviceError{0, 0, 0};
            cudaHostGetDevicePointer(reinterpret_cast<void**>(&m_errorOnDevice), m_error, 0);
        }
    }
    ~CudaBackend() override {
        for (auto& [id, exec] : m_graphs) cudaGraphExecDestroy(exec);
        for (cudaEvent_t e : m_events) cudaEventDestroy(e);
        cudaFreeHost(m_readback);
        cudaFreeHost(m_error);
        cudaFree(m_scratch);
        cudaFree(m_blasWorkspace);
        cublasDestroy(m_blas);
        cudaStreamDestroy(m_stream);
    }

    std::string name() const override { return "cuda"; }
    std::string deviceName() const override { return m_name; }

    void* allocate(size_t bytes) override {
        void* p = nullptr;
        if (cudaMalloc(&p, bytes) != cudaSuccess) {
            (void)cudaGetLastError();  // out of memory: the pool reports a failed allocation
            return nullptr;
        }
        ++m_counters.allocations;
        return p;
    }
    void release(void* p) override {
        if (p) ++m_counters.releases;
        cudaFree(p);
    }
    void copy(void* dst, const void* src, size_t bytes, Copy kind) override {
        const cudaMemcpyKind k = kind == Copy::HostToDevice   ? cudaMemcpyHostToDevice
                                 : kind == Copy::DeviceToHost ? cudaMemcpyDeviceToHost
                                                              : cudaMemcpyDeviceToDevice;
        if (kind != Copy::DeviceToDevice) hostWait("a copy between host and device");
        enqueue(cudaMemcpyAsync(dst, src, bytes, k, m_stream), "copy");
        if (kind != Copy::DeviceToDevice) synchronize("copy");
    }
    void zero(void* dst, size_t bytes) override {
        enqueue(cudaMemsetAsync(dst, 0, bytes, m_stream), "memset");
    }
    void fill(float* dst, float value, int64_t n) override {
        enqueue(cuda::fill(dst, value, n, m_stream), "fill");
    }
    void copy2d(float* dst, int64_t dstPitch, const float* src, int64_t srcPitch, int64_t rows,
                int64_t cols) override {
        constexpr size_t f = sizeof(float);
        enqueue(cudaMemcpy2DAsync(dst, static_cast<size_t>(dstPitch) * f, src,
                                  static_cast<size_t>(srcPitch) * f, static_cast<size_t>(cols) * f,
                                  static_cast<size_t>(rows), cudaMemcpyDeviceToDevice, m_stream),
                "copy (2-D)");
    }
    void check(const char* what) override {
        hostWait(what);
        synchronize(what);
    }

    void sgemm(bool tA, bool tB, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
               int64_t lda, const float* B, int64_t ldb, float beta, float* C,
               int64_t ldc) override {
        // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T.
        ++m_counters.enqueued;
        ok(cublasSgemm(m_blas, op(tB), op(tA), static_cast<int>(N), static_cast<int>(M),
                       static_cast<int>(K), &alpha, B, static_cast<int>(ldb), A,
                       static_cast<int>(lda), &beta, C, static_cast<int>(ldc)),
           "sgemm");
    }
    void sgemmStrided(bool tA, bool tB, int64_t M, int64_t N, int64_t K, float alpha,
                      const float* A, int64_t lda, int64_t sA, const float* B, int64_t ldb,
                      int64_t sB, float beta, float* C, int64_t ldc, int64_t sC,
                      int64_t batch) override {
        ++m_counters.enqueued;
        ok(cublasSgemmStridedBatched(m_blas, op(tB), op(tA), static_cast<int>(N),
                                     static_cast<int>(M), static_cast<int>(K), &alpha, B,
                                     static_cast<int>(ldb), sB, A, static_cast<int>(lda), sA, &beta,
                                     C, static_cast<int>(ldc), sC, static_cast<int>(batch)),
           "sgemm (batched)");
    }

    void unary(Unary o, const float* x, float* y, int64_t n, float alpha) override {
        enqueue(cuda::unary(o, x, y, n, alpha, m_stream), "unary kernel");
    }
    void binary(Binary o, const float* a, const float* b, float* y, int64_t n) override {
        enqueue(cuda::binary(o, a, b, y, n, m_stream), "binary kernel");
    }
    void divGradB(const float* g, const float* a, const float* b, float* y, int64_t n) override {
        enqueue(cuda::divGradB(g, a, b, y, n, m_stream), "RealDivGrad kernel");
    }
    void biasAdd(const float* x, const float* b, float* y, int64_t N, int64_t C,
                 int64_t inner) override {
        enqueue(cuda::biasAdd(x, b, y, N, C, inner, m_stream), "BiasAdd kernel");
    }
    void biasGrad(const float* g, float* db, int64_t N, int64_t C, int64_t inner) override {
        enqueue(cuda::biasGrad(g, db, N, C, inner, m_stream), "BiasAddGrad kernel");
    }
    void logSoftmax(const float* x, float* y, int64_t rows, int64_t cols) override {
        enqueue(cuda::logSoftmax(x, y, rows, cols, m_stream), "LogSoftmax kernel");
    }
    void softmaxGrad(const float* g, const float* y, float* dx, int64_t rows,
                     int64_t cols) override {
        enqueue(cuda::softmaxGrad(g, y, dx, rows, cols, m_stream), "SoftmaxGrad kernel");
    }
    void logSoftmaxGrad(const float* g, const float* y, float* dx, int64_t rows,
                        int64_t cols) override {
        enqueue(cuda::logSoftmaxGrad(g, y, dx, rows, cols, m_stream), "LogSoftmaxGrad kernel");
    }
    void crossEntropy(const float* x, const int32_t* labels, float* logp, float* loss, int64_t rows,
                      int64_t cols) override {
        enqueue(cuda::crossEntropy(x, labels, logp, loss, rows, cols, m_errorOnDevice, m_stream),
                "cross-entropy kernel");
    }
    void crossEntropyGrad(const float* g, const float* logp, const int32_t* labels, float* dx,
                          int64_t rows, int64_t cols) override {
        enqueue(cuda::crossEntropyGrad(g, logp, labels, dx, rows, cols, m_stream),
                "cross-entropy gradient kernel");
    }
    void mse(const float* a, const float* b, float* loss, int64_t n) override {
        enqueue(cuda::mse(a, b, loss, n, m_stream), "MSELoss kernel");
    }
    void mseGrad(const float* g, const float* a, const float* b, float* dx, int64_t n) override {
        enqueue(cuda::mseGrad(g, a, b, dx, n, m_stream), "MSELossGrad kernel");
    }
    void im2col(const float* x, float* cols, const ConvShape& g) override {
        enqueue(cuda::im2col(x, cols, g, m_stream), "im2col kernel");
    }
    void col2im(const float* cols, float* dx, const ConvShape& g) override {
        enqueue(cuda::col2im(cols, dx, g, m_stream), "col2im kernel");
    }
    void im2colT(const float* x, float* cols, const ConvShape& g) override {
        enqueue(cuda::im2colT(x, cols, g, m_stream), "im2col (channel-major) kernel");
    }
    void depthwise(const float* x, const float* w, const float* bias, float* y,
                   const ConvShape& g) override {
        enqueue(cuda::depthwise(x, w, bias, y, g, m_stream), "DepthwiseConv2dNative kernel");
    }
    void depthwiseInput(const float* dy, const float* w, float* dx, const ConvShape& g) override {
        enqueue(cuda::depthwiseInput(dy, w, dx, g, m_stream),
                "DepthwiseConv2dNativeBackpropInput kernel");
    }
    void depthwiseFilter(const float* dy, const float* x, float* dw, double* work,
                         const ConvShape& g) override {
        enqueue(cuda::depthwiseFilter(dy, x, dw, work, g, m_stream),
                "DepthwiseConv2dNativeBackpropFilter kernels");
    }
    void maxPool(const float* x, float* y, int32_t* arg, const PoolShape& g) override {
        enqueue(cuda::maxPool(x, y, arg, g, m_stream), "MaxPool kernel");
    }
    void maxPoolGrad(const float* g, const int32_t* arg, float* dx, const PoolShape& s) override {
        enqueue(cuda::maxPoolGrad(g, arg, dx, s, m_stream), "MaxPoolGrad kernel");
    }
    void avgPool(const float* x, float* y, const PoolShape& g) override {
        enqueue(cuda::avgPool(x, y, g, m_stream), "AvgPool kernel");
    }
    void avgPoolGrad(const float* g, float* dx, const PoolShape& s) override {
        enqueue(cuda::avgPoolGrad(g, dx, s, m_stream), "AvgPoolGrad kernel");
    }
    void globalAvgPool(const float* x, float* y, int64_t planes, int64_t HW) override {
        enqueue(cuda::globalAvgPool(x, y, planes, HW, m_stream), "GlobalAvgPool kernel");
    }
    void globalAvgPoolGrad(const float* g, float* dx, int64_t planes, int64_t HW) override {
        enqueue(cuda::globalAvgPoolGrad(g, dx, planes, HW, m_stream), "GlobalAvgPoolGrad kernel");
    }
    void batchNorm(const float* x, const float* gamma, const float* beta, float* runMean,
                   float* runVar, float* y, float* mean, float* invstd, double* work,
                   const BatchNormArgs& a) override {
        enqueue(
            cuda::batchNorm(x, gamma, beta, runMean, runVar, y, mean, invstd, work, a, m_stream),
            "BatchNorm kernels");
    }
    void batchNormGrad(const float* g, const float* x, const float* gamma, const float* mean,
                       const float* invstd, float* dx, float* dgamma, float* dbeta, double* work,
                       const BatchNormArgs& a) override {
        enqueue(
            cuda::batchNormGrad(g, x, gamma, mean, invstd, dx, dgamma, dbeta, work, a, m_stream),
            "BatchNormGrad kernels");
    }
    void broadcastAdd(const float* a, const float* b, float* y, int64_t n,
                      const BroadcastShape& s) override {
        enqueue(cuda::broadcastAdd(a, b, y, n, s, m_stream), "Add (broadcast) kernel");
    }
    void reduceSumTo(const float* g, float* dst, int64_t n, const ReduceShape& s) override {
        enqueue(cuda::reduceSumTo(g, dst, n, s, m_stream), "ReduceSum kernel");
    }
    void permute(const float* x, float* y, int64_t n, const PermuteShape& s) override {
        enqueue(cuda::permute(x, y, n, s, m_stream), "Transpose kernel");
    }
    void pad2d(const float* x, float* y, const PadShape& s) override {
        enqueue(cuda::pad2d(x, y, s, m_stream), "Pad kernel");
    }
    void pad2dGrad(const float* g, float* dx, const PadShape& s) override {
        enqueue(cuda::pad2dGrad(g, dx, s, m_stream), "PadGrad kernel");
    }
    void gatherRows(const void* src, const int32_t* order, int64_t first, int64_t rows,
                    int64_t words, void* dst) override {
        enqueue(cuda::gatherRows(static_cast<const uint32_t*>(src), order, first, rows, words,
                                 static_cast<uint32_t*>(dst), m_stream),
                "batch gather kernel");
    }
    void sgd(float* w, const float* g, float* v, int64_t n, const SgdArgs& a) override {
        enqueue(cuda::sgd(w, g, v, n, a, m_stream), "ApplyMomentum kernel");
    }
    void adam(float* w, const float* g, float* m, float* v, int64_t n, const AdamArgs& a) override {
        enqueue(cuda::adam(w, g, m, v, n, a, m_stream), "Adam kernel");
    }
    void sgdChunk(const TensorChunk& c, const SgdArgs& a) override {
        enqueue(cuda::sgdChunk(c, a, m_stream), "ApplyMomentum (multi-tensor) kernel");
    }
    void adamChunk(const TensorChunk& c, const AdamArgs& a) override {
        enqueue(cuda::adamChunk(c, a, m_stream), "Adam (multi-tensor) kernel");
    }
    double sumSquares(const float* x, int64_t n) override {
        hostWait("a sum of squares read by the host");
        double out = 0;
        enqueue(cudaMemsetAsync(m_scratch, 0, sizeof out, m_stream), "memset");
        enqueue(cuda::sumSquares(x, n, reinterpret_cast<double*>(m_scratch), m_stream),
                "sum-of-squares kernel");
        ok(cudaMemcpyAsync(&out, m_scratch, sizeof out, cudaMemcpyDeviceToHost, m_stream), "copy");
        synchronize("sum of squares");
        return out;
    }
    int64_t countNonFinite(const float* x, int64_t n) override {
        hostWait("a NaN/Inf count read by the host");
        unsigned long long out = 0;
        enqueue(cudaMemsetAsync(m_scratch, 0, sizeof out, m_stream), "memset");
        enqueue(
            cuda::countNonFinite(x, n, reinterpret_cast<unsigned long long*>(m_scratch), m_stream),
            "NaN/Inf count kernel");
        ok(cudaMemcpyAsync(&out, m_scratch, sizeof out, cudaMemcpyDeviceToHost, m_stream), "copy");
        synchronize("NaN/Inf count");
        return static_cast<int64_t>(out);
    }

    void readbackAsync(int slot, const void* src, size_t bytes) override {
        if (slot < 0 || slot >= kReadbackSlots || bytes > kReadbackBytes || !m_readback)
            throw std::logic_error("readbackAsync: slot or size out of range");
        if (m_capturing) captureFails("a readback");  // its event belongs outside the graph
        enqueue(cudaMemcpyAsync(m_readback + slot * kReadbackBytes, src, bytes,
                                cudaMemcpyDeviceToHost, m_stream),
                "readback copy");
        ok(cudaEventRecord(m_events[slot], m_stream), "readback event");
    }
    void readbackWait(int slot, void* dst, size_t bytes) override {
        if (m_capturing) captureFails("waiting for a readback");
        ++m_counters.readbacks;
        ok(cudaEventSynchronize(m_events[slot]), "readback");
        raiseDeviceError();
        std::memcpy(dst, m_readback + slot * kReadbackBytes, bytes);
    }

    void beginCapture() override {
        if (m_capturing) throw std::logic_error("beginCapture: already recording");
        // Relaxed: the engine's pool may still cudaMalloc a block while recording.
        ok(cudaStreamBeginCapture(m_stream, cudaStreamCaptureModeRelaxed), "stream capture");
        m_capturing = true;
        m_captureError.clear();
    }
    int64_t endCapture() override {
        m_capturing = false;
        cudaGraph_t graph = nullptr;
        const cudaError_t e = cudaStreamEndCapture(m_stream, &graph);
        std::string why = m_captureError;
        if (why.empty() && e != cudaSuccess) why = cudaText(e);
        if (why.empty() && !graph) why = "no graph was recorded";
        cudaGraphExec_t exec = nullptr;
        if (why.empty())
            if (const cudaError_t i = cudaGraphInstantiate(&exec, graph, 0); i != cudaSuccess)
                why = "cudaGraphInstantiate: " + cudaText(i);
        if (graph) cudaGraphDestroy(graph);
        (void)cudaGetLastError();  // a failed capture leaves its error behind
        if (!why.empty()) throw std::runtime_error("stream capture failed: " + why);
        const int64_t id = ++m_lastGraph;
        m_graphs[id] = exec;
        return id;
    }
    void launchGraph(int64_t graph) override {
        auto it = m_graphs.find(graph);
        if (it == m_graphs.end()) throw std::logic_error("launchGraph: no such graph");
        ++m_counters.graphLaunches;
        enqueue(cudaGraphLaunch(it->second, m_stream), "graph launch");
    }
    void destroyGraph(int64_t graph) override {
        auto it = m_graphs.find(graph);
        if (it == m_graphs.end()) return;
        cudaGraphExecDestroy(it->second);
        m_graphs.erase(it);
    }

    DeviceCounters counters() const override { return m_counters; }

    bool startActivity(const std::string& path, std::string* error) override {
        char why[512] = {};
        if (trainscope_cupti_start(path.c_str(), why, sizeof why) == 0) return true;
        if (error) *error = why;
        return false;
    }
    bool stopActivity(std::string* error) override {
        (void)cudaStreamSynchronize(m_stream);  // the kernels finish before the flush
        char why[512] = {};
        if (trainscope_cupti_stop(why, sizeof why) == 0) return true;
        if (error) *error = why;
        return false;
    }

private:
    /// Work put on the stream (or recorded into the graph being captured).
    void enqueue(cudaError_t e, const char* what) {
        ++m_counters.enqueued;
        ok(e, what);
    }
    /// The host is about to wait for the stream: impossible while recording a graph.
    void hostWait(const char* what) {
        if (m_capturing) captureFails(what);
        ++m_counters.hostWaits;
    }
    [[noreturn]] void captureFails(const char* what) {
        if (m_captureError.empty())
            m_captureError = std::string(what) + " is not permitted while recording a graph";
        throw std::runtime_error("CUDA: " + m_captureError);
    }
    void synchronize(const char* what) {
        ok(cudaStreamSynchronize(m_stream), what);
        raiseDeviceError();
    }
    /// A device assertion a kernel wrote since the last synchronisation.
    void raiseDeviceError() {
        if (!m_error || m_error->code == 0) return;
        const DeviceError e = *m_error;
        m_error->code = 0;
        throw std::invalid_argument("SparseSoftmaxCrossEntropyWithLogits: label " +
                                    std::to_string(e.value) + " out of range [0, " +
                                    std::to_string(e.limit) + ")");
    }

    int m_device;
    std::string m_name;
    cudaStream_t m_stream;
    cublasHandle_t m_blas;
    unsigned char* m_scratch = nullptr;  // 16 bytes for the reductions' results
    void* m_blasWorkspace = nullptr;
    unsigned char* m_readback = nullptr;  // kReadbackSlots x kReadbackBytes, page-locked
    cudaEvent_t m_events[kReadbackSlots] = {};
    DeviceError* m_error = nullptr;          // mapped page-locked memory (host view)
    DeviceError* m_errorOnDevice = nullptr;  // the same, as the kernels address it
    DeviceCounters m_counters;
    bool m_capturing = false;
    std::string m_captureError;
    std::map<int64_t, cudaGraphExec_t> m_graphs;
    int64_t m_lastGraph = 0;
};

void copyError(const std::string& what, char* error, size_t size) {
    if (!error || size == 0) return;
    const size_t n = std::min(size - 1, what.size());
    std::memcpy(error, what.data(), n);
    error[n] = '\0';
}

}  // namespace
}  // namespace ts::engine::cuda

/// The engine asks for its CUDA backend here (core/engine/device/device.cpp): nullptr and `error`
/// when the runtime finds no usable device. TRAINSCOPE_CUDA_DEVICE picks one (default 0).
extern "C" __attribute__((visibility("default"))) ts::engine::DeviceBackend*
trainscope_cuda_backend_create(char* error, size_t size) {
    using namespace ts::engine::cuda;
    int count = 0;
    if (const cudaError_t e = cudaGetDeviceCount(&count); e != cudaSuccess) {
        copyError("cudaGetDeviceCount: " + cudaText(e), error, size);
        return nullptr;
    }
    if (count == 0) {
        copyError("the CUDA runtime sees no device", error, size);
        return nullptr;
    }
    int device = 0;
    if (const char* d = std::getenv("TRAINSCOPE_CUDA_DEVICE"); d && *d) device = std::atoi(d);
    if (device < 0 || device >= count) {
        copyError("TRAINSCOPE_CUDA_DEVICE=" + std::to_string(device) + ": there are " +
                      std::to_string(count) + " devices",
                  error, size);
        return nullptr;
    }
    cudaDeviceProp p{};
    if (const cudaError_t e = cudaSetDevice(device); e != cudaSuccess) {
        copyError("cudaSetDevice: " + cudaText(e), error, size);
        return nullptr;
    }
    if (const cudaError_t e = cudaGetDeviceProperties(&p, device); e != cudaSuccess) {
        copyError("cudaGetDeviceProperties: " + cudaText(e), error, size);
        return nullptr;
    }
    if (p.major < 8) {  // the kernels are built for sm_80 and sm_90 only
        copyError(std::string(p.name) + " has compute capability " + std::to_string(p.major) + "." +
                      std::to_string(p.minor) +
                      "; this build's kernels need 8.0 or newer (CUDA_ARCHITECTURES 80;90)",
                  error, size);
        return nullptr;
    }
    cudaStream_t stream = nullptr;
    if (const cudaError_t e = cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking);
        e != cudaSuccess) {
        copyError("cudaStreamCreate: " + cudaText(e), error, size);
        return nullptr;
    }
    cublasHandle_t blas = nullptr;
    if (const cublasStatus_t s = cublasCreate(&blas); s != CUBLAS_STATUS_SUCCESS) {
        copyError(std::string("cublasCreate: ") + blasText(s), error, size);
        cudaStreamDestroy(stream);
        return nullptr;
    }
    cublasSetStream(blas, stream);
    cublasSetMathMode(blas, CUBLAS_PEDANTIC_MATH);  // FP32 as written: no TF32
    const std::string name = std::string(p.name) + " (device " + std::to_string(device) +
                             ", compute " + std::to_string(p.major) + "." +
                             std::to_string(p.minor) + ", " +
                             std::to_string(p.totalGlobalMem >> 30) + " GiB)";
    return new CudaBackend(device, name, stream, blas);
}
