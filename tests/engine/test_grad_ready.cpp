// GradReadyHook (core/engine/tensor/grad_ready.h): backward says when each leaf's gradient is
// final, once per leaf, as soon as the last node taking it has run, so data-parallel training
// can start a bucket's allreduce while the rest of backward runs.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "core/engine/ops/ops.h"
#include "core/engine/tensor/grad_ready.h"

using namespace ts::engine;

TEST(GradReadyHook, EachLeafOnceAsSoonAsItsGradientIsFinal) {
    Tensor x = Tensor::full({2, 3}, 0.5f);  // no gradient wanted
    Tensor w1 = Tensor::full({3, 4}, 0.1f), w2 = Tensor::full({4, 2}, 0.2f);
    Tensor unused = Tensor::full({2}, 1.f);
    for (Tensor* t : {&w1, &w2, &unused}) t->setRequiresGrad(true);
    // w1 feeds two nodes: final only after both ran.
    Tensor t = ops::mul(ops::matmul(x, w1), ops::matmul(x, w1));
    Tensor y = ops::matmul(ops::relu(t), w2);

    std::vector<std::string> order;
    bool w1FinalWhenW2Was = true;
    std::vector<float> w1AtReady;
    {
        GradReadyHook hook([&](const Tensor& leaf) {
            if (leaf.impl() == w2.impl()) {
                order.push_back("w2");
                w1FinalWhenW2Was = w1.grad().defined();
            } else if (leaf.impl() == w1.impl()) {
                order.push_back("w1");
                const Tensor g = w1.grad();
                w1AtReady.assign(g.f32(), g.f32() + g.numel());
            } else {
                order.push_back("other");
            }
        });
        y.backward();
    }
    // Backward reaches w2 first (the last layer) and says so before w1 has any gradient.
    EXPECT_EQ(order, (std::vector<std::string>{"w2", "w1"}));
    EXPECT_FALSE(w1FinalWhenW2Was);
    // What the hook saw of w1 is its final gradient.
    const Tensor g = w1.grad();
    ASSERT_EQ(w1AtReady.size(), static_cast<size_t>(g.numel()));
    for (int64_t i = 0; i < g.numel(); ++i)
        EXPECT_EQ(w1AtReady[static_cast<size_t>(i)], g.f32()[i]);

    // The hook is gone after its scope.
    EXPECT_EQ(GradReadyHook::current(), nullptr);
}
