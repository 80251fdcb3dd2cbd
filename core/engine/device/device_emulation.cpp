// The CPU emulation of a device backend: host memory, and every kernel a loop over the same
// element functions the CUDA kernels run (device_kernels.h); GEMMs are OpenBLAS. It serves
// Device::CUDA in the tests and with TRAINSCOPE_DEVICE_EMULATION=1, so the device path of the
// ops, the trainer, the observers and the profiler runs on a machine without a GPU. Kernels
// are serial: it checks what runs, not how fast.
//
// It behaves as the CUDA backend's stream does where a test can see it: each call that puts
// work on the stream goes through submit() and counts as the CUDA backend counts it
// (DeviceCounters); while a graph is being recorded that work is kept, not run, and a call
// that would make the host wait fails the recording; a launched graph runs what it kept; a
// label out of range is raised at the next synchronisation, as a device assertion is.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <stdexcept>
#include <vector>

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
        if (p) {
            m_live.insert(p);
            ++m_counters.allocations;
        }
        return p;
    }
    void release(void* p) override {
        {
            std::lock_guard lock(m_mutex);
            if (p && !m_live.erase(p))
                throw std::logic_error("emulated device: release of a block it did not allocate");
            if (p) ++m_counters.releases;
        }
        std::free(p);
    }
    void copy(void* dst, const void* src, size_t bytes, Copy kind) override {
        if (kind == Copy::DeviceToDevice) {
            submit([=] {
                if (bytes) std::memcpy(dst, src, bytes);
            });
            return;
        }
        hostWait(kind == Copy::HostToDevice ? "copy to the device" : "copy to the host");
        if (bytes) std::memcpy(dst, src, bytes);
    }
    void zero(void* dst, size_t bytes) override {
        submit([=] {
            if (bytes) std::memset(dst, 0, bytes);
        });
    }
    void fill(float* dst, float value, int64_t n) override {
        submit([=] {
            for (int64_t i = 0; i < n; ++i) dst[i] = value;
        });
    }
    void copy2d(float* dst, int64_t dstPitch, const float* src, int64_t srcPitch, int64_t rows,
                int64_t cols) override {
        submit([=] {
            for (int64_t r = 0; r < rows; ++r)
                std::memcpy(dst + r * dstPitch, src + r * srcPitch,
                            sizeof(float) * static_cast<size_t>(cols));
        });
    }
    void check(const char* what) override { hostWait(what); }

    void sgemm(bool tA, bool tB, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
               int64_t lda, const float* B, int64_t ldb, float beta, float* C,
               int64_t ldc) override {
        submit([=] { engine::sgemm(tA, tB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc); });
    }
    void sgemmStrided(bool tA, bool tB, int64_t M, int64_t N, int64_t K, float alpha,
                      const float* A, int64_t lda, int64_t sA, const float* B, int64_t ldb,
                      int64_t sB, float beta, float* C, int64_t ldc, int64_t sC,
                      int64_t batch) override {
        submit([=] {
            for (int64_t i = 0; i < batch; ++i)
                engine::sgemm(tA, tB, M, N, K, alpha, A + i * sA, lda, B + i * sB, ldb, beta,
                              C + i * sC, ldc);
        });
    }

    void unary(Unary op, const float* x, float* y, int64_t n, float alpha) override {
        each(n, [=](int64_t i) { y[i] = unaryAt(op, x[i], alpha); });
    }
    void binary(Binary op, const float* a, const float* b, float* y, int64_t n) override {
        each(n, [=](int64_t i) { y[i] = binaryAt(op, a[i], b[i]); });
    }
    void divGradB(const float* g, const float* a, const float* b, float* y, int64_t n) override {
        each(n, [=](int64_t i) { y[i] = divGradBAt(g[i], a[i], b[i]); });
    }
    void biasAdd(const float* x, const float* b, float* y, int64_t N, int64_t C,
                 int64_t inner) override {
        each(N * C * inner, [=](int64_t i) { y[i] = biasAddAt(x, b, i, C, inner); });
    }
    void biasGrad(const float* g, float* db, int64_t N, int64_t C, int64_t inner) override {
        each(C, [=](int64_t c) { db[c] = biasGradChannel(g, c, N, C, inner); });
    }

    void logSoftmax(const float* x, float* y, int64_t rows, int64_t cols) override {
        each(rows, [=](int64_t r) { logSoftmaxRow(x, y, r, cols); });
    }
    void softmaxGrad(const float* g, const float* y, float* dx, int64_t rows,
                     int64_t cols) override {
        each(rows, [=](int64_t r) { softmaxGradRow(g, y, dx, r, cols); });
    }
    void logSoftmaxGrad(const float* g, const float* y, float* dx, int64_t rows,
                        int64_t cols) override {
        each(rows, [=](int64_t r) { logSoftmaxGradRow(g, y, dx, r, cols); });
    }
    void crossEntropy(const float* x, const int32_t* labels, float* logp, float* loss, int64_t rows,
                      int64_t cols) override {
        submit([=, this] {
            double sum = 0;
            int32_t bad = 0;
            bool failed = false;
            for (int64_t r = 0; r < rows; ++r) {
                int32_t b = 0;
                sum += crossEntropyRow(x, logp, labels, r, cols, &b);
                if (b != 0 || labels[r] < 0 || labels[r] >= cols) {
                    if (!failed) bad = labels[r];
                    failed = true;
                }
            }
            loss[0] = static_cast<float>(sum / static_cast<double>(rows));
            if (failed && m_deviceError.empty())
                m_deviceError = "SparseSoftmaxCrossEntropyWithLogits: label " +
                                std::to_string(bad) + " out of range [0, " + std::to_string(cols) +
                                ")";
        });
    }
    void crossEntropyGrad(const float* g, const float* logp, const int32_t* labels, float* dx,
                          int64_t rows, int64_t cols) override {
        each(rows * cols,
             [=](int64_t i) { dx[i] = crossEntropyGradAt(g, logp, labels, i, rows, cols); });
    }
    void mse(const float* a, const float* b, float* loss, int64_t n) override {
        submit([=] {
            double s = 0;
            for (int64_t i = 0; i < n; ++i) s += mseTerm(a, b, i);
            loss[0] = static_cast<float>(s / static_cast<double>(n > 1 ? n : 1));
        });
    }
    void mseGrad(const float* g, const float* a, const float* b, float* dx, int64_t n) override {
        each(n, [=](int64_t i) { dx[i] = mseGradAt(g, a, b, i, n); });
    }

    void im2col(const float* x, float* cols, const ConvShape& g) override {
        each(g.N * g.ckk() * g.ohw(), [=](int64_t i) { cols[i] = im2colAt(x, i, g); });
    }
    void col2im(const float* cols, float* dx, const ConvShape& g) override {
        each(g.N * g.chw(), [=](int64_t i) { dx[col2imDst(i, g)] = col2imAt(cols, i, g); });
    }
    void im2colT(const float* x, float* cols, const ConvShape& g) override {
        each(g.N * g.ckk() * g.ohw(), [=](int64_t i) { cols[i] = im2colTAt(x, i, g); });
    }
    void depthwise(const float* x, const float* w, const float* bias, float* y,
                   const ConvShape& g) override {
        each(g.N * g.C * g.ohw(), [=](int64_t i) { y[i] = depthwiseAt(x, w, bias, i, g); });
    }
    void depthwiseInput(const float* dy, const float* w, float* dx, const ConvShape& g) override {
        each(g.N * g.chw(), [=](int64_t i) { dx[i] = depthwiseInputAt(dy, w, i, g); });
    }
    void depthwiseFilter(const float* dy, const float* x, float* dw, double* work,
                         const ConvShape& g) override {
        submit([=] {
            const int64_t units = g.C * g.KH * g.KW, M = g.N * g.ohw(), S = reduceSlices(M);
            for (int64_t j = 0; j < units; ++j)
                for (int64_t s = 0; s < S; ++s) {
                    int64_t b, e;
                    sliceRange(M, s, S, &b, &e);
                    double acc = 0;
                    for (int64_t m = b; m < e; ++m) acc += depthwiseFilterTerm(dy, x, j, m, g);
                    work[j * S + s] = acc;
                }
            for (int64_t j = 0; j < units; ++j) {
                double acc = 0;
                for (int64_t s = 0; s < S; ++s) acc += work[j * S + s];
                dw[j] = static_cast<float>(acc);
            }
        });
    }
    void maxPool(const float* x, float* y, int32_t* arg, const PoolShape& g) override {
        each(g.N * g.C * g.OH * g.OW, [=](int64_t i) { y[i] = maxPoolAt(x, i, g, arg + i); });
    }
    void maxPoolGrad(const float* g, const int32_t* arg, float* dx, const PoolShape& s) override {
        each(s.N * s.C * s.H * s.W, [=](int64_t i) { dx[i] = maxPoolGradAt(g, arg, i, s); });
    }
    void avgPool(const float* x, float* y, const PoolShape& g) override {
        each(g.N * g.C * g.OH * g.OW, [=](int64_t i) { y[i] = avgPoolAt(x, i, g); });
    }
    void avgPoolGrad(const float* g, float* dx, const PoolShape& s) override {
        each(s.N * s.C * s.H * s.W, [=](int64_t i) { dx[i] = avgPoolGradAt(g, i, s); });
    }
    void globalAvgPool(const float* x, float* y, int64_t planes, int64_t HW) override {
        each(planes, [=](int64_t p) { y[p] = globalAvgPoolAt(x, p, HW); });
    }
    void globalAvgPoolGrad(const float* g, float* dx, int64_t planes, int64_t HW) override {
        each(planes * HW, [=](int64_t i) { dx[i] = globalAvgPoolGradAt(g, i, HW); });
    }
    void batchNorm(const float* x, const float* gamma, const float* beta, float* runMean,
                   float* runVar, float* y, float* mean, float* invstd, double* work,
                   const BatchNormArgs& a) override {
        submit([=] {
            const int64_t S = a.slices(), M = a.count();
            if (a.training)
                for (int64_t c = 0; c < a.C; ++c)
                    for (int64_t s = 0; s < S; ++s) {
                        int64_t b, e;
                        sliceRange(M, s, S, &b, &e);
                        batchNormSums(x, c, b, e, a, &work[(c * S + s) * 2],
                                      &work[(c * S + s) * 2 + 1]);
                    }
            for (int64_t c = 0; c < a.C; ++c)
                batchNormStats(work, runMean, runVar, mean, invstd, c, a);
            for (int64_t i = 0, n = a.N * a.C * a.HW; i < n; ++i)
                y[i] = batchNormAt(x, gamma, beta, mean, invstd, i, a);
        });
    }
    void batchNormGrad(const float* g, const float* x, const float* gamma, const float* mean,
                       const float* invstd, float* dx, float* dgamma, float* dbeta, double* work,
                       const BatchNormArgs& a) override {
        submit([=] {
            const int64_t S = a.slices(), M = a.count();
            float* means = reinterpret_cast<float*>(work + a.C * S * 2);
            for (int64_t c = 0; c < a.C; ++c)
                for (int64_t s = 0; s < S; ++s) {
                    int64_t b, e;
                    sliceRange(M, s, S, &b, &e);
                    batchNormGradSums(g, x, mean, invstd, c, b, e, a, &work[(c * S + s) * 2],
                                      &work[(c * S + s) * 2 + 1]);
                }
            for (int64_t c = 0; c < a.C; ++c) batchNormGradStats(work, dgamma, dbeta, means, c, a);
            for (int64_t i = 0, n = a.N * a.C * a.HW; i < n; ++i)
                dx[i] = batchNormGradAt(g, x, gamma, mean, invstd, means, i, a);
        });
    }

    void broadcastAdd(const float* a, const float* b, float* y, int64_t n,
                      const BroadcastShape& s) override {
        each(n, [=](int64_t i) { y[i] = broadcastAddAt(a, b, i, s); });
    }
    void reduceSumTo(const float* g, float* dst, int64_t n, const ReduceShape& s) override {
        each(n, [=](int64_t j) { dst[j] = reduceSumToAt(g, j, s); });
    }
    void permute(const float* x, float* y, int64_t n, const PermuteShape& s) override {
        each(n, [=](int64_t i) { y[i] = x[permuteSource(i, s)]; });
    }
    void pad2d(const float* x, float* y, const PadShape& s) override {
        each(s.NC * s.OH * s.OW, [=](int64_t i) { y[i] = pad2dAt(x, i, s); });
    }
    void pad2dGrad(const float* g, float* dx, const PadShape& s) override {
        each(s.NC * s.H * s.W, [=](int64_t i) { dx[i] = pad2dGradAt(g, i, s); });
    }
    void gatherRows(const void* src, const int32_t* order, int64_t first, int64_t rows,
                    int64_t words, void* dst) override {
        const auto* s = static_cast<const uint32_t*>(src);
        auto* d = static_cast<uint32_t*>(dst);
        each(rows * words, [=](int64_t i) { d[i] = gatherRowsAt(s, order, first, i, words); });
    }

    void sgd(float* w, const float* g, float* v, int64_t n, const SgdArgs& a) override {
        each(n, [=](int64_t k) { sgdAt(w, g, v, k, a); });
    }
    void adam(float* w, const float* g, float* m, float* v, int64_t n, const AdamArgs& a) override {
        each(n, [=](int64_t k) { adamAt(w, g, m, v, k, a); });
    }
    void sgdChunk(const TensorChunk& c, const SgdArgs& a) override {
        submit([=] {
            for (int t = 0; t < c.count; ++t)
                for (int64_t k = 0; k < c.n[t]; ++k) sgdAt(c.w[t], c.g[t], c.m[t], k, a);
        });
    }
    void adamChunk(const TensorChunk& c, const AdamArgs& a) override {
        submit([=] {
            for (int t = 0; t < c.count; ++t)
                for (int64_t k = 0; k < c.n[t]; ++k) adamAt(c.w[t], c.g[t], c.m[t], c.v[t], k, a);
        });
    }
    double sumSquares(const float* x, int64_t n) override {
        hostWait("sum of squares");
        double s = 0;
        for (int64_t i = 0; i < n; ++i) s += static_cast<double>(x[i]) * x[i];
        return s;
    }
    int64_t countNonFinite(const float* x, int64_t n) override {
        hostWait("NaN/Inf count");
        int64_t bad = 0;
        for (int64_t i = 0; i < n; ++i) bad += std::isfinite(x[i]) ? 0 : 1;
        return bad;
    }

    void readbackAsync(int slot, const void* src, size_t bytes) override {
        if (slot < 0 || slot >= kReadbackSlots || bytes > kReadbackBytes)
            throw std::logic_error("readbackAsync: slot or size out of range");
        if (m_capturing) fail("a readback");  // as the CUDA backend: its event is outside
        unsigned char* dst = m_readback[slot];
        submit([=] { std::memcpy(dst, src, bytes); });
    }
    void readbackWait(int slot, void* dst, size_t bytes) override {
        if (m_capturing) fail("readbackWait");
        ++m_counters.readbacks;
        raiseDeviceError();
        std::memcpy(dst, m_readback[slot], bytes);
    }

    void beginCapture() override {
        if (m_capturing) throw std::logic_error("beginCapture: already recording");
        m_capturing = true;
        m_captureError.clear();
        m_recorded.clear();
    }
    int64_t endCapture() override {
        m_capturing = false;
        if (!m_captureError.empty()) {
            m_recorded.clear();
            throw std::runtime_error("stream capture failed: " + m_captureError);
        }
        const int64_t id = ++m_lastGraph;
        m_graphs[id] = std::move(m_recorded);
        m_recorded.clear();
        return id;
    }
    void launchGraph(int64_t graph) override {
        auto it = m_graphs.find(graph);
        if (it == m_graphs.end()) throw std::logic_error("launchGraph: no such graph");
        ++m_counters.graphLaunches;
        ++m_counters.enqueued;
        for (const auto& work : it->second) work();
    }
    void destroyGraph(int64_t graph) override { m_graphs.erase(graph); }

    DeviceCounters counters() const override {
        std::lock_guard lock(m_mutex);
        return m_counters;
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
    /// Work on the stream: run now, or kept while a graph is being recorded.
    void submit(std::function<void()> work) {
        ++m_counters.enqueued;
        if (m_capturing)
            m_recorded.push_back(std::move(work));
        else
            work();
    }
    /// A kernel over n elements.
    template <class F>
    void each(int64_t n, F f) {
        submit([=] {
            for (int64_t i = 0; i < n; ++i) f(i);
        });
    }
    /// The host waits for the stream: not possible while recording (CUDA fails the capture
    /// with cudaErrorStreamCaptureUnsupported).
    void hostWait(const char* what) {
        if (m_capturing) fail(what);
        ++m_counters.hostWaits;
        raiseDeviceError();
    }
    [[noreturn]] void fail(const char* what) {
        if (m_captureError.empty())
            m_captureError = std::string(what) + " is not permitted while recording a graph";
        throw std::runtime_error("emulated device: " + m_captureError);
    }
    void raiseDeviceError() {
        if (m_deviceError.empty()) return;
        const std::string e = std::move(m_deviceError);
        m_deviceError.clear();
        throw std::invalid_argument(e);
    }

    mutable std::mutex m_mutex;
    std::set<void*> m_live;  // catches a block freed twice or freed by the wrong pool
    DeviceCounters m_counters;
    std::string m_deviceError;  // a device assertion, raised at the next synchronisation
    unsigned char m_readback[kReadbackSlots][kReadbackBytes] = {};
    bool m_capturing = false;
    std::string m_captureError;
    std::vector<std::function<void()>> m_recorded;
    std::map<int64_t, std::vector<std::function<void()>>> m_graphs;
    int64_t m_lastGraph = 0;
};

}  // namespace

std::unique_ptr<DeviceBackend> makeEmulatedBackend() {
    return std::make_unique<EmulatedBackend>();
}

}  // namespace ts::engine
