#include "core/engine/tensor/parallel.h"

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

/// How long a worker keeps polling for the next job before it sleeps. A training step runs
/// its kernels back to back with serial stretches of well under a millisecond between them:
/// a worker that slept would need a wake-up, which on a busy machine waits for the scheduler
/// (milliseconds), so the caller would do every part itself. While the pool backs off (see
/// noteWait) no job comes, and workers sleep after this.
constexpr auto kWorkerSpin = std::chrono::microseconds(1000);
/// How long the caller polls for the parts the workers run before it sleeps.
constexpr auto kCallerSpin = std::chrono::microseconds(100);

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
        if (!busy.owns_lock()) {
            m_stats.busyRuns.fetch_add(1, std::memory_order_relaxed);
            return false;
        }
        // Backing off: the caller runs the (same) parts itself.
        if (m_serialRuns > 0) {
            --m_serialRuns;
            m_stats.backedOffRuns.fetch_add(1, std::memory_order_relaxed);
            return false;
        }
        m_stats.splitRuns.fetch_add(1, std::memory_order_relaxed);
        const auto t0 = std::chrono::steady_clock::now();
        m_fn = &fn;
        m_error = nullptr;
        m_done.store(0, std::memory_order_relaxed);
        const uint64_t job = ((m_ticket.load(std::memory_order_relaxed) >> 32) + 1) & 0xffffffffu;
        // One word holds the job id, its part count and the next part to claim, so a worker
        // late from an earlier job can never claim a part of this one.
        m_ticket.store(job << 32 | static_cast<uint64_t>(parts) << 16, std::memory_order_release);
        m_gen.fetch_add(1, std::memory_order_release);
        m_gen.notify_all();
        const int own = work(static_cast<uint32_t>(job));
        // Wait for parts claimed by workers.
        const auto t1 = std::chrono::steady_clock::now();
        const auto until = t1 + kCallerSpin;
        int done;
        while ((done = m_done.load(std::memory_order_acquire)) < parts) {
            if (std::chrono::steady_clock::now() < until)
                TS_CPU_RELAX();
            else
                m_done.wait(done, std::memory_order_acquire);
        }
        m_fn = nullptr;
        noteGain(t1 - t0, std::chrono::steady_clock::now() - t0, own, parts);
        if (m_error) std::rethrow_exception(m_error);
        return true;
    }

private:
    /// When the cores are shared (more runnable threads than cores), a worker woken for a job
    /// waits for the scheduler, and splitting costs more than it saves: the caller ends up
    /// running the parts itself, or waiting for a worker the OS holds back. Each split kernel
    /// compares its time with what the caller's own parts say the whole would have taken
    /// alone; when that averages above kBackOffRatio, the pool backs off for kBackOffRuns
    /// kernels (their parts run on the caller: same parts, same results), then tries again.
    void noteGain(std::chrono::steady_clock::duration ownTime,
                  std::chrono::steady_clock::duration total, int own, int parts) {
        // The first kernels after a back-off wake the sleeping workers: not measured.
        if (m_warmup > 0) {
            --m_warmup;
            return;
        }
        if (own <= 0) return;
        const double alone =
            static_cast<double>(ownTime.count()) * static_cast<double>(parts) / own;
        const double ratio =
            std::min(4.0, static_cast<double>(total.count()) / std::max(1.0, alone));
        m_gain = 0.95 * m_gain + 0.05 * ratio;
        if (m_gain > kBackOffRatio) {
            m_serialRuns = kBackOffRuns;
            m_gain = kProbeStart;
            m_warmup = kWarmupRuns;
        }
    }
    static constexpr double kBackOffRatio = 0.9;
    static constexpr double kProbeStart = 0.7;
    static constexpr int kBackOffRuns = 2000;
    static constexpr int kWarmupRuns = 50;

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

    /// Claims and runs parts of job `job` until none is left; returns how many it ran.
    int work(uint32_t job) {
        int ran = 0;
        for (;;) {
            uint64_t t = m_ticket.load(std::memory_order_acquire);
            int part, parts;
            do {
                parts = static_cast<int>((t >> 16) & 0xffffu);
                part = static_cast<int>(t & 0xffffu);
                if ((t >> 32) != job || part >= parts) return ran;
            } while (!m_ticket.compare_exchange_weak(t, t + 1, std::memory_order_acq_rel));
            try {
                (*m_fn)(part);
            } catch (...) {
                std::lock_guard lock(m_errorMutex);
                if (!m_error) m_error = std::current_exception();
            }
            ++ran;
            if (m_done.fetch_add(1, std::memory_order_acq_rel) + 1 == parts) m_done.notify_all();
        }
    }

public:
    struct Stats {
        std::atomic<int64_t> splitRuns{0}, backedOffRuns{0}, busyRuns{0}, workerParts{0};
    };
    const Stats& stats() const { return m_stats; }

private:
    void loop(uint32_t seen) {
        for (;;) {
            auto until = std::chrono::steady_clock::now() + kWorkerSpin;
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
            m_stats.workerParts.fetch_add(
                work(static_cast<uint32_t>(m_ticket.load(std::memory_order_acquire) >> 32)),
                std::memory_order_relaxed);
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
    Stats m_stats;
    double m_gain = kProbeStart;  // split time / time alone, averaged; guarded by m_busy
    int m_warmup = kWarmupRuns;   // guarded by m_busy
    int m_serialRuns = 0;         // guarded by m_busy
};

CBLAS_TRANSPOSE tr(bool t) {
    return t ? CblasTrans : CblasNoTrans;
}

}  // namespace

PoolStats poolStats() {
    const auto& s = Pool::instance().stats();
    return {s.splitRuns.load(), s.backedOffRuns.load(), s.busyRuns.load(), s.workerParts.load()};
}

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
    // Two parts per thread: one held back by the OS leaves a part for the others.
    const int64_t maxParts = std::max<int64_t>(1, n / std::max<int64_t>(1, grain));
    const int threads = intraOpThreads();
    const int parts = threads == 1 ? 1 : static_cast<int>(std::min<int64_t>(2 * threads, maxParts));
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
