// The CPU emulation of a device backend: host memory, and every kernel a loop over the same
// element functions the CUDA kernels run (device_kernels.h); GEMMs are OpenBLAS. It serves
// Device::CUDA in the tests and with TRAINSCOPE_DEVICE_EMULATION=1, so the device path of the
// ops, the trainer, the observers and the profiler runs on a machine without a GPU. Kernels
// are serial: it checks what runs, not how fast.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>

#include "core/engine/device/device.h"
#include "core/engine/tensor/parallel.h"

namespace ts::engine {
namespace {

using namespace kernels;

class EmulatedBackend final : public DeviceBackend {
public:
    std::string name() const override { return "cuda (emulated on the CPU)"; }
    std::string deviceName() const override {
        return "emulated device (host memory, TRAINSCOPE_DEVICE_EMULATION)";
    }

    void* allocate(size_t bytes) override {
        void* p = std::aligned_alloc(64, (std::max<size_t>(bytes, 1) + 63) & ~size_t(63));
        std::lock_guard lock(m_mutex);
        if (p) m_live.insert(p);
        return p;
    }
    void release(void* p) override {
        {
            std::lock_guard lock(m_mutex);
            if (p && !m_live.erase(p))
                throw std::logic_error("emulated device: release of a block it did not allocate");
        }
        std::free(p);
    }
    void copy(void* dst, const void* src, size_t bytes, Copy) override {
        if (bytes) std::memcpy(dst, src, bytes);
    }
    void zero(void* dst, size_t bytes) override {
        if (bytes) std::memset(dst, 0, bytes);
    }
    void fill(float* dst, float value, int64_t n) override {
        for (int64_t i = 0; i < n; ++i) dst[i] = value;
    }
    void check(const char*) override {}

    void sgemm(bool tA, bool tB, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
               int64_t lda, const float* B, int64_t ldb, float beta, float* C,
               int64_t ldc) override {
        engine::sgemm(tA, tB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
    }
    void sgemmStrided(bool tA, bool tB, int64_t M, int64_t N, int64_t K, float alpha,
                      const float* A, int64_t lda, int64_t sA, const float* B, int64_t ldb,
                      int64_t sB, float beta, float* C, int64_t ldc, int64_t sC,
                      int64_t batch) override {
        for (int64_t i = 0; i < batch; ++i)
            engine::sgemm(tA, tB, M, N, K, alpha, A + i * sA, lda, B + i * sB, ldb, beta,
                          C + i * sC, ldc);
    }

    void unary(Unary op, const float* x, float* y, int64_t n, float alpha) override {
        for (int64_t i = 0; i < n; ++i) y[i] = unaryAt(op, x[i], alpha);
    }
    void binary(Binary op, const float* a, const float* b, float* y, int64_t n) override {
        for (int64_t i = 0; i < n; ++i) y[i] = binaryAt(op, a[i], b[i]);
    }
    void divGradB(const float* g, const float* a, const float* b, float* y, int64_t n) override {
        for (int64_t i = 0; i < n; ++i) y[i] = divGradBAt(g[i], a[i], b[i]);
    }
    void biasAdd(const float* x, const float* b, float* y, int64_t N, int64_t C,
                 int64_t inner) override {
        for (int64_t i = 0, n = N * C * inner; i < n; ++i) y[i] = biasAddAt(x, b, i, C, inner);
    }
    void biasGrad(const float* g, float* db, int64_t N, int64_t C, int64_t inner) override {
        for (int64_t c = 0; c < C; ++c) db[c] = biasGradChannel(g, c, N, C, inner);
    }

    void logSoftmax(const float* x, float* y, int64_t rows, int64_t cols) override {
        for (int64_t r = 0; r < rows; ++r) logSoftmaxRow(x, y, r, cols);
    }
    void softmaxGrad(const float* g, const float* y, float* dx, int64_t rows,
                     int64_t cols) override {
        for (int64_t r = 0; r < rows; ++r) softmaxGradRow(g, y, dx, r, cols);
    }
    void logSoftmaxGrad(const float* g, const float* y, float* dx, int64_t rows,
                        int64_t cols) override {
        for (int64_t r = 0; r < rows; ++r) logSoftmaxGradRow(g, y, dx, r, cols);
    }
    void crossEntropy(const float* logp, const int32_t* labels, float* loss, int64_t rows,
                      int64_t cols) override {
        loss[0] = crossEntropyLoss(logp, labels, rows, cols);
    }
    void crossEntropyGrad(const float* g, const float* logp, const int32_t* labels, float* dx,
                          int64_t rows, int64_t cols) override {
        for (int64_t i = 0; i < rows * cols; ++i)
            dx[i] = crossEntropyGradAt(g, logp, labels, i, rows, cols);
    }
    void mse(const float* a, const float* b, float* loss, int64_t n) override {
        loss[0] = mseLoss(a, b, n);
    }
    void mseGrad(const float* g, const float* a, const float* b, float* dx, int64_t n) override {
        for (int64_t i = 0; i < n; ++i) dx[i] = mseGradAt(g, a, b, i, n);
    }

    void im2col(const float* x, float* cols, const ConvShape& g) override {
        for (int64_t i = 0, n = g.N * g.ckk() * g.ohw(); i < n; ++i) cols[i] = im2colAt(x, i, g);
    }
    void col2im(const float* cols, float* dx, const ConvShape& g) override {
        for (int64_t i = 0, n = g.N * g.chw(); i < n; ++i) dx[i] = col2imAt(cols, i, g);
    }
    void maxPool(const float* x, float* y, int32_t* arg, const PoolShape& g) override {
        for (int64_t i = 0, n = g.N * g.C * g.OH * g.OW; i < n; ++i)
            y[i] = maxPoolAt(x, i, g, arg + i);
    }
    void maxPoolGrad(const float* g, const int32_t* arg, float* dx, const PoolShape& s) override {
        for (int64_t nc = 0; nc < s.N * s.C; ++nc) maxPoolGradPlane(g, arg, dx, nc, s);
    }
    void avgPool(const float* x, float* y, const PoolShape& g) override {
        for (int64_t i = 0, n = g.N * g.C * g.OH * g.OW; i < n; ++i) y[i] = avgPoolAt(x, i, g);
    }
    void avgPoolGrad(const float* g, float* dx, const PoolShape& s) override {
        for (int64_t nc = 0; nc < s.N * s.C; ++nc) avgPoolGradPlane(g, dx, nc, s);
    }
    void batchNorm(const float* x, const float* gamma, const float* beta, float* runMean,
                   float* runVar, float* y, float* mean, float* invstd,
                   const BatchNormArgs& a) override {
        for (int64_t c = 0; c < a.C; ++c)
            batchNormChannel(x, gamma, beta, runMean, runVar, y, mean, invstd, c, a);
    }
    void batchNormGrad(const float* g, const float* x, const float* gamma, const float* mean,
                       const float* invstd, float* dx, float* dgamma, float* dbeta,
                       const BatchNormArgs& a) override {
        for (int64_t c = 0; c < a.C; ++c)
            batchNormGradChannel(g, x, gamma, mean, invstd, dx, dgamma, dbeta, c, a);
    }

    void sgd(float* w, const float* g, float* v, int64_t n, const SgdArgs& a) override {
        for (int64_t k = 0; k < n; ++k) sgdAt(w, g, v, k, a);
    }
    void adam(float* w, const float* g, float* m, float* v, int64_t n, const AdamArgs& a) override {
        for (int64_t k = 0; k < n; ++k) adamAt(w, g, m, v, k, a);
    }
    double sumSquares(const float* x, int64_t n) override {
        double s = 0;
        for (int64_t i = 0; i < n; ++i) s += static_cast<double>(x[i]) * x[i];
        return s;
    }
    int64_t countNonFinite(const float* x, int64_t n) override {
        int64_t bad = 0;
        for (int64_t i = 0; i < n; ++i) bad += std::isfinite(x[i]) ? 0 : 1;
        return bad;
    }

    bool startActivity(const std::string&, std::string* error) override {
        if (error) *error = "the emulated device has no CUDA activity to record";
        return false;
    }
    bool stopActivity(std::string* error) override {
        if (error) *error = "the emulated device has no CUDA activity to record";
        return false;
    }

private:
    std::mutex m_mutex;
    std::set<void*> m_live;  // catches a block freed twice or freed by the wrong pool
};

}  // namespace

std::unique_ptr<DeviceBackend> makeEmulatedBackend() {
    return std::make_unique<EmulatedBackend>();
}

}  // namespace ts::engine
