#pragma once
// Reference models: the MLP 784-256-128-10 and LeNet-5 (MindSpore's lenet: conv1/conv2 5x5
// without bias, max pool 2x2, fc1 400-120, fc2 120-84, fc3 84-10; conv1 pads 'same' so
// 28x28 Fashion-MNIST images give the 16x5x5 = 400 features).
#include <cstdint>
#include <memory>
#include <string>

#include "core/engine/layers.h"

namespace ts::engine {

/// MLP: flatten -> fc1 Dense(784,256) -> ReLU -> fc2 Dense(256,128) -> ReLU -> fc3 Dense(128,10).
std::shared_ptr<Cell> makeMlp(uint64_t seed, int64_t inputs = 784, int64_t classes = 10);
/// LeNet-5 for [N,1,28,28] input.
std::shared_ptr<Cell> makeLeNet5(uint64_t seed, int64_t classes = 10, int64_t channels = 1);
/// "mlp" or "lenet5" for `inputs` features (LeNet-5: 784 only, as [N,1,28,28]) and `classes`
/// outputs; nullptr for an unknown name or a LeNet-5 of another input size.
std::shared_ptr<Cell> makeModel(const std::string& name, uint64_t seed, int64_t inputs = 784,
                                int64_t classes = 10);

}  // namespace ts::engine
