#pragma once
// A hook Tensor::backward() calls, on the thread running backward, as each leaf's gradient
// becomes final: every node of the graph that takes the leaf has run (or been skipped, no
// gradient reaching it). Data-parallel training starts a bucket's allreduce there while the
// rest of backward runs (core/engine/train/grad_buckets.h).
#include <functional>

#include "core/engine/tensor/tensor.h"

namespace ts::engine {

using GradReadyFn = std::function<void(const Tensor& leaf)>;

/// Installs `fn` on the calling thread while alive; the one before comes back after.
class GradReadyHook {
public:
    explicit GradReadyHook(GradReadyFn fn);
    ~GradReadyHook();
    GradReadyHook(const GradReadyHook&) = delete;
    GradReadyHook& operator=(const GradReadyHook&) = delete;
    /// The calling thread's hook, null when none.
    static const GradReadyFn* current();

private:
    GradReadyFn m_fn;
    const GradReadyFn* m_prev;
};

}  // namespace ts::engine
