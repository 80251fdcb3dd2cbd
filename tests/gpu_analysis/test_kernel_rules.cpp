// The Tensor Core rule and the kernel kinds, on names from real traces of Volta to Hopper.
#include <gtest/gtest.h>

#include "core/analysis/gpu/intervals.h"
#include "core/analysis/gpu/kernel_rules.h"

using namespace ts::analysis::gpu;

TEST(KernelRules, TensorCoresByName) {
    // Hopper: cuBLASLt's JIT GEMMs and cuDNN's fused attention (PyTorch 2.11, H200).
    EXPECT_TRUE(usesTensorCores("nvjet_sm90_tst_128x128_64x6_2x1_v_bz_bias_TNT"));
    EXPECT_TRUE(usesTensorCores(
        "cudnn_generated_fort_native_sdpa_sm90_flash_fprop_wgmma_f16_knob_7_64x128x64_4x1x1_"
        "cga1x1x1_kernel0_0"));
    EXPECT_TRUE(usesTensorCores("sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x128x64"));
    EXPECT_TRUE(usesTensorCores(
        "void "
        "cutlass::Kernel2<cutlass_80_tensorop_bf16_s16816gemm_relu_bf16_64x64_64x4_tn_align8>"));
    EXPECT_TRUE(usesTensorCores("cutlass3x_sm90_tensorop_gemm_f16_f16_f32_void_f16_128x256x64"));
    EXPECT_TRUE(usesTensorCores("ampere_bf16_s16816gemm_bf16_128x64_ldg8_f2f_stages_64x4_tn"));
    EXPECT_TRUE(usesTensorCores("volta_fp16_s884gemm_fp16_128x128_ldg8_f2f_stages_32x1_tn"));
    EXPECT_TRUE(usesTensorCores("turing_h1688gemm_128x128_ldg8_tn"));
    EXPECT_TRUE(usesTensorCores("ampere_tf32_s1688gemm_tf32_128x128_16x3_nn"));
    EXPECT_TRUE(usesTensorCores("void flash_fwd_kernel<Flash_fwd_kernel_traits<128, 64>>"));
    EXPECT_TRUE(
        usesTensorCores("sm100_xmma_gemm_f16f16_f16f32_f32_nn_n_tilesize256x128x64_tcgen05"));
    // Plain FP32 code and elementwise kernels do not.
    EXPECT_FALSE(usesTensorCores("ampere_sgemm_128x64_nn"));
    EXPECT_FALSE(usesTensorCores("volta_sgemm_64x64_nt"));
    EXPECT_FALSE(
        usesTensorCores("void at::native::vectorized_elementwise_kernel<8, "
                        "at::native::CUDAFunctor_add<c10::BFloat16>>"));
    EXPECT_FALSE(usesTensorCores("void at::native::reduce_kernel<128, 4>"));
    EXPECT_FALSE(usesTensorCores("ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*)"));

    EXPECT_TRUE(tensorCoreEligibleOp("aten::mm"));
    EXPECT_TRUE(tensorCoreEligibleOp("aten::_scaled_dot_product_cudnn_attention"));
    EXPECT_FALSE(tensorCoreEligibleOp("aten::add"));
    EXPECT_TRUE(isCommunicationKernelName("ncclDevKernel_AllReduce_Sum_f32_RING_LL"));
    EXPECT_TRUE(isCommunicationKernelName("ncclKernel_AllReduce_RING_LL_Sum_float"));
    EXPECT_FALSE(isCommunicationKernelName("void at::native::elementwise_kernel"));
    EXPECT_TRUE(isCollectiveOpName("nccl:all_reduce"));
    EXPECT_TRUE(isCollectiveOpName("record_param_comms"));
    EXPECT_TRUE(isDataLoaderOpName("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__"));
    EXPECT_FALSE(isDataLoaderOpName("enumerate(DataLoader)#_SingleProcessDataLoaderIter.__init__"));
}

TEST(Intervals, MergeIntersectSubtract) {
    const Intervals m = mergeIntervals({{5, 7}, {0, 2}, {2, 4}, {6, 9}, {12, 12}, {10, 11}});
    ASSERT_EQ(m.size(), 3u);
    EXPECT_EQ(m[0].start, 0);
    EXPECT_EQ(m[0].end, 4);  // touching intervals join
    EXPECT_EQ(m[1].start, 5);
    EXPECT_EQ(m[1].end, 9);
    EXPECT_EQ(sumIntervals(m), 4 + 4 + 1);
    const Intervals i = intersectIntervals(m, {{3, 6}, {8, 20}});
    EXPECT_EQ(sumIntervals(i), 1 + 1 + 1 + 1);
    const Intervals s = subtractIntervals({{0, 20}}, m);
    EXPECT_EQ(sumIntervals(s), 20 - 9);
    EXPECT_EQ(sumWithin(m, 1, 6), 3 + 1);
    EXPECT_EQ(sumWithin(m, 100, 200), 0);
}
