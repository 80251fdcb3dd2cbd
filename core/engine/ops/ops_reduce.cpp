// Broadcasting Add (numpy rules) with its ReduceSum gradient, and global average pooling.
#include <algorithm>

#include "core/engine/ops/op_util.h"
#include "core/engine/ops/ops.h"
#include "core/engine/tensor/parallel.h"

namespace ts::engine {

using detail::requireF32;
using detail::requireHost;
using detail::run1;

namespace {

/// Shapes aligned at the right; each operand's strides over the output (0 where broadcast).
struct Broadcast {
    Shape out;
    std::vector<int64_t> sa, sb;
};

Broadcast broadcastOf(const Tensor& a, const Tensor& b) {
    const size_t r = static_cast<size_t>(std::max(a.rank(), b.rank()));
    Broadcast bc{Shape(r, 1), std::vector<int64_t>(r, 0), std::vector<int64_t>(r, 0)};
    auto dimOf = [r](const Tensor& t, size_t i) -> int64_t {
        const size_t lead = r - static_cast<size_t>(t.rank());
        return i < lead ? 1 : t.dim(static_cast<int>(i - lead));
    };
    for (size_t i = 0; i < r; ++i) {
        const int64_t da = dimOf(a, i), db = dimOf(b, i);
        if (da != db && da != 1 && db != 1)
            throw std::invalid_argument("Add: shapes " + shapeString(a.shape()) + " and " +
                                        shapeString(b.shape()) + " do not broadcast");
        bc.out[i] = std::max(da, db);
    }
    int64_t ka = 1, kb = 1;
    for (size_t i = r; i-- > 0;) {
        const int64_t da = dimOf(a, i), db = dimOf(b, i);
        bc.sa[i] = da == 1 ? 0 : ka;
        bc.sb[i] = db == 1 ? 0 : kb;
        ka *= da;
        kb *= db;
    }
    return bc;
}

/// Offsets of output row `row` (all dims but the last) in a and b.
void rowOffsets(const Broadcast& bc, int64_t row, int64_t& oa, int64_t& ob) {
    oa = ob = 0;
    for (size_t i = bc.out.size() - 1; i-- > 0;) {
        const int64_t k = row % bc.out[i];
        row /= bc.out[i];
        oa += k * bc.sa[i];
        ob += k * bc.sb[i];
    }
}

Tensor addKernel(const Tensor& a, const Tensor& b, const Broadcast& bc) {
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

/// The gradient of an operand: g summed over the dims it was broadcast along, in its shape.
Tensor reduceTo(const Tensor& g, const Broadcast& bc, bool first, const Shape& shape) {
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

}  // namespace

Tensor detail::broadcastAdd(const Tensor& a, const Tensor& b) {
    requireF32("Add", a);
    requireF32("Add", b);
    const Broadcast bc = broadcastOf(a, b);
    Tensor out =
        run1("Add", {a, b}, [&](std::vector<Tensor>& in) { return addKernel(in[0], in[1], bc); });
    const Shape sa = a.shape(), sb = b.shape();
    return record(out, "Add", {a, b}, [bc, sa, sb](const Tensor& g) {
        auto grad = [&](bool first, const Shape& s) {
            if (s == bc.out) return g;
            return run1(
                "ReduceSum", {g},
                [&](std::vector<Tensor>& in) { return reduceTo(in[0], bc, first, s); }, true);
        };
        return std::vector<Tensor>{grad(true, sa), grad(false, sb)};
    });
}

Tensor ops::globalAvgPool(const Tensor& x) {
    requireHost("GlobalAvgPool", x);
    requireF32("GlobalAvgPool", x);
    if (x.rank() != 4)
        throw std::invalid_argument("GlobalAvgPool: expects NCHW, got " + shapeString(x.shape()));
    const int64_t N = x.dim(0), C = x.dim(1), HW = x.dim(2) * x.dim(3);
    const float inv = 1.f / static_cast<float>(HW);
    Tensor out = run1("GlobalAvgPool", {x}, [&](std::vector<Tensor>& in) {
        Tensor o = Tensor::empty({N, C});
        const float* px = in[0].f32();
        parallelFor(N * C, std::max<int64_t>(1, (1 << 15) / std::max<int64_t>(1, HW)),
                    [&](int64_t b, int64_t e) {
                        for (int64_t p = b; p < e; ++p) {
                            float s = 0;
                            for (int64_t i = 0; i < HW; ++i) s += px[p * HW + i];
                            o.f32()[p] = s * inv;
                        }
                    });
        return o;
    });
    const Shape inShape = x.shape();
    return record(out, "GlobalAvgPool", {x}, [inShape, HW, inv](const Tensor& g) {
        return std::vector<Tensor>{run1(
            "GlobalAvgPoolGrad", {g},
            [&](std::vector<Tensor>& in) {
                Tensor d = Tensor::empty(inShape);
                const int64_t planes = in[0].numel();
                parallelFor(planes, std::max<int64_t>(1, (1 << 15) / std::max<int64_t>(1, HW)),
                            [&](int64_t b, int64_t e) {
                                for (int64_t p = b; p < e; ++p) {
                                    const float v = in[0].f32()[p] * inv;
                                    float* dp = d.f32() + p * HW;
                                    for (int64_t i = 0; i < HW; ++i) dp[i] = v;
                                }
                            });
                return d;
            },
            true)};
    });
}

}  // namespace ts::engine
