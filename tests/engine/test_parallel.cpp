// The intra-op pool: kernels split over threads compute what the serial kernels compute,
// errors come back to the caller, nested and concurrent use never deadlocks.
#include <gtest/gtest.h>

#include <atomic>
#include <cmath>
#include <random>
#include <stdexcept>
#include <thread>

#include "core/engine/ops/ops.h"
#include "core/engine/tensor/dispatcher.h"
#include "core/engine/tensor/parallel.h"

using namespace ts::engine;

namespace {

Tensor normalTensor(const Shape& s, uint64_t seed) {
    std::mt19937_64 rng(seed);
    std::normal_distribution<float> d(0.f, 1.f);
    Tensor t = Tensor::empty(s);
    for (int64_t i = 0; i < t.numel(); ++i) t.f32()[i] = d(rng);
    return t;
}

/// Forward output and input/weight gradients of a conv + ReLU + max pool + matmul chain.
std::vector<Tensor> chain(int threads) {
    setIntraOpThreads(threads);
    Tensor x = normalTensor({5, 3, 12, 12}, 1).setRequiresGrad(true);
    Tensor w = normalTensor({4, 3, 3, 3}, 2).setRequiresGrad(true);
    Tensor b = normalTensor({4}, 3).setRequiresGrad(true);
    Tensor fc = normalTensor({7, 4 * 6 * 6}, 4).setRequiresGrad(true);
    ops::Conv2dOptions same;
    same.padSame = true;
    Tensor y = ops::maxPool2d(ops::relu(ops::conv2d(x, w, b, same)), 2, 2);
    Tensor logits = ops::matmul(ops::flatten(y), fc, false, true);
    Tensor labels = Tensor::zeros({5}, DType::Int32);
    Tensor loss = ops::softmaxCrossEntropy(logits, labels);
    loss.backward();
    return {logits.clone(), x.grad().clone(), w.grad().clone(), b.grad().clone(),
            fc.grad().clone()};
}

}  // namespace

TEST(Parallel, KernelsSplitOverThreadsMatchSerial) {
    const int before = intraOpThreads();
    const auto serial = chain(1);
    const auto split = chain(3);
    setIntraOpThreads(before);
    ASSERT_EQ(serial.size(), split.size());
    for (size_t k = 0; k < serial.size(); ++k) {
        ASSERT_EQ(serial[k].shape(), split[k].shape());
        for (int64_t i = 0; i < serial[k].numel(); ++i)
            EXPECT_NEAR(serial[k].f32()[i], split[k].f32()[i],
                        1e-5 * std::max(1.f, std::fabs(serial[k].f32()[i])))
                << "tensor " << k << " element " << i;
    }
}

TEST(Parallel, SameThreadCountSameBitsEveryTime) {
    const int before = intraOpThreads();
    const auto a = chain(2);
    const auto b = chain(2);
    setIntraOpThreads(before);
    for (size_t k = 0; k < a.size(); ++k)
        for (int64_t i = 0; i < a[k].numel(); ++i) ASSERT_EQ(a[k].f32()[i], b[k].f32()[i]);
}

TEST(Parallel, LargeGemmSplitMatchesSerial) {
    const int before = intraOpThreads();
    Tensor a = normalTensor({64, 300}, 5), w = normalTensor({200, 300}, 6);
    setIntraOpThreads(1);
    Tensor serial = ops::matmul(a, w, false, true);
    setIntraOpThreads(2);
    Tensor split = ops::matmul(a, w, false, true);
    Tensor splitT = ops::matmul(w, a, false, true);  // splits the other way (M > N)
    setIntraOpThreads(before);
    for (int64_t i = 0; i < serial.numel(); ++i) EXPECT_NEAR(serial.f32()[i], split.f32()[i], 1e-4);
    for (int64_t r = 0; r < 64; ++r)
        for (int64_t c = 0; c < 200; ++c)
            EXPECT_NEAR(serial.f32()[r * 200 + c], splitT.f32()[c * 64 + r], 1e-4);
}

TEST(Parallel, ExceptionsReachTheCallerAndNestingRunsSerially) {
    const int before = intraOpThreads();
    setIntraOpThreads(2);
    EXPECT_THROW(parallelParts(4,
                               [](int p) {
                                   if (p == 3) throw std::runtime_error("part 3 failed");
                               }),
                 std::runtime_error);
    std::atomic<int> inner{0};
    parallelParts(2, [&](int) { parallelParts(3, [&](int) { ++inner; }); });
    EXPECT_EQ(inner.load(), 6);
    // Two threads using the pool at once: one gets it, the other runs serially.
    std::atomic<int64_t> sum{0};
    auto work = [&] {
        for (int r = 0; r < 200; ++r)
            parallelFor(1000, 10, [&](int64_t b, int64_t e) { sum += e - b; });
    };
    std::thread t1(work), t2(work);
    t1.join();
    t2.join();
    EXPECT_EQ(sum.load(), 2 * 200 * 1000);
    setIntraOpThreads(before);
}
