#include "core/engine/model/models.h"

#include <random>

namespace ts::engine {

namespace {
class Mlp : public SequentialCell {
public:
    Mlp(uint64_t seed, int64_t inputs, int64_t classes) : SequentialCell("MLP") {
        std::mt19937_64 rng(seed);
        append("flatten", std::make_shared<Flatten>());
        append("fc1", std::make_shared<Dense>(inputs, 256, rng));
        append("relu1", std::make_shared<ReLU>());
        append("fc2", std::make_shared<Dense>(256, 128, rng));
        append("relu2", std::make_shared<ReLU>());
        append("fc3", std::make_shared<Dense>(128, classes, rng));
    }
};

class LeNet5 : public SequentialCell {
public:
    LeNet5(uint64_t seed, int64_t classes, int64_t channels) : SequentialCell("LeNet5") {
        std::mt19937_64 rng(seed);
        append("conv1", std::make_shared<Conv2d>(channels, 6, 5, rng, 1, "same"));
        append("relu1", std::make_shared<ReLU>());
        append("max_pool2d1", std::make_shared<MaxPool2d>(2, 2));
        append("conv2", std::make_shared<Conv2d>(6, 16, 5, rng, 1, "valid"));
        append("relu2", std::make_shared<ReLU>());
        append("max_pool2d2", std::make_shared<MaxPool2d>(2, 2));
        append("flatten", std::make_shared<Flatten>());
        append("fc1", std::make_shared<Dense>(400, 120, rng));
        append("relu3", std::make_shared<ReLU>());
        append("fc2", std::make_shared<Dense>(120, 84, rng));
        append("relu4", std::make_shared<ReLU>());
        append("fc3", std::make_shared<Dense>(84, classes, rng));
    }
};
}  // namespace

std::shared_ptr<Cell> makeMlp(uint64_t seed, int64_t inputs, int64_t classes) {
    return std::make_shared<Mlp>(seed, inputs, classes);
}

std::shared_ptr<Cell> makeLeNet5(uint64_t seed, int64_t classes, int64_t channels) {
    return std::make_shared<LeNet5>(seed, classes, channels);
}

const std::vector<std::string>& modelNames() {
    static const std::vector<std::string> names{"mlp", "lenet5", "resnet8", "shufflenetv2"};
    return names;
}

bool modelTakesImages(const std::string& name) {
    return name == "lenet5" || name == "resnet8" || name == "shufflenetv2";
}

std::shared_ptr<Cell> makeModel(const std::string& name, uint64_t seed, int64_t inputs,
                                int64_t classes) {
    if (name == "mlp") return makeMlp(seed, inputs, classes);
    if (modelTakesImages(name) && inputs != 784) return nullptr;
    if (name == "lenet5") return makeLeNet5(seed, classes);
    if (name == "resnet8") return makeResNet8(seed, classes);
    if (name == "shufflenetv2") return makeShuffleNetV2(seed, classes);
    return nullptr;
}

}  // namespace ts::engine
