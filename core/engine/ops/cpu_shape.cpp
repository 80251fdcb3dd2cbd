// The host's shape kernels: Concat, Split, Transpose, Pad. Each copies whole contiguous runs:
// a dim range that keeps its order is one memcpy.
#include <algorithm>
#include <cstring>

#include "core/engine/ops/cpu_kernels.h"
#include "core/engine/tensor/parallel.h"

namespace ts::engine::cpu {

namespace {

/// Product of dims [from, to).
int64_t span(const Shape& s, int from, int to) {
    int64_t n = 1;
    for (int i = from; i < to; ++i) n *= s[static_cast<size_t>(i)];
    return n;
}

/// Copies pieces[i] (each [outer, len_i * inner] as rows) into `dst` laid out as
/// [outer, total * inner] (gather = true), or the reverse (scatter from dst into pieces).
void copyAlongAxis(float* whole, const std::vector<float*>& pieces,
                   const std::vector<int64_t>& lens, int64_t outer, int64_t inner, bool gather) {
    int64_t total = 0;
    for (int64_t l : lens) total += l;
    const int64_t row = total * inner;
    parallelFor(outer, std::max<int64_t>(1, (1 << 15) / std::max<int64_t>(1, row)),
                [&](int64_t o0, int64_t o1) {
                    for (int64_t o = o0; o < o1; ++o) {
                        int64_t off = 0;
                        for (size_t i = 0; i < pieces.size(); ++i) {
                            const int64_t n = lens[i] * inner;
                            float* w = whole + o * row + off;
                            float* p = pieces[i] + o * n;
                            if (gather)
                                std::memcpy(w, p, sizeof(float) * static_cast<size_t>(n));
                            else
                                std::memcpy(p, w, sizeof(float) * static_cast<size_t>(n));
                            off += n;
                        }
                    }
                });
}

}  // namespace

Tensor concat(const std::vector<Tensor>& xs, int axis) {
    Shape out = xs[0].shape();
    std::vector<int64_t> lens;
    std::vector<float*> ptrs;
    out[static_cast<size_t>(axis)] = 0;
    for (const Tensor& x : xs) {
        lens.push_back(x.dim(axis));
        ptrs.push_back(x.f32());
        out[static_cast<size_t>(axis)] += x.dim(axis);
    }
    Tensor o = Tensor::empty(out);
    copyAlongAxis(o.f32(), ptrs, lens, span(out, 0, axis),
                  span(out, axis + 1, static_cast<int>(out.size())), true);
    return o;
}

/// A piece whose length is 0 is an empty tensor.
std::vector<Tensor> split(const Tensor& x, int axis, const std::vector<int64_t>& lens) {
    std::vector<Tensor> outs;
    std::vector<float*> ptrs;
    for (int64_t l : lens) {
        Shape s = x.shape();
        s[static_cast<size_t>(axis)] = l;
        outs.push_back(Tensor::empty(s));
        ptrs.push_back(outs.back().f32());
    }
    copyAlongAxis(x.f32(), ptrs, lens, span(x.shape(), 0, axis),
                  span(x.shape(), axis + 1, x.rank()), false);
    return outs;
}

Tensor transpose(const Tensor& x, const std::vector<int>& perm) {
    const int r = x.rank();
    Shape out(static_cast<size_t>(r));
    for (int i = 0; i < r; ++i) out[static_cast<size_t>(i)] = x.dim(perm[static_cast<size_t>(i)]);
    Tensor o = Tensor::empty(out);
    // Trailing dims that keep their place move as one contiguous block.
    int keep = r;
    while (keep > 0 && perm[static_cast<size_t>(keep - 1)] == keep - 1) --keep;
    const int64_t block = span(x.shape(), keep, r);
    std::vector<int64_t> inStride(static_cast<size_t>(r), 1);
    for (int i = r - 2; i >= 0; --i)
        inStride[static_cast<size_t>(i)] = inStride[static_cast<size_t>(i + 1)] * x.dim(i + 1);
    const int64_t blocks = span(out, 0, keep);
    const float* px = x.f32();
    float* po = o.f32();
    parallelFor(blocks, std::max<int64_t>(1, (1 << 14) / std::max<int64_t>(1, block)),
                [&](int64_t b0, int64_t b1) {
                    for (int64_t b = b0; b < b1; ++b) {
                        int64_t rem = b, src = 0;
                        for (int i = keep - 1; i >= 0; --i) {
                            const int64_t d = out[static_cast<size_t>(i)];
                            src += (rem % d) *
                                   inStride[static_cast<size_t>(perm[static_cast<size_t>(i)])];
                            rem /= d;
                        }
                        if (block == 1)
                            po[b] = px[src];
                        else
                            std::memcpy(po + b * block, px + src,
                                        sizeof(float) * static_cast<size_t>(block));
                    }
                });
    return o;
}

Tensor pad2d(const Tensor& x, int top, int bottom, int left, int right) {
    const int64_t NC = x.dim(0) * x.dim(1), H = x.dim(2), W = x.dim(3);
    const int64_t OH = H + top + bottom, OW = W + left + right;
    Tensor o = Tensor::zeros({x.dim(0), x.dim(1), OH, OW});
    for (int64_t p = 0; p < NC; ++p)
        for (int64_t h = 0; h < H; ++h)
            std::memcpy(o.f32() + (p * OH + h + top) * OW + left, x.f32() + (p * H + h) * W,
                        sizeof(float) * static_cast<size_t>(W));
    return o;
}

Tensor pad2dGrad(const Tensor& g, const Shape& inShape, int top, int left) {
    const int64_t NC = inShape[0] * inShape[1], H = inShape[2], W = inShape[3];
    const int64_t OH = g.dim(2), OW = g.dim(3);
    Tensor d = Tensor::empty(inShape);
    for (int64_t p = 0; p < NC; ++p)
        for (int64_t h = 0; h < H; ++h)
            std::memcpy(d.f32() + (p * H + h) * W, g.f32() + (p * OH + h + top) * OW + left,
                        sizeof(float) * static_cast<size_t>(W));
    return d;
}

}  // namespace ts::engine::cpu
