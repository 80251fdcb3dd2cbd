#pragma once
// Rules about kernels by name, written down here and in docs/PROFILING.md:
//
// Tensor Core use (usesTensorCores): a kernel uses Tensor Cores when its name holds one of
//  - the MMA instruction families: "wgmma", "gmma" (Hopper warpgroup MMA, incl. "hgmma"),
//    "hmma", "imma", "dmma", "umma" / "tcgen05" (Blackwell), "mma_sync";
//  - the library tile names that encode an MMA shape: "h884", "s884", "h1688", "s1688",
//    "c1688", "16816", "i8816", and "tf32" with "gemm"/"conv";
//  - the GEMM/convolution engines that only exist as Tensor Core code: "xmma" (cuBLAS /
//    cuDNN's xmma_gemm, xmma_implicit_gemm, sm80_xmma_*, sm90_xmma_*), "tensorop" (CUTLASS
//    2.x/3.x, "cutlass3x_sm90_tensorop_*"), "nvjet" (cuBLASLt's JIT GEMMs on Hopper and
//    Blackwell, "nvjet_sm90_tst_*"), "sm90_gemm"/"sm100_gemm", "flash_fprop"/"flash_bprop"
//    and "fmha" (cuDNN / xformers fused attention), "flash_fwd"/"flash_bwd" (FlashAttention);
//  - the TensorBoard plugin's list (PyProf's): "dgrad_1x1_stride_2x2",
//    "first_layer_wgrad_kernel", "conv1x1", "conv2d_c1_k1", "direct_group".
//  Names with "sgemm" or "dgemm" without "tf32"/"xmma"/"tensorop" are plain FP32/FP64 SIMT
//  code and never count. The match is case-insensitive on the full (demangled) name.
//
// Tensor Core eligible ops (tensorCoreEligibleOp): the plugin's list — aten::mm, addmm,
// bmm, baddbmm, matmul, linear, conv*, cudnn_convolution*, their backward nodes ...
//
// Kernel kinds as the TensorBoard plugin splits a step: communication (a kernel whose name
// starts with "nccl" or holds "ncclKernel"/"ncclDevKernel", or whose launching op is a
// collective: "nccl:*", "c10d::*", "gloo:*", "record_param_comms"), memcpy, memset, kernel.
// HTA's own kind rule is apart (hta.h): COMMUNICATION when the name holds "ncclKernel",
// MEMORY when it holds "Memcpy" or "Memset", else COMPUTATION. No Qt.
#include <string_view>

namespace ts::analysis::gpu {

bool usesTensorCores(std::string_view kernelName);
/// The op can run on Tensor Cores (TensorBoard plugin's TC_OP_Allowlist).
bool tensorCoreEligibleOp(std::string_view opName);
/// An NCCL (or RCCL / HCCL) communication kernel by its name.
bool isCommunicationKernelName(std::string_view kernelName);
/// A host op that stands for a collective (its kernels are communication).
bool isCollectiveOpName(std::string_view opName);
/// PyTorch's DataLoader step op ("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__").
bool isDataLoaderOpName(std::string_view opName);

}  // namespace ts::analysis::gpu
