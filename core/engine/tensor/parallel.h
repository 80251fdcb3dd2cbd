#pragma once
// Intra-op parallelism for the CPU kernels: one process-wide pool of worker threads that a
// kernel splits its work over (GEMM column blocks, conv samples, big element-wise loops).
// Work is split into a fixed number of parts decided by the caller, and every part computes
// the same thing whichever thread runs it, so results are bit-identical from run to run for
// a given thread count. The pool is used by one kernel at a time; a kernel that finds it
// busy (another trainer's thread, or a nested call) runs its parts serially on its own
// thread, so callers never wait for each other and never deadlock.
//
// Workers spin for a few microseconds after each job (ops follow each other closely during
// a step), then sleep on a futex; nothing spins while no training runs. OpenBLAS is kept at
// one thread: its own workers busy-wait and collapse when the cores are shared, so GEMMs are
// split here instead (see sgemm()).
#include <cstdint>
#include <functional>

namespace ts::engine {

/// Threads the kernels use (the calling thread plus workers); >= 1. Default: the
/// TS_NUM_THREADS environment variable, else the number of cores (at most 8).
int intraOpThreads();
/// Sets the thread count for later kernels (1 = serial). Call between runs, not during one.
void setIntraOpThreads(int threads);

/// Runs fn(part) for every part in [0, parts), spread over the pool's threads; returns when
/// all are done. Exceptions thrown by fn are rethrown here (the first one).
void parallelParts(int parts, const std::function<void(int part)>& fn);

/// Splits [0, n) into at most 2 * intraOpThreads() contiguous chunks of at least `grain`
/// elements (one chunk with one thread) and runs fn(begin, end) on each. Chunk bounds depend
/// only on n, grain and the thread count.
void parallelFor(int64_t n, int64_t grain, const std::function<void(int64_t, int64_t)>& fn);

/// How the pool's kernels ran since the process started (for benchmarks and diagnosis).
struct PoolStats {
    int64_t splitRuns = 0;      // kernels whose parts the pool's threads shared
    int64_t backedOffRuns = 0;  // kernels run on the caller while the pool backed off
    int64_t busyRuns = 0;       // kernels run on the caller because the pool was busy
    int64_t workerParts = 0;    // parts run by the pool's worker threads
};
PoolStats poolStats();

/// Row-major C[M,N] = alpha * op(A)[M,K] * op(B)[K,N] + beta * C (op = transpose when tA/tB),
/// through OpenBLAS, split over the pool by blocks of C when the product is large enough.
void sgemm(bool tA, bool tB, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
           int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc);
/// The same on the calling thread only (inside a part of parallelParts()).
void sgemmSerial(bool tA, bool tB, int64_t M, int64_t N, int64_t K, float alpha, const float* A,
                 int64_t lda, const float* B, int64_t ldb, float beta, float* C, int64_t ldc);

}  // namespace ts::engine
