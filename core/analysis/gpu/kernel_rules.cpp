#include "core/analysis/gpu/kernel_rules.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace ts::analysis::gpu {
namespace {

bool icontains(std::string_view s, std::string_view needle) {
    if (needle.size() > s.size()) return false;
    auto it = std::search(s.begin(), s.end(), needle.begin(), needle.end(), [](char a, char b) {
        return std::tolower(static_cast<unsigned char>(a)) ==
               std::tolower(static_cast<unsigned char>(b));
    });
    return it != s.end();
}

bool startsWith(std::string_view s, std::string_view p) {
    return s.size() >= p.size() && s.substr(0, p.size()) == p;
}

}  // namespace

bool usesTensorCores(std::string_view n) {
    static constexpr std::string_view kAlways[] = {"wgmma",
                                                   "gmma",
                                                   "hmma",
                                                   "imma",
                                                   "dmma",
                                                   "umma",
                                                   "tcgen05",
                                                   "mma_sync",
                                                   "xmma",
                                                   "tensorop",
                                                   "nvjet",
                                                   "sm90_gemm",
                                                   "sm100_gemm",
                                                   "flash_fprop",
                                                   "flash_bprop",
                                                   "fmha",
                                                   "flash_fwd",
                                                   "flash_bwd",
                                                   "h884",
                                                   "s884",
                                                   "h1688",
                                                   "s1688",
                                                   "c1688",
                                                   "16816",
                                                   "i8816",
                                                   "dgrad_1x1_stride_2x2",
                                                   "first_layer_wgrad_kernel",
                                                   "conv1x1",
                                                   "conv2d_c1_k1",
                                                   "direct_group"};
    for (std::string_view p : kAlways)
        if (icontains(n, p)) return true;
    if (icontains(n, "tf32") && (icontains(n, "gemm") || icontains(n, "conv"))) return true;
    return false;
}

bool tensorCoreEligibleOp(std::string_view op) {
    static constexpr std::string_view kOps[] = {
        "aten::_convolution", "aten::_convolution_nogroup", "aten::conv1d", "aten::conv2d",
        "aten::conv3d", "aten::conv_tbc", "aten::conv_transpose1d", "aten::conv_transpose2d",
        "aten::conv_transpose3d", "aten::convolution", "aten::cudnn_convolution",
        "aten::cudnn_convolution_transpose", "aten::prelu", "aten::addmm", "aten::addmv",
        "aten::addr", "aten::matmul", "aten::mm", "aten::mv", "aten::linear", "aten::addbmm",
        "aten::baddbmm", "aten::bmm", "aten::chain_matmul", "aten::linalg_multi_dot",
        "aten::_thnn_fused_lstm_cell", "aten::_thnn_fused_gru_cell", "aten::lstm_cell",
        "aten::gru_cell", "aten::rnn_tanh_cell", "aten::rnn_relu_cell", "CudnnConvolutionBackward",
        "BmmBackward0", "aten::cudnn_convolution_transpose_backward",
        "CudnnConvolutionTransposeBackward", "MmBackward",
        "aten::cudnn_convolution_backward_weight", "aten::addmm_", "AddmvBackward", "MvBackward",
        "aten::cudnn_convolution_transpose_backward_weight",
        "aten::cudnn_convolution_transpose_backward_input", "AddmmBackward",
        "aten::cudnn_convolution_backward_input", "AddbmmBackward",
        "aten::cudnn_convolution_backward",
        // PyTorch 2.x names of the same work.
        "aten::_scaled_dot_product_cudnn_attention", "aten::_scaled_dot_product_flash_attention",
        "aten::_scaled_dot_product_efficient_attention", "aten::scaled_dot_product_attention",
        "aten::_scaled_mm", "aten::convolution_backward", "aten::_addmm_activation", "MmBackward0",
        "AddmmBackward0", "ConvolutionBackward0"};
    for (std::string_view o : kOps)
        if (op == o) return true;
    return false;
}

bool isCommunicationKernelName(std::string_view n) {
    return startsWith(n, "nccl") || icontains(n, "ncclKernel") || icontains(n, "ncclDevKernel") ||
           startsWith(n, "rccl") || startsWith(n, "hccl");
}

bool isCollectiveOpName(std::string_view op) {
    return startsWith(op, "nccl:") || startsWith(op, "c10d::") || startsWith(op, "gloo:") ||
           op == "record_param_comms" || startsWith(op, "hccl:");
}

bool isDataLoaderOpName(std::string_view op) {
    return startsWith(op, "enumerate(DataLoader)#") && op.size() >= 9 &&
           op.substr(op.size() - 9) == ".__next__";
}

}  // namespace ts::analysis::gpu
