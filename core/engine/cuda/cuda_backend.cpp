// libtrainscope_cuda.so: the engine's DeviceBackend on one NVIDIA GPU — cudaMalloc'd memory
// (pooled by the engine's MemoryPool), one stream, cuBLAS for the GEMMs (FP32, TF32 off, so
// results follow the CPU's), the kernels of cuda_kernels.cu, and the CUPTI collector linked
// in for profiled runs. Loaded by the engine with dlopen (core/engine/device/device.cpp); nothing
// runs at load time: trainscope_cuda_backend_create() asks the runtime for a device and says
// why not ("cudaGetDeviceCount: no CUDA-capable device is detected", a missing driver, ...).
#include <cublas_v2.h>
#include <cuda_runtime_api.h>

#include <cstdlib>
#include <cstring>
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

class CudaBackend final : public DeviceBackend {
public:
    CudaBackend(int device, std::string name, cudaStream_t stream, cublasHandle_t blas)
        : m_device(device), m_name(std::move(name)), m_stream(stream), m_blas(blas) {
        cudaMalloc(reinterpret_cast<void**>(&m_scratch), 16);
    }
    ~CudaBackend() override {
        cudaFree(m_scratch);
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
        return p;
    }
    void release(void* p) override { cudaFree(p); }
    void copy(void* dst, const void* src, size_t bytes, Copy kind) override {
        const cudaMemcpyKind k = kind == Copy::HostToDevice   ? cudaMemcpyHostToDevice
                                 : kind == Copy::DeviceToHost ? cudaMemcpyDeviceToHost
                                                              : cudaMemcpyDeviceToDevice;
        ok(cudaMemcpyAsync(dst, src, bytes, k, m_stream), "copy");
        if (kind != Copy::DeviceToDevice) ok(cudaStreamSynchronize(m_stream), "copy");
    }
    void zero(void* dst, size_t bytes) override {
        ok(cudaMemsetAsync(dst, 0, bytes, m_stream), "memset");
    }
    void fill(float* dst, float value, int64_t n) override {
        ok(cuda::fill(dst, value, n, m_stream), "fill");
    }
    void check(const char* what) override { ok(cudaStreamSynchronize(m_stream), what); }

    void sgemm(bool tA, bool tB, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
               int64_t lda, const float* B, int64_t ldb, float beta, float* C,
               int64_t ldc) override {
        // Row-major C = op(A) op(B) is column-major C^T = op(B)^T op(A)^T.
        ok(cublasSgemm(m_blas, op(tB), op(tA), static_cast<int>(N), static_cast<int>(M),
                       static_cast<int>(K), &alpha, B, static_cast<int>(ldb), A,
                       static_cast<int>(lda), &beta, C, static_cast<int>(ldc)),
           "sgemm");
    }
    void sgemmStrided(bool tA, bool tB, int64_t M, int64_t N, int64_t K, float alpha,
                      const float* A, int64_t lda, int64_t sA, const float* B, int64_t ldb,
                      int64_t sB, float beta, float* C, int64_t ldc, int64_t sC,
                      int64_t batch) override {
        ok(cublasSgemmStridedBatched(m_blas, op(tB), op(tA), static_cast<int>(N),
                                     static_cast<int>(M), static_cast<int>(K), &alpha, B,
                                     static_cast<int>(ldb), sB, A, static_cast<int>(lda), sA, &beta,
                                     C, static_cast<int>(ldc), sC, static_cast<int>(batch)),
           "sgemm (batched)");
    }

    void unary(Unary o, const float* x, float* y, int64_t n, float alpha) override {
        ok(cuda::unary(o, x, y, n, alpha, m_stream), "unary kernel");
    }
    void binary(Binary o, const float* a, const float* b, float* y, int64_t n) override {
        ok(cuda::binary(o, a, b, y, n, m_stream), "binary kernel");
    }
    void divGradB(const float* g, const float* a, const float* b, float* y, int64_t n) override {
        ok(cuda::divGradB(g, a, b, y, n, m_stream), "RealDivGrad kernel");
    }
    void biasAdd(const float* x, const float* b, float* y, int64_t N, int64_t C,
                 int64_t inner) override {
        ok(cuda::biasAdd(x, b, y, N, C, inner, m_stream), "BiasAdd kernel");
    }
    void biasGrad(const float* g, float* db, int64_t N, int64_t C, int64_t inner) override {
        ok(cuda::biasGrad(g, db, N, C, inner, m_stream), "BiasAddGrad kernel");
    }
    void logSoftmax(const float* x, float* y, int64_t rows, int64_t cols) override {
        ok(cuda::logSoftmax(x, y, rows, cols, m_stream), "LogSoftmax kernel");
    }
    void softmaxGrad(const float* g, const float* y, float* dx, int64_t rows,
                     int64_t cols) override {
        ok(cuda::softmaxGrad(g, y, dx, rows, cols, m_stream), "SoftmaxGrad kernel");
    }
    void logSoftmaxGrad(const float* g, const float* y, float* dx, int64_t rows,
                        int64_t cols) override {
        ok(cuda::logSoftmaxGrad(g, y, dx, rows, cols, m_stream), "LogSoftmaxGrad kernel");
    }
    void crossEntropy(const float* logp, const int32_t* labels, float* loss, int64_t rows,
                      int64_t cols) override {
        ok(cuda::crossEntropy(logp, labels, loss, rows, cols, m_stream), "cross-entropy kernel");
    }
    void crossEntropyGrad(const float* g, const float* logp, const int32_t* labels, float* dx,
                          int64_t rows, int64_t cols) override {
        ok(cuda::crossEntropyGrad(g, logp, labels, dx, rows, cols, m_stream),
           "cross-entropy gradient kernel");
    }
    void mse(const float* a, const float* b, float* loss, int64_t n) override {
        ok(cuda::mse(a, b, loss, n, m_stream), "MSELoss kernel");
    }
    void mseGrad(const float* g, const float* a, const float* b, float* dx, int64_t n) override {
        ok(cuda::mseGrad(g, a, b, dx, n, m_stream), "MSELossGrad kernel");
    }
    void im2col(const float* x, float* cols, const ConvShape& g) override {
        ok(cuda::im2col(x, cols, g, m_stream), "im2col kernel");
    }
    void col2im(const float* cols, float* dx, const ConvShape& g) override {
        ok(cuda::col2im(cols, dx, g, m_stream), "col2im kernel");
    }
    void maxPool(const float* x, float* y, int32_t* arg, const PoolShape& g) override {
        ok(cuda::maxPool(x, y, arg, g, m_stream), "MaxPool kernel");
    }
    void maxPoolGrad(const float* g, const int32_t* arg, float* dx, const PoolShape& s) override {
        ok(cuda::maxPoolGrad(g, arg, dx, s, m_stream), "MaxPoolGrad kernel");
    }
    void avgPool(const float* x, float* y, const PoolShape& g) override {
        ok(cuda::avgPool(x, y, g, m_stream), "AvgPool kernel");
    }
    void avgPoolGrad(const float* g, float* dx, const PoolShape& s) override {
        ok(cuda::avgPoolGrad(g, dx, s, m_stream), "AvgPoolGrad kernel");
    }
    void batchNorm(const float* x, const float* gamma, const float* beta, float* runMean,
                   float* runVar, float* y, float* mean, float* invstd,
                   const BatchNormArgs& a) override {
        ok(cuda::batchNorm(x, gamma, beta, runMean, runVar, y, mean, invstd, a, m_stream),
           "BatchNorm kernel");
    }
    void batchNormGrad(const float* g, const float* x, const float* gamma, const float* mean,
                       const float* invstd, float* dx, float* dgamma, float* dbeta,
                       const BatchNormArgs& a) override {
        ok(cuda::batchNormGrad(g, x, gamma, mean, invstd, dx, dgamma, dbeta, a, m_stream),
           "BatchNormGrad kernel");
    }
    void sgd(float* w, const float* g, float* v, int64_t n, const SgdArgs& a) override {
        ok(cuda::sgd(w, g, v, n, a, m_stream), "ApplyMomentum kernel");
    }
    void adam(float* w, const float* g, float* m, float* v, int64_t n, const AdamArgs& a) override {
        ok(cuda::adam(w, g, m, v, n, a, m_stream), "Adam kernel");
    }
    double sumSquares(const float* x, int64_t n) override {
        double out = 0;
        ok(cudaMemsetAsync(m_scratch, 0, sizeof out, m_stream), "memset");
        ok(cuda::sumSquares(x, n, reinterpret_cast<double*>(m_scratch), m_stream),
           "sum-of-squares kernel");
        copy(&out, m_scratch, sizeof out, Copy::DeviceToHost);
        return out;
    }
    int64_t countNonFinite(const float* x, int64_t n) override {
        unsigned long long out = 0;
        ok(cudaMemsetAsync(m_scratch, 0, sizeof out, m_stream), "memset");
        ok(cuda::countNonFinite(x, n, reinterpret_cast<unsigned long long*>(m_scratch), m_stream),
           "NaN/Inf count kernel");
        copy(&out, m_scratch, sizeof out, Copy::DeviceToHost);
        return static_cast<int64_t>(out);
    }

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
    int m_device;
    std::string m_name;
    cudaStream_t m_stream;
    cublasHandle_t m_blas;
    unsigned char* m_scratch = nullptr;  // 16 bytes for the reductions' results
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
