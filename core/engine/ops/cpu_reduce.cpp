// The host's kernels of the broadcasting Add with its ReduceSum gradient, and of global
// average pooling.
#include <algorithm>

#include "core/engine/ops/cpu_kernels.h"
#include "core/engine/tensor/parallel.h"

namespace ts::engine::cpu {

using detail::Broadcast;
using detail::rowOffsets;

Tensor broadcastAdd(const Tensor& a, const Tensor& b, const Broadcast& bc) {
    Tensor o = Tensor::empty(bc.out);
    if (bc.out.empty()) {
        o.f32()[0] = a.f32()[0] + b.f32()[0];
        return o;
    }
    const int64_t inner = bc.out.back(), rows = numel(bc.out) / std::max<int64_t>(1, inner);
    const int64_t ia = bc.sa.back(), ib = bc.sb.back();
    parallelFor(rows, std::max<int64_t>(1, (1 << 15) / std::max<int64_t>(1, inner)),
                [&](int64_t r0, int64_t r1) {
                    for (int64_t r = r0; r < r1; ++r) {
                        int64_t oa, ob;
                        rowOffsets(bc, r, oa, ob);
                        const float* pa = a.f32() + oa;
                        const float* pb = b.f32() + ob;
                        float* po = o.f32() + r * inner;
                        for (int64_t j = 0; j < inner; ++j) po[j] = pa[j * ia] + pb[j * ib];
                    }
                });
    return o;
}

Tensor reduceSumTo(const Tensor& g, const Broadcast& bc, bool first, const Shape& shape) {
    Tensor o = Tensor::zeros(shape);
    if (bc.out.empty()) {
        o.f32()[0] = g.f32()[0];
        return o;
    }
    const std::vector<int64_t>& st = first ? bc.sa : bc.sb;
    const int64_t inner = bc.out.back(), rows = numel(bc.out) / std::max<int64_t>(1, inner);
    for (int64_t r = 0; r < rows; ++r) {
        int64_t oa, ob;
        rowOffsets(bc, r, oa, ob);
        float* dst = o.f32() + (first ? oa : ob);
        const float* src = g.f32() + r * inner;
        const int64_t step = st.back();
        for (int64_t j = 0; j < inner; ++j) dst[j * step] += src[j];
    }
    return o;
}

Tensor globalAvgPool(const Tensor& x) {
    const int64_t N = x.dim(0), C = x.dim(1), HW = x.dim(2) * x.dim(3);
    const float inv = 1.f / static_cast<float>(HW);
    Tensor o = Tensor::empty({N, C});
    const float* px = x.f32();
    parallelFor(N * C, std::max<int64_t>(1, (1 << 15) / std::max<int64_t>(1, HW)),
                [&](int64_t b, int64_t e) {
                    for (int64_t p = b; p < e; ++p) {
                        float s = 0;
                        for (int64_t i = 0; i < HW; ++i) s += px[p * HW + i];
                        o.f32()[p] = s * inv;
                    }
                });
    return o;
}

Tensor globalAvgPoolGrad(const Tensor& g, const Shape& inShape) {
    const int64_t HW = inShape[2] * inShape[3];
    const float inv = 1.f / static_cast<float>(HW);
    Tensor d = Tensor::empty(inShape);
    const int64_t planes = g.numel();
    parallelFor(planes, std::max<int64_t>(1, (1 << 15) / std::max<int64_t>(1, HW)),
                [&](int64_t b, int64_t e) {
                    for (int64_t p = b; p < e; ++p) {
                        const float v = g.f32()[p] * inv;
                        float* dp = d.f32() + p * HW;
                        for (int64_t i = 0; i < HW; ++i) dp[i] = v;
                    }
                });
    return d;
}

}  // namespace ts::engine::cpu
