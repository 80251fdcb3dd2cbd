// ShuffleNet V2 at width 0.5 (Ma et al. 2018; torchvision's shufflenet_v2_x0_5 units) for
// 28x28 single-channel images, zero-padded to 32x32: the CIFAR-size variant with a 3x3
// stride-1 stem of 24 channels and no max pool (torchvision's stride-2 stem and max pool
// would leave 8x8 before the first stage), then stages of 4, 8 and 4 units at 48, 96 and 192
// channels (32 -> 16 -> 8 -> 4), a 1x1 convolution to 1024 channels, global average pooling
// and a Dense classifier.
#include <random>

#include "core/engine/model/models.h"

namespace ts::engine {

namespace {

std::shared_ptr<Conv2d> depthwise(int64_t ch, int stride, std::mt19937_64& rng) {
    return std::make_shared<Conv2d>(ch, ch, 3, rng, stride, "pad", 1, false, static_cast<int>(ch));
}
std::shared_ptr<Conv2d> pointwise(int64_t in, int64_t out, std::mt19937_64& rng) {
    return std::make_shared<Conv2d>(in, out, 1, rng, 1, "valid");
}

/// torchvision's InvertedResidual. Stride 1: split the channels in two halves, transform the
/// second (1x1-BN-ReLU, depthwise 3x3-BN, 1x1-BN-ReLU), concatenate. Stride 2: both branches
/// see the whole input (branch1: depthwise 3x3 stride 2-BN, 1x1-BN-ReLU). Then the channel
/// shuffle with 2 groups.
class ShuffleUnit : public Cell {
public:
    ShuffleUnit(int64_t in, int64_t out, int stride, std::mt19937_64& rng)
        : Cell("ShuffleUnit"), m_stride(stride) {
        const int64_t half = out / 2;
        if (stride > 1) {
            auto b1 = std::make_shared<SequentialCell>();
            b1->append("0", depthwise(in, stride, rng));
            b1->append("1", std::make_shared<BatchNorm2d>(in));
            b1->append("2", pointwise(in, half, rng));
            b1->append("3", std::make_shared<BatchNorm2d>(half));
            b1->append("4", std::make_shared<ReLU>());
            m_branch1 = addChild("branch1", b1);
        }
        auto b2 = std::make_shared<SequentialCell>();
        b2->append("0", pointwise(stride > 1 ? in : half, half, rng));
        b2->append("1", std::make_shared<BatchNorm2d>(half));
        b2->append("2", std::make_shared<ReLU>());
        b2->append("3", depthwise(half, stride, rng));
        b2->append("4", std::make_shared<BatchNorm2d>(half));
        b2->append("5", pointwise(half, half, rng));
        b2->append("6", std::make_shared<BatchNorm2d>(half));
        b2->append("7", std::make_shared<ReLU>());
        m_branch2 = addChild("branch2", b2);
    }

    Tensor forward(const Tensor& x) override {
        Tensor out;
        if (m_stride == 1) {
            const std::vector<Tensor> halves = ops::chunk(x, 2, 1);
            out = ops::concat({halves[0], (*m_branch2)(halves[1])}, 1);
        } else {
            out = ops::concat({(*m_branch1)(x), (*m_branch2)(x)}, 1);
        }
        return ops::channelShuffle(out, 2);
    }

private:
    int m_stride;
    std::shared_ptr<Cell> m_branch1, m_branch2;
};

class ShuffleNetV2 : public SequentialCell {
public:
    ShuffleNetV2(uint64_t seed, int64_t classes) : SequentialCell("ShuffleNetV2") {
        std::mt19937_64 rng(seed);
        append("pad", std::make_shared<Pad>(2));
        append("conv1", std::make_shared<Conv2d>(1, 24, 3, rng, 1, "pad", 1));
        append("bn1", std::make_shared<BatchNorm2d>(24));
        append("relu1", std::make_shared<ReLU>());
        int64_t in = 24;
        const struct {
            const char* name;
            int64_t channels;
            int units;
        } stages[] = {{"stage2", 48, 4}, {"stage3", 96, 8}, {"stage4", 192, 4}};
        for (const auto& s : stages) {
            auto stage = std::make_shared<SequentialCell>();
            for (int u = 0; u < s.units; ++u) {
                stage->append(std::to_string(u),
                              std::make_shared<ShuffleUnit>(in, s.channels, u == 0 ? 2 : 1, rng));
                in = s.channels;
            }
            append(s.name, stage);
        }
        append("conv5", pointwise(in, 1024, rng));
        append("bn5", std::make_shared<BatchNorm2d>(1024));
        append("relu5", std::make_shared<ReLU>());
        append("avgpool", std::make_shared<GlobalAvgPool>());
        append("fc", std::make_shared<Dense>(1024, classes, rng));
    }
};

}  // namespace

std::shared_ptr<Cell> makeShuffleNetV2(uint64_t seed, int64_t classes) {
    return std::make_shared<ShuffleNetV2>(seed, classes);
}

}  // namespace ts::engine
