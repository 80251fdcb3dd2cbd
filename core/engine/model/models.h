#pragma once
// Reference models: the MLP 784-256-128-10 and LeNet-5 (MindSpore's lenet: conv1/conv2 5x5
// without bias, max pool 2x2, fc1 400-120, fc2 120-84, fc3 84-10; conv1 pads 'same' so
// 28x28 Fashion-MNIST images give the 16x5x5 = 400 features), ResNet-8 (models_resnet.cpp)
// and ShuffleNet V2 x0.5 (models_shufflenet.cpp).
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/engine/model/layers.h"

namespace ts::engine {

/// MLP: flatten -> fc1 Dense(784,256) -> ReLU -> fc2 Dense(256,128) -> ReLU -> fc3 Dense(128,10).
std::shared_ptr<Cell> makeMlp(uint64_t seed, int64_t inputs = 784, int64_t classes = 10);
/// LeNet-5 for [N,1,28,28] input.
std::shared_ptr<Cell> makeLeNet5(uint64_t seed, int64_t classes = 10, int64_t channels = 1);
/// ResNet-8 for [N,1,28,28] input: stem, three stages of basic blocks at 16/32/64 channels.
std::shared_ptr<Cell> makeResNet8(uint64_t seed, int64_t classes = 10);
/// ShuffleNet V2 x0.5 for [N,1,28,28] input, zero-padded to 32x32.
std::shared_ptr<Cell> makeShuffleNetV2(uint64_t seed, int64_t classes = 10);

/// The model names makeModel knows, in the order front ends list them.
const std::vector<std::string>& modelNames();
/// True for models that take [N,1,28,28] images (every model but the MLP).
bool modelTakesImages(const std::string& name);
/// A model by name for `inputs` features per sample and `classes` outputs; nullptr for an
/// unknown name or an image model (modelTakesImages) with inputs other than 784.
std::shared_ptr<Cell> makeModel(const std::string& name, uint64_t seed, int64_t inputs = 784,
                                int64_t classes = 10);

}  // namespace ts::engine
