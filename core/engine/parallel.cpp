#include "core/engine/parallel.h"

#include <cblas.h>
#include <dlfcn.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdlib>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define TS_CPU_RELAX() _mm_pause()
#else
#define TS_CPU_RELAX() std::this_thread::yield()
#endif

namespace ts::engine {

namespace {

constexpr auto kSpin = std::chrono::microseconds(40);

/// OpenBLAS's own threads busy-wait; with the cores shared they collapse (a 64x256x784
/// GEMM went from 0.3 ms to 36 ms on a loaded 2-core machine). Keep it serial: the pool
/// splits GEMMs itself. Looked up at run time so any CBLAS still links.
void serialBlas() {
    using SetThreads = void (*)(int);
    if (auto f = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads")))
        f(1);
}

int defaultThreads() {
    if (const char* env = std::getenv("TS_NUM_THREADS")) {
        const int n = std::atoi(env);
        if (n >= 1) return std::min(n, 64);
    }
    const unsigned hw = std::thread::hardware_concurrency();
    return std::clamp(static_cast<int>(hw), 1, 8);
}

class Pool {
public:
    static Pool& instance() {
        // Leaked on purpose: kernels may run during static destruction of other objects.
        static Pool* pool = new Pool();
        return *pool;
    }

    int threads() const { return m_threads.load(std::memory_order_relaxed); }

    void setThreads(int n) {
        n = std::clamp(n, 1, 64);
        std::lock_guard busy(m_busy);
        stopWorkers();
        m_threads.store(n);
        startWorkers();
    }

    /// Runs the parts on the pool; false (nothing run) when another kernel holds it.
    bool tryRun(int parts, const std::function<void(int)>& fn) {
        std::unique_lock busy(m_busy, std::try_to_lock);
        if (!busy.owns_lock()) return false;
        m_fn = &fn;
        m_error = nullptr;
        m_done.store(0, std::memory_order_relaxed);
        const uint64_t job = ((m_ticket.load(std::memory_order_relaxed) >> 32) + 1) & 0xffffffffu;
        // One word holds the job id, its part count and the next part to claim, so a worker
        // late from an earlier job can never claim a part of this one.
        m_ticket.store(job << 32 | static_cast<uint64_t>(parts) << 16, std::memory_order_release);
        m_gen.fetch_add(1, std::memory_order_release);
        m_gen.notify_all();
        work(static_cast<uint32_t>(job));
        // Wait for parts claimed by workers.
        const auto until = std::chrono::steady_clock::now() + kSpin;
        int done;
        while ((done = m_done.load(std::memory_order_acquire)) < parts) {
            if (std::chrono::steady_clock::now() < until)
                TS_CPU_RELAX();
            else
                m_done.wait(done, std::memory_order_acquire);
        }
        m_fn = nullptr;
        if (m_error) std::rethrow_exception(m_error);
        return true;
    }

private:
    Pool() : m_threads(defaultThreads()) {
        serialBlas();
        startWorkers();
    }

    void startWorkers() {
        m_quit.store(false);
        // Workers start from the generation seen here: one that starts late must still see
        // every job (and the quit) published after this point.
        const uint32_t gen = m_gen.load(std::memory_order_acquire);
        for (int i = 1; i < m_threads.load(); ++i)
            m_workers.emplace_back([this, gen] { loop(gen); });
    }

    void stopWorkers() {
        m_quit.store(true);
        m_gen.fetch_add(1, std::memory_order_release);
        m_gen.notify_all();
        for (auto& t : m_workers) t.join();
        m_workers.clear();
    }

    /// Claims and runs parts of job `job` until none is left.
    void work(uint32_t job) {
        for (;;) {
            uint64_t t = m_ticket.load(std::memory_order_acquire);
            int part, parts;
            do {
                parts = static_cast<int>((t >> 16) & 0xffffu);
                part = static_cast<int>(t & 0xffffu);
                if ((t >> 32) != job || part >= parts) return;
            } while (!m_ticket.compare_exchange_weak(t, t + 1, std::memory_order_acq_rel));
            try {
                (*m_fn)(part);
            } catch (...) {
                std::lock_guard lock(m_errorMutex);
                if (!m_error) m_error = std::current_exception();
            }
            if (m_done.fetch_add(1, std::memory_order_acq_rel) + 1 == parts) m_done.notify_all();
        }
    }

    void loop(uint32_t seen) {
        for (;;) {
            auto until = std::chrono::steady_clock::now() + kSpin;
            uint32_t g;
            while ((g = m_gen.load(std::memory_order_acquire)) == seen) {
                if (std::chrono::steady_clock::now() < until) {
                    TS_CPU_RELAX();
                } else {
                    m_gen.wait(seen, std::memory_order_acquire);
                }
            }
            seen = g;
            if (m_quit.load()) return;
            work(static_cast<uint32_t>(m_ticket.load(std::memory_order_acquire) >> 32));
        }
    }

    std::mutex m_busy;
    std::atomic<int> m_threads;
    std::vector<std::thread> m_workers;
    std::atomic<bool> m_quit{false};
    std::atomic<uint32_t> m_gen{0};
    std::atomic<uint64_t> m_ticket{0};  // job id << 32 | parts << 16 | next part
    std::atomic<int> m_done{0};
    const std::function<void(int)>* m_fn = nullptr;
    std::mutex m_errorMutex;
    std::exception_ptr m_error;
};

CBLAS_TRANSPOSE tr(bool t) {
    return t ? CblasTrans : CblasNoTrans;
}

}  // namespace

int intraOpThreads() {
    return Pool::instance().threads();
}

void setIntraOpThreads(int threads) {
    if (threads != intraOpThreads()) Pool::instance().setThreads(threads);
}

void parallelParts(int parts, const std::function<void(int)>& fn) {
    if (parts <= 0) return;
    if (parts == 1 || parts > 0xffff || intraOpThreads() == 1 ||
        !Pool::instance().tryRun(parts, fn))
        for (int p = 0; p < parts; ++p) fn(p);
}

void parallelFor(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn) {
    if (n <= 0) return;
    const int64_t maxParts = std::max<int64_t>(1, n / std::max<int64_t>(1, grain));
    const int parts = static_cast<int>(std::min<int64_t>(intraOpThreads(), maxParts));
    if (parts <= 1) {
        fn(0, n);
        return;
    }
    parallelParts(parts, [&](int p) {
        const int64_t b = n * p / parts, e = n * (p + 1) / parts;
        fn(b, e);
    });
}

void sgemmSerial(bool tA, bool tB, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
                 int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
    if (M <= 0 || N <= 0) return;
    if (K <= 0) {
        for (int64_t i = 0; i < M; ++i)
            for (int64_t j = 0; j < N; ++j)
                C[i * ldc + j] = beta == 0.f ? 0.f : beta * C[i * ldc + j];
        return;
    }
    cblas_sgemm(CblasRowMajor, tr(tA), tr(tB), static_cast<int>(M), static_cast<int>(N),
                static_cast<int>(K), alpha, A, static_cast<int>(lda), B, static_cast<int>(ldb),
                beta, C, static_cast<int>(ldc));
}

void sgemm(bool tA, bool tB, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
           int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc) {
    // Below ~0.5 MFLOP per part the hand-off costs more than it saves.
    constexpr double kFlopsPerPart = 5e5;
    const double flops = 2.0 * static_cast<double>(M) * static_cast<double>(N) *
                         static_cast<double>(std::max<int64_t>(K, 1));
    const bool splitRows = M >= N;
    const int64_t dim = splitRows ? M : N;
    constexpr int64_t kAlign = 16;
    int parts = static_cast<int>(std::min<double>(intraOpThreads(), flops / kFlopsPerPart));
    parts = static_cast<int>(std::min<int64_t>(parts, dim / kAlign));
    if (parts <= 1) {
        sgemmSerial(tA, tB, M, N, K, alpha, A, lda, B, ldb, beta, C, ldc);
        return;
    }
    const int64_t blocks = (dim + kAlign - 1) / kAlign;
    parallelParts(parts, [&](int p) {
        const int64_t b = std::min(dim, blocks * p / parts * kAlign);
        const int64_t e = std::min(dim, blocks * (p + 1) / parts * kAlign);
        if (e <= b) return;
        if (splitRows) {
            const float* a = tA ? A + b : A + b * lda;
            sgemmSerial(tA, tB, e - b, N, K, alpha, a, lda, B, ldb, beta, C + b * ldc, ldc);
        } else {
            const float* bb = tB ? B + b * ldb : B + b;
            sgemmSerial(tA, tB, M, e - b, K, alpha, A, lda, bb, ldb, beta, C + b, ldc);
        }
    });
}

}  // namespace ts::engine
