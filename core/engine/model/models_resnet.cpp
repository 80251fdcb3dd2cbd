// ResNet-8 for 28x28 single-channel images: the CIFAR ResNet family's smallest member (He et
// al., 6n+2 layers with n = 1): a 3x3 stem, three stages of one basic block each at 16, 32
// and 64 channels (the 2nd and 3rd halve H and W), global average pooling and a Dense
// classifier. Shortcuts that change shape are a 1x1 convolution + batch norm (torchvision's
// downsample). Convolutions have no bias (batch norm follows each one).
#include <random>

#include "core/engine/model/models.h"

namespace ts::engine {

namespace {

/// conv3x3-BN-ReLU-conv3x3-BN, plus the shortcut, then ReLU.
class BasicBlock : public Cell {
public:
    BasicBlock(int64_t in, int64_t out, int stride, std::mt19937_64& rng) : Cell("BasicBlock") {
        m_conv1 = addChild("conv1", std::make_shared<Conv2d>(in, out, 3, rng, stride, "pad", 1));
        m_bn1 = addChild("bn1", std::make_shared<BatchNorm2d>(out));
        m_relu1 = addChild("relu1", std::make_shared<ReLU>());
        m_conv2 = addChild("conv2", std::make_shared<Conv2d>(out, out, 3, rng, 1, "pad", 1));
        m_bn2 = addChild("bn2", std::make_shared<BatchNorm2d>(out));
        if (stride != 1 || in != out) {
            auto down = std::make_shared<SequentialCell>();
            down->append("0", std::make_shared<Conv2d>(in, out, 1, rng, stride, "valid"));
            down->append("1", std::make_shared<BatchNorm2d>(out));
            m_down = addChild("downsample", down);
        }
        m_relu2 = addChild("relu2", std::make_shared<ReLU>());
    }

    Tensor forward(const Tensor& x) override {
        Tensor y = (*m_bn2)((*m_conv2)((*m_relu1)((*m_bn1)((*m_conv1)(x)))));
        const Tensor shortcut = m_down ? (*m_down)(x) : x;
        return (*m_relu2)(ops::add(y, shortcut));
    }

private:
    std::shared_ptr<Cell> m_conv1, m_bn1, m_relu1, m_conv2, m_bn2, m_down, m_relu2;
};

class ResNet8 : public SequentialCell {
public:
    ResNet8(uint64_t seed, int64_t classes) : SequentialCell("ResNet8") {
        std::mt19937_64 rng(seed);
        append("conv1", std::make_shared<Conv2d>(1, 16, 3, rng, 1, "pad", 1));
        append("bn1", std::make_shared<BatchNorm2d>(16));
        append("relu", std::make_shared<ReLU>());
        append("layer1", std::make_shared<BasicBlock>(16, 16, 1, rng));
        append("layer2", std::make_shared<BasicBlock>(16, 32, 2, rng));
        append("layer3", std::make_shared<BasicBlock>(32, 64, 2, rng));
        append("avgpool", std::make_shared<GlobalAvgPool>());
        append("fc", std::make_shared<Dense>(64, classes, rng));
    }
};

}  // namespace

std::shared_ptr<Cell> makeResNet8(uint64_t seed, int64_t classes) {
    return std::make_shared<ResNet8>(seed, classes);
}

}  // namespace ts::engine
