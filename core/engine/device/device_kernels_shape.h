#pragma once
// The math of the device's shape kernels (included by device_kernels.h; compiled by nvcc and
// by the host compiler as the rest): broadcasting Add and its ReduceSum gradient, Transpose,
// zero padding, global average pooling, and the batch gather of the device-resident data.
// Each function gives one output element; the sums add in the CPU kernels' order.
#include <cstdint>

namespace ts::engine::kernels {

/// Tensors of up to kMaxDims dims (the shape ops' limit on a device).
constexpr int kMaxDims = 8;

/// a + b broadcast to `out`: each operand's stride per output dim (0 where broadcast).
struct BroadcastShape {
    int rank = 0;
    int64_t out[kMaxDims], sa[kMaxDims], sb[kMaxDims];
};

TS_HD float broadcastAddAt(const float* a, const float* b, int64_t i, const BroadcastShape& s) {
    int64_t oa = 0, ob = 0, rem = i;
    for (int d = s.rank - 1; d >= 0; --d) {
        const int64_t k = rem % s.out[d];
        rem /= s.out[d];
        oa += k * s.sa[d];
        ob += k * s.sb[d];
    }
    return a[oa] + b[ob];
}

/// An operand of a broadcast (its dims aligned to the output's, 1 where it was broadcast)
/// and the output: the gradient of the operand sums g over the dims it was broadcast along.
struct ReduceShape {
    int rank = 0;
    int64_t out[kMaxDims], dims[kMaxDims];
};

/// Element j of the operand's gradient: g summed over the output elements j was broadcast
/// to, in increasing output order (the CPU kernel's order).
TS_HD float reduceSumToAt(const float* g, int64_t j, const ReduceShape& s) {
    int64_t coord[kMaxDims];
    int64_t rem = j, reduced = 1;
    for (int d = s.rank - 1; d >= 0; --d) {
        coord[d] = rem % s.dims[d];
        rem /= s.dims[d];
        if (s.dims[d] == 1) reduced *= s.out[d];
    }
    float acc = 0.f;
    for (int64_t r = 0; r < reduced; ++r) {
        int64_t rr = r, idx = 0, mul = 1;
        for (int d = s.rank - 1; d >= 0; --d) {
            int64_t c = coord[d];
            if (s.dims[d] == 1) {
                c = rr % s.out[d];
                rr /= s.out[d];
            }
            idx += c * mul;
            mul *= s.out[d];
        }
        acc += g[idx];
    }
    return acc;
}

/// A strided view read in row-major order of `out`: output element i comes from
/// src[sum of coord[d] * stride[d]] (Transpose: the input's strides permuted).
struct PermuteShape {
    int rank = 0;
    int64_t out[kMaxDims], stride[kMaxDims];
};

TS_HD int64_t permuteSource(int64_t i, const PermuteShape& s) {
    int64_t src = 0, rem = i;
    for (int d = s.rank - 1; d >= 0; --d) {
        src += (rem % s.out[d]) * s.stride[d];
        rem /= s.out[d];
    }
    return src;
}

/// Zero padding of NCHW planes [H, W] to [OH, OW] with the input at (top, left).
struct PadShape {
    int64_t NC, H, W, OH, OW, top, left;
};

TS_HD float pad2dAt(const float* x, int64_t i, const PadShape& s) {
    const int64_t ow = i % s.OW, oh = (i / s.OW) % s.OH, p = i / (s.OW * s.OH);
    const int64_t h = oh - s.top, w = ow - s.left;
    if (h < 0 || h >= s.H || w < 0 || w >= s.W) return 0.f;
    return x[(p * s.H + h) * s.W + w];
}

/// Element i of the padding's input gradient: the window of g the input filled.
TS_HD float pad2dGradAt(const float* g, int64_t i, const PadShape& s) {
    const int64_t w = i % s.W, h = (i / s.W) % s.H, p = i / (s.W * s.H);
    return g[(p * s.OH + h + s.top) * s.OW + w + s.left];
}

/// The mean of plane p (of N*C planes of HW values).
TS_HD float globalAvgPoolAt(const float* x, int64_t p, int64_t HW) {
    float s = 0;
    for (int64_t i = 0; i < HW; ++i) s += x[p * HW + i];
    return s * (1.f / static_cast<float>(HW));
}

TS_HD float globalAvgPoolGradAt(const float* g, int64_t i, int64_t HW) {
    return g[i / HW] * (1.f / static_cast<float>(HW));
}

/// Word k of batch row r: row order[first + r] of the source (rows of `words` 4-byte values).
TS_HD uint32_t gatherRowsAt(const uint32_t* src, const int32_t* order, int64_t first, int64_t i,
                            int64_t words) {
    const int64_t r = i / words, k = i % words;
    return src[static_cast<int64_t>(order[first + r]) * words + k];
}

}  // namespace ts::engine::kernels
