// The host's kernel table (cpu_*.cpp), the lookup of a device's table, and the refusal of an
// op whose kernels a device lacks.
#include <stdexcept>
#include <string>

#include "core/engine/ops/cpu_kernels.h"
#include "core/engine/ops/op_util.h"

namespace ts::engine {
namespace {

const KernelTable kCpu{
    .device = Device::CPU,
    .unary = &cpu::unary,
    .binary = &cpu::binary,
    .divGradB = &cpu::divGradB,
    .broadcastAdd = &cpu::broadcastAdd,
    .reduceSumTo = &cpu::reduceSumTo,
    .gemm = &cpu::gemm,
    .biasAdd = &cpu::biasAdd,
    .biasGrad = &cpu::biasGrad,
    .softmax = &cpu::softmax,
    .logSoftmax = &cpu::logSoftmax,
    .softmaxGrad = &cpu::softmaxGrad,
    .logSoftmaxGrad = &cpu::logSoftmaxGrad,
    .crossEntropy = &cpu::crossEntropy,
    .crossEntropyGrad = &cpu::crossEntropyGrad,
    .mse = &cpu::mse,
    .mseGrad = &cpu::mseGrad,
    .conv2d = &cpu::conv2d,
    .conv2dFilter = &cpu::conv2dFilter,
    .conv2dInput = &cpu::conv2dInput,
    .depthwiseConv2d = &cpu::depthwiseConv2d,
    .depthwiseFilter = &cpu::depthwiseFilter,
    .depthwiseInput = &cpu::depthwiseInput,
    .groupedConv2d = &cpu::groupedConv2d,
    .groupedFilter = &cpu::groupedFilter,
    .groupedInput = &cpu::groupedInput,
    .maxPool = &cpu::maxPool,
    .maxPoolGrad = &cpu::maxPoolGrad,
    .avgPool = &cpu::avgPool,
    .avgPoolGrad = &cpu::avgPoolGrad,
    .globalAvgPool = &cpu::globalAvgPool,
    .globalAvgPoolGrad = &cpu::globalAvgPoolGrad,
    .batchNorm = &cpu::batchNorm,
    .batchNormGrad = &cpu::batchNormGrad,
    .concat = &cpu::concat,
    .split = &cpu::split,
    .transpose = &cpu::transpose,
    .pad2d = &cpu::pad2d,
    .pad2dGrad = &cpu::pad2dGrad,
    .sgd = &cpu::sgd,
    .adam = &cpu::adam,
    .sgdMany = nullptr,
    .adamMany = nullptr,
};

}  // namespace

const KernelTable& cpuKernels() {
    return kCpu;
}

const KernelTable& kernelsOf(Device d) {
    return d == Device::CPU ? kCpu : deviceKernels();
}

void detail::refuseDevice(std::string_view op) {
    throw std::invalid_argument(std::string(op) +
                                ": not available on a CUDA device yet (CPU only; docs/GPU.md)");
}

}  // namespace ts::engine
