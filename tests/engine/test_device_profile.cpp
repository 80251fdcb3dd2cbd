// A profiled run on a device puts the GPU's activity into the profile, under the ops that
// launched it. No GPU here: a "tracing" device wraps the CPU emulation and, like CUPTI,
// records an API call ("cudaLaunchKernel", on the calling thread) and a kernel (on stream 7,
// right after it) for each kernel the engine launches, then writes them as the collector's
// activity file — so the whole path after CUPTI runs: the file, the clock mapping, the window
// of recorded steps, the rows under the training thread, launch flows and the "op" args.
#include <gtest/gtest.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <mutex>

#include "core/profiler/gpu/activity_format.h"
#include "core/run/training_job.h"
#include "core/store/trace_store.h"
#include "tests/common/sql_rows.h"
#include "tests/common/test_support.h"
#include "tests/engine/device_fixture.h"

using namespace ts::engine;

namespace ts::test {
namespace {

int64_t monotonicNs() {
    timespec t{};
    clock_gettime(CLOCK_MONOTONIC, &t);
    return int64_t{t.tv_sec} * 1000000000 + t.tv_nsec;
}

class TracingDevice final : public DeviceBackend {
public:
    explicit TracingDevice(DeviceBackend& inner) : m_in(inner) {}

    std::string name() const override { return "cuda (tracing emulation)"; }
    std::string deviceName() const override { return "tracing emulated device"; }
    void* allocate(size_t b) override { return m_in.allocate(b); }
    void release(void* p) override { m_in.release(p); }
    void copy(void* d, const void* s, size_t b, Copy k) override { m_in.copy(d, s, b, k); }
    void zero(void* d, size_t b) override { m_in.zero(d, b); }
    void fill(float* d, float v, int64_t n) override {
        launch("fill", [&] { m_in.fill(d, v, n); });
    }
    void check(const char* w) override { m_in.check(w); }
#define TS_TRACED(method, kernel, params, args)    \
    void method params override {                  \
        launch(kernel, [&] { m_in.method args; }); \
    }
    TS_TRACED(sgemm, "ampere_sgemm_128x64_nn",
              (bool a, bool b, int64_t M, int64_t N, int64_t K, float al, const float* A,
               int64_t lda, const float* B, int64_t ldb, float be, float* C, int64_t ldc),
              (a, b, M, N, K, al, A, lda, B, ldb, be, C, ldc))
    TS_TRACED(sgemmStrided, "ampere_sgemm_batched",
              (bool a, bool b, int64_t M, int64_t N, int64_t K, float al, const float* A,
               int64_t lda, int64_t sa, const float* B, int64_t ldb, int64_t sb, float be, float* C,
               int64_t ldc, int64_t sc, int64_t n),
              (a, b, M, N, K, al, A, lda, sa, B, ldb, sb, be, C, ldc, sc, n))
    TS_TRACED(unary, "_ZN2ts6engine4cuda11unaryKernelENS0_7kernels5UnaryEPKfPflf",
              (kernels::Unary o, const float* x, float* y, int64_t n, float al), (o, x, y, n, al))
    TS_TRACED(binary, "binaryKernel",
              (kernels::Binary o, const float* a, const float* b, float* y, int64_t n),
              (o, a, b, y, n))
    TS_TRACED(divGradB, "divGradBKernel",
              (const float* g, const float* a, const float* b, float* y, int64_t n),
              (g, a, b, y, n))
    TS_TRACED(biasAdd, "biasAddKernel",
              (const float* x, const float* b, float* y, int64_t N, int64_t C, int64_t i),
              (x, b, y, N, C, i))
    TS_TRACED(biasGrad, "biasGradKernel",
              (const float* g, float* d, int64_t N, int64_t C, int64_t i), (g, d, N, C, i))
    TS_TRACED(logSoftmax, "logSoftmaxKernel", (const float* x, float* y, int64_t r, int64_t c),
              (x, y, r, c))
    TS_TRACED(softmaxGrad, "softmaxGradKernel",
              (const float* g, const float* y, float* d, int64_t r, int64_t c), (g, y, d, r, c))
    TS_TRACED(logSoftmaxGrad, "logSoftmaxGradKernel",
              (const float* g, const float* y, float* d, int64_t r, int64_t c), (g, y, d, r, c))
    TS_TRACED(crossEntropy, "crossEntropyKernel",
              (const float* x, const int32_t* lab, float* lp, float* o, int64_t r, int64_t c),
              (x, lab, lp, o, r, c))
    TS_TRACED(crossEntropyGrad, "crossEntropyGradKernel",
              (const float* g, const float* l, const int32_t* lab, float* d, int64_t r, int64_t c),
              (g, l, lab, d, r, c))
    TS_TRACED(mse, "mseKernel", (const float* a, const float* b, float* o, int64_t n), (a, b, o, n))
    TS_TRACED(mseGrad, "mseGradKernel",
              (const float* g, const float* a, const float* b, float* d, int64_t n),
              (g, a, b, d, n))
    TS_TRACED(im2col, "im2colKernel", (const float* x, float* c, const kernels::ConvShape& g),
              (x, c, g))
    TS_TRACED(col2im, "col2imKernel", (const float* c, float* d, const kernels::ConvShape& g),
              (c, d, g))
    TS_TRACED(maxPool, "maxPoolKernel",
              (const float* x, float* y, int32_t* a, const kernels::PoolShape& g), (x, y, a, g))
    TS_TRACED(maxPoolGrad, "maxPoolGradKernel",
              (const float* g, const int32_t* a, float* d, const kernels::PoolShape& s),
              (g, a, d, s))
    TS_TRACED(avgPool, "avgPoolKernel", (const float* x, float* y, const kernels::PoolShape& g),
              (x, y, g))
    TS_TRACED(avgPoolGrad, "avgPoolGradKernel",
              (const float* g, float* d, const kernels::PoolShape& s), (g, d, s))
    TS_TRACED(batchNorm, "batchNormApplyKernel",
              (const float* x, const float* ga, const float* be, float* rm, float* rv, float* y,
               float* mu, float* is, double* w, const kernels::BatchNormArgs& a),
              (x, ga, be, rm, rv, y, mu, is, w, a))
    TS_TRACED(batchNormGrad, "batchNormGradApplyKernel",
              (const float* g, const float* x, const float* ga, const float* mu, const float* is,
               float* dx, float* dg, float* db, double* w, const kernels::BatchNormArgs& a),
              (g, x, ga, mu, is, dx, dg, db, w, a))
    TS_TRACED(copy2d, "copy2d",
              (float* d, int64_t dp, const float* s, int64_t sp, int64_t r, int64_t c),
              (d, dp, s, sp, r, c))
    TS_TRACED(im2colT, "im2colTKernel", (const float* x, float* c, const kernels::ConvShape& g),
              (x, c, g))
    TS_TRACED(depthwise, "depthwiseKernel",
              (const float* x, const float* w, const float* b, float* y,
               const kernels::ConvShape& g),
              (x, w, b, y, g))
    TS_TRACED(depthwiseInput, "depthwiseInputKernel",
              (const float* dy, const float* w, float* dx, const kernels::ConvShape& g),
              (dy, w, dx, g))
    TS_TRACED(depthwiseFilter, "depthwiseFilterSliceKernel",
              (const float* dy, const float* x, float* dw, double* wk, const kernels::ConvShape& g),
              (dy, x, dw, wk, g))
    TS_TRACED(globalAvgPool, "globalAvgPoolKernel",
              (const float* x, float* y, int64_t p, int64_t hw), (x, y, p, hw))
    TS_TRACED(globalAvgPoolGrad, "globalAvgPoolGradKernel",
              (const float* g, float* d, int64_t p, int64_t hw), (g, d, p, hw))
    TS_TRACED(broadcastAdd, "broadcastAddKernel",
              (const float* a, const float* b, float* y, int64_t n,
               const kernels::BroadcastShape& s),
              (a, b, y, n, s))
    TS_TRACED(reduceSumTo, "reduceSumToKernel",
              (const float* g, float* d, int64_t n, const kernels::ReduceShape& s), (g, d, n, s))
    TS_TRACED(permute, "permuteKernel",
              (const float* x, float* y, int64_t n, const kernels::PermuteShape& s), (x, y, n, s))
    TS_TRACED(pad2d, "pad2dKernel", (const float* x, float* y, const kernels::PadShape& s),
              (x, y, s))
    TS_TRACED(pad2dGrad, "pad2dGradKernel", (const float* g, float* d, const kernels::PadShape& s),
              (g, d, s))
    TS_TRACED(gatherRows, "gatherRowsKernel",
              (const void* s, const int32_t* o, int64_t f, int64_t r, int64_t w, void* d),
              (s, o, f, r, w, d))
    TS_TRACED(sgdChunk, "sgdChunkKernel",
              (const kernels::TensorChunk& c, const kernels::SgdArgs& a), (c, a))
    TS_TRACED(adamChunk, "adamChunkKernel",
              (const kernels::TensorChunk& c, const kernels::AdamArgs& a), (c, a))
    TS_TRACED(sgd, "sgdKernel",
              (float* w, const float* g, float* v, int64_t n, const kernels::SgdArgs& a),
              (w, g, v, n, a))
    TS_TRACED(adam, "adamKernel",
              (float* w, const float* g, float* m, float* v, int64_t n, const kernels::AdamArgs& a),
              (w, g, m, v, n, a))
#undef TS_TRACED
    double sumSquares(const float* x, int64_t n) override {
        return m_in.sumSquares(x, n);
    }
    int64_t countNonFinite(const float* x, int64_t n) override {
        return m_in.countNonFinite(x, n);
    }
    void readbackAsync(int slot, const void* src, size_t bytes) override {
        m_in.readbackAsync(slot, src, bytes);
    }
    void readbackWait(int slot, void* dst, size_t bytes) override {
        m_in.readbackWait(slot, dst, bytes);
    }
    void beginCapture() override {
        m_in.beginCapture();
    }
    int64_t endCapture() override {
        return m_in.endCapture();
    }
    void launchGraph(int64_t g) override {
        m_in.launchGraph(g);
    }
    void destroyGraph(int64_t g) override {
        m_in.destroyGraph(g);
    }
    DeviceCounters counters() const override {
        return m_in.counters();
    }

    bool startActivity(const std::string& path, std::string* error) override {
        std::lock_guard lock(m_mutex);
        if (!m_w.open(path, error)) return false;
        profiler::gpu::ProcessRecord p;
        p.pid = static_cast<uint32_t>(::getpid());
        m_w.put(profiler::gpu::RecordType::Process, p);
        clockPair(profiler::gpu::kClockStart);
        m_recording = true;
        return true;
    }
    bool stopActivity(std::string*) override {
        std::lock_guard lock(m_mutex);
        clockPair(profiler::gpu::kClockEnd);
        m_w.close();
        m_recording = false;
        return true;
    }
    int launches = 0;

private:
    /// CUPTI's clock here is CLOCK_MONOTONIC itself: the pairs map it 1:1.
    void clockPair(uint32_t point) {
        profiler::gpu::ClockRecord c;
        c.point = point;
        c.monotonicNs = monotonicNs();
        c.cuptiNs = static_cast<uint64_t>(c.monotonicNs);
        c.realtimeNs = c.monotonicNs;
        m_w.put(profiler::gpu::RecordType::Clock, c);
    }
    template <class F>
    void launch(const char* kernel, F run) {
        const int64_t t0 = monotonicNs();
        run();
        const int64_t t1 = monotonicNs();
        std::lock_guard lock(m_mutex);
        if (!m_recording) return;
        ++launches;
        profiler::gpu::ApiRecord a;
        a.start = static_cast<uint64_t>(t0);
        a.end = static_cast<uint64_t>(t1);
        a.pid = static_cast<uint32_t>(::getpid());
        a.tid = static_cast<uint32_t>(::syscall(SYS_gettid));
        a.correlation = static_cast<uint32_t>(++m_corr);
        a.domain = profiler::gpu::kApiRuntime;
        a.nameId = m_w.str("cudaLaunchKernel");
        m_w.put(profiler::gpu::RecordType::Api, a);
        profiler::gpu::KernelRecord k;
        k.start = a.end;
        k.end = a.end + 500;
        k.stream = 7;
        k.context = 1;
        k.correlation = a.correlation;
        k.nameId = m_w.str(kernel);
        m_w.put(profiler::gpu::RecordType::Kernel, k);
    }

    DeviceBackend& m_in;
    std::mutex m_mutex;
    profiler::gpu::ActivityWriter m_w;
    bool m_recording = false;
    uint32_t m_corr = 0;
};

/// A profiled run of `model` on the CUDA device over synthetic data, without evaluation.
run::JobOptions profiledOnDevice(const std::string& model, int samples, int batch, int steps,
                                 const std::string& session) {
    run::JobOptions o;
    o.train.model = model;
    o.train.dataset = "synthetic";
    o.train.syntheticSamples = samples;
    o.train.batchSize = batch;
    o.train.limitSteps = steps;
    o.train.evalAtEnd = false;
    o.train.device = "cuda";
    o.sessionPath = session;
    o.profile = true;
    return o;
}

TEST(DeviceProfile, KernelsAppearUnderTheOpsThatLaunchedThem) {
    TracingDevice device(*emulatedDevice());
    setCudaBackendForTesting(&device);
    const std::string session = (tempDir("device_profile") / "s.tscope").string();
    {
        run::JobOptions o = profiledOnDevice("mlp", 256, 16, 3, session);
        o.profiler.schedule.wait = 1;  // step 2 only: step 1's and 3's kernels stay out
        o.profiler.schedule.active = 1;
        run::TrainingJob job(o);
        ASSERT_TRUE(job.prepare().ok());
        const auto r = job.run();
        ASSERT_EQ(r.status, "completed") << r.reason;
        EXPECT_GT(job.profileOutcome().gpuSlices, 0);
        EXPECT_TRUE(job.profileOutcome().gpuNote.empty()) << job.profileOutcome().gpuNote;
    }
    setCudaBackendForTesting(nullptr);
    EXPECT_GT(device.launches, 0);
    auto s = store::TraceStore::open(session, store::TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(s.ok());
    auto& db = s.value()->db();
    auto count = [&](const std::string& sql) { return db.queryInt(sql).value(); };
    // The kernels of the recorded step only, on stream 7 of a GPU process.
    const int64_t kernels = count(
        "SELECT count(*) FROM slices s JOIN tracks t ON t.id = s.track_id WHERE "
        "t.kind = 'gpu_stream'");
    EXPECT_GT(kernels, 10);
    EXPECT_LT(kernels, device.launches);
    // Each one named by the op that launched it, from the training thread's profile.
    EXPECT_EQ(count("SELECT count(*) FROM slices s JOIN tracks t ON t.id = s.track_id JOIN "
                    "args a ON a.id = s.arg_set_id WHERE t.kind = 'gpu_stream' AND a.json NOT "
                    "LIKE '%\"op\":\"%'"),
              0)
        << ::testing::PrintToString(
               sqlRows(db,
                       "SELECT n.str, a.json FROM slices s JOIN tracks t ON t.id = s.track_id JOIN "
                       "strings n ON n.id = s.name_id JOIN args a ON a.id = s.arg_set_id WHERE "
                       "t.kind = 'gpu_stream' AND a.json NOT LIKE '%\"op\":\"%'"));
    EXPECT_GT(count("SELECT count(*) FROM slices s JOIN strings n ON n.id = s.name_id JOIN args "
                    "a ON a.id = s.arg_set_id WHERE n.str = 'ampere_sgemm_128x64_nn' AND a.json "
                    "LIKE '%\"op\":\"Default/network-WithLossCell/_backbone-MLP/fc1-Dense/"
                    "MatMul-op%'"),
              0);
    EXPECT_GT(count("SELECT count(*) FROM slices s JOIN strings n ON n.id = s.name_id JOIN args "
                    "a ON a.id = s.arg_set_id WHERE n.str = 'sgdKernel' AND a.json LIKE "
                    "'%ApplyMomentum-op%'"),
              0);
    // Demangled, as the Nsight importer shows them.
    EXPECT_GT(count("SELECT count(*) FROM slices s JOIN strings n ON n.id = s.name_id WHERE "
                    "n.str = 'ts::engine::cuda::unaryKernel(ts::engine::kernels::Unary, float "
                    "const*, float*, long, float)'"),
              0);
    // The launches on the training thread's "CUDA API" track, in the profile's process, with
    // a flow to each kernel.
    EXPECT_EQ(count("SELECT count(DISTINCT p.id) FROM processes p JOIN sources so ON so.id = "
                    "p.source_id WHERE so.kind = 'profiler' AND p.pid NOT LIKE 'GPU%'"),
              1);
    EXPECT_EQ(count("SELECT count(*) FROM tracks t JOIN strings n ON n.id = t.name_id JOIN "
                    "threads th ON th.id = t.thread_id WHERE n.str LIKE 'training thread (%) "
                    "\u00B7 CUDA API'"),
              1);
    EXPECT_EQ(count("SELECT count(*) FROM flows f JOIN strings n ON n.id = f.name_id WHERE "
                    "n.str = 'CUDA launch'"),
              kernels);
    // And every kernel lies inside the profile's recorded step (the window).
    EXPECT_EQ(count("SELECT count(*) FROM slices s JOIN tracks t ON t.id = s.track_id WHERE "
                    "t.kind = 'gpu_stream' AND (s.ts < (SELECT min(ts) FROM slices s2 JOIN "
                    "strings n ON n.id = s2.name_id WHERE n.str = 'ProfilerStep#2'))"),
              0);
}

TEST(DeviceProfile, WithoutActivityTheProfileSaysWhy) {
    setCudaBackendForTesting(emulatedDevice());
    const std::string session = (tempDir("device_profile_none") / "s.tscope").string();
    run::JobOptions o = profiledOnDevice("mlp", 128, 16, 2, session);
    run::TrainingJob job(o);
    ASSERT_TRUE(job.prepare().ok());
    const auto r = job.run();
    setCudaBackendForTesting(nullptr);
    ASSERT_EQ(r.status, "completed") << r.reason;
    bool said = false;
    for (const std::string& w : r.warnings)
        said |= w.find("profile: no GPU activity (kernels) in it: the emulated device") == 0;
    EXPECT_TRUE(said);
    EXPECT_GT(job.profileOutcome().sourceId, 0);  // the ops are profiled all the same
}

/// On an NVIDIA GPU: the real collector records the engine's own kernels into the profile.
TEST(DeviceProfileOnGpu, CuptiRecordsTheEnginesKernels) {
    setCudaBackendForTesting(nullptr);
    if (auto b = cudaBackend(); !b) GTEST_SKIP() << b.error();
    const std::string session = (tempDir("device_profile_gpu") / "s.tscope").string();
    run::JobOptions o = profiledOnDevice("lenet5", 256, 32, 3, session);
    run::TrainingJob job(o);
    ASSERT_TRUE(job.prepare().ok());
    const auto r = job.run();
    ASSERT_EQ(r.status, "completed") << r.reason;
    EXPECT_TRUE(job.profileOutcome().gpuNote.empty()) << job.profileOutcome().gpuNote;
    EXPECT_GT(job.profileOutcome().gpuSlices, 50);
    auto s = store::TraceStore::open(session, store::TraceStore::Mode::ReadOnly);
    ASSERT_TRUE(s.ok());
    EXPECT_GT(s.value()
                  ->db()
                  .queryInt("SELECT count(*) FROM slices s JOIN strings n ON n.id = s.name_id "
                            "JOIN args a ON a.id = s.arg_set_id WHERE n.str LIKE "
                            "'%im2colKernel%' AND a.json LIKE '%Conv2D-op%'")
                  .value(),
              0);
}

}  // namespace
}  // namespace ts::test
