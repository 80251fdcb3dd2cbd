#pragma once
// Internal to the trainer: the training step recorded into a CUDA Graph (trainer_device.cpp
// runs it; docs/GPU.md, "CUDA Graphs").
#include <memory>
#include <vector>

#include "core/engine/device/device_backend.h"
#include "core/engine/tensor/memory_pool.h"
#include "core/engine/tensor/tensor.h"

namespace ts::engine {

/// The training step recorded into a CUDA Graph.
struct StepGraph {
    enum class State { WarmUp, Record, Launch };
    State state = State::WarmUp;
    int64_t batch = 0;  // the batch size the graph serves (others run op by op)
    DeviceBackend* backend = nullptr;
    int64_t id = 0;  // the backend's graph
    // The graph's memory: only its warm-up and its recording allocate from it, so the blocks
    // its launches write are nobody else's. Declared before the tensors that hold its blocks.
    std::unique_ptr<MemoryPool> pool;
    Tensor loss;                // where a launch leaves the loss
    std::vector<Tensor> grads;  // and each parameter's gradient (undefined: it gets none)
    int64_t launches = 0;
    ~StepGraph() {
        grads.clear();
        loss = Tensor();
        if (id && backend) backend->destroyGraph(id);
    }
};

}  // namespace ts::engine
