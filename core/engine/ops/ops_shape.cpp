// Shape ops: Concat, Split (and chunk), Transpose (and ShuffleNet's channel shuffle), Pad.
// Each copies whole contiguous runs: a dim range that keeps its order is one memcpy.
#include <algorithm>
#include <cstring>
#include <numeric>

#include "core/engine/ops/op_util.h"
#include "core/engine/ops/ops.h"
#include "core/engine/tensor/parallel.h"

namespace ts::engine::ops {

using detail::requireF32;
using detail::requireHost;
using detail::run1;

namespace {

int normAxis(std::string_view op, int axis, int rank) {
    const int a = axis < 0 ? axis + rank : axis;
    if (a < 0 || a >= rank)
        throw std::invalid_argument(std::string(op) + ": axis " + std::to_string(axis) +
                                    " out of range for rank " + std::to_string(rank));
    return a;
}

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

/// Concatenates `xs` along `axis` (shapes checked by the caller).
Tensor concatKernel(const std::vector<Tensor>& xs, int axis) {
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

/// Pieces of `x` along `axis`; a piece whose length is 0 is an empty tensor.
std::vector<Tensor> splitKernel(const Tensor& x, int axis, const std::vector<int64_t>& lens) {
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

Tensor transposeKernel(const Tensor& x, const std::vector<int>& perm) {
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

}  // namespace

Tensor concat(const std::vector<Tensor>& xs, int axis) {
    if (xs.empty()) throw std::invalid_argument("Concat: no inputs");
    for (const Tensor& x : xs) {
        requireHost("Concat", x);
        requireF32("Concat", x);
    }
    const int a = normAxis("Concat", axis, xs[0].rank());
    for (const Tensor& x : xs) {
        bool ok = x.rank() == xs[0].rank();
        for (int i = 0; ok && i < x.rank(); ++i) ok = i == a || x.dim(i) == xs[0].dim(i);
        if (!ok)
            throw std::invalid_argument("Concat: shapes " + shapeString(xs[0].shape()) + " and " +
                                        shapeString(x.shape()) + " differ off axis " +
                                        std::to_string(a));
    }
    Tensor out = run1(
        "Concat", xs, [a](std::vector<Tensor>& in) { return concatKernel(in, a); }, false,
        detail::attrsIfObserved([a] { return "\"axis\":" + std::to_string(a); }));
    std::vector<int64_t> lens;
    for (const Tensor& x : xs) lens.push_back(x.dim(a));
    return record(out, "Concat", xs, [a, lens](const Tensor& g) {
        return Dispatcher::current().run(
            "ConcatGrad", {g}, [&](std::vector<Tensor>& in) { return splitKernel(in[0], a, lens); },
            true);
    });
}

std::vector<Tensor> split(const Tensor& x, int axis, const std::vector<int64_t>& sizes) {
    requireHost("Split", x);
    requireF32("Split", x);
    const int a = normAxis("Split", axis, x.rank());
    int64_t total = 0;
    for (int64_t s : sizes) {
        if (s < 0) throw std::invalid_argument("Split: negative size");
        total += s;
    }
    if (sizes.empty() || total != x.dim(a))
        throw std::invalid_argument("Split: sizes sum to " + std::to_string(total) + ", axis " +
                                    std::to_string(a) + " of " + shapeString(x.shape()) + " has " +
                                    std::to_string(x.dim(a)));
    std::vector<Tensor> outs = Dispatcher::current().run(
        "Split", {x}, [&](std::vector<Tensor>& in) { return splitKernel(in[0], a, sizes); }, false,
        detail::attrsIfObserved([&] {
            return "\"axis\":" + std::to_string(a) + ",\"split\":" + detail::jsonList(sizes);
        }));
    const Shape inShape = x.shape();
    return recordMulti(outs, "Split", {x}, [a, sizes, inShape](const std::vector<Tensor>& gs) {
        std::vector<Tensor> parts = gs;
        for (size_t i = 0; i < parts.size(); ++i)
            if (!parts[i].defined()) {
                Shape s = inShape;
                s[static_cast<size_t>(a)] = sizes[i];
                parts[i] = Tensor::zeros(s);
            }
        return std::vector<Tensor>{run1(
            "SplitGrad", parts, [a](std::vector<Tensor>& in) { return concatKernel(in, a); },
            true)};
    });
}

std::vector<Tensor> chunk(const Tensor& x, int chunks, int axis) {
    requireF32("Split", x);
    const int a = normAxis("Split", axis, x.rank());
    if (chunks < 1 || x.dim(a) % chunks != 0)
        throw std::invalid_argument("Split: " + std::to_string(x.dim(a)) +
                                    " does not divide into " + std::to_string(chunks) +
                                    " equal chunks");
    return split(x, a, std::vector<int64_t>(static_cast<size_t>(chunks), x.dim(a) / chunks));
}

Tensor transpose(const Tensor& x, const std::vector<int>& perm) {
    requireHost("Transpose", x);
    requireF32("Transpose", x);
    std::vector<int> sorted = perm;
    std::sort(sorted.begin(), sorted.end());
    std::vector<int> iota(static_cast<size_t>(x.rank()));
    std::iota(iota.begin(), iota.end(), 0);
    if (sorted != iota)
        throw std::invalid_argument("Transpose: perm is not a permutation of the " +
                                    std::to_string(x.rank()) + " dims of " +
                                    shapeString(x.shape()));
    Tensor out = run1(
        "Transpose", {x}, [&](std::vector<Tensor>& in) { return transposeKernel(in[0], perm); },
        false, detail::attrsIfObserved([&] { return "\"perm\":" + detail::jsonList(perm); }));
    std::vector<int> inverse(perm.size());
    for (size_t i = 0; i < perm.size(); ++i)
        inverse[static_cast<size_t>(perm[i])] = static_cast<int>(i);
    return record(out, "Transpose", {x}, [inverse](const Tensor& g) {
        return std::vector<Tensor>{run1(
            "TransposeGrad", {g},
            [&](std::vector<Tensor>& in) { return transposeKernel(in[0], inverse); }, true)};
    });
}

Tensor channelShuffle(const Tensor& x, int groups) {
    if (x.rank() != 4 || groups < 1 || x.dim(1) % groups != 0)
        throw std::invalid_argument("ChannelShuffle: " + shapeString(x.shape()) +
                                    " does not split into " + std::to_string(groups) +
                                    " channel groups");
    const int64_t N = x.dim(0), C = x.dim(1), H = x.dim(2), W = x.dim(3);
    Tensor y = reshape(x, {N, groups, C / groups, H, W});
    y = transpose(y, {0, 2, 1, 3, 4});
    return reshape(y, {N, C, H, W});
}

Tensor pad2d(const Tensor& x, int top, int bottom, int left, int right) {
    requireHost("Pad", x);
    requireF32("Pad", x);
    if (x.rank() != 4 || top < 0 || bottom < 0 || left < 0 || right < 0)
        throw std::invalid_argument("Pad: expects NCHW and paddings >= 0, got " +
                                    shapeString(x.shape()));
    const int64_t NC = x.dim(0) * x.dim(1), H = x.dim(2), W = x.dim(3);
    const int64_t OH = H + top + bottom, OW = W + left + right;
    const std::vector<int> pads{top, left, bottom, right};
    Tensor out = run1(
        "Pad", {x},
        [&](std::vector<Tensor>& in) {
            Tensor o = Tensor::zeros({x.dim(0), x.dim(1), OH, OW});
            for (int64_t p = 0; p < NC; ++p)
                for (int64_t h = 0; h < H; ++h)
                    std::memcpy(o.f32() + (p * OH + h + top) * OW + left,
                                in[0].f32() + (p * H + h) * W,
                                sizeof(float) * static_cast<size_t>(W));
            return o;
        },
        false, detail::attrsIfObserved([&] { return "\"pads\":" + detail::jsonList(pads); }));
    const Shape inShape = x.shape();
    return record(out, "Pad", {x}, [=](const Tensor& g) {
        return std::vector<Tensor>{run1(
            "PadGrad", {g},
            [&](std::vector<Tensor>& in) {
                Tensor d = Tensor::empty(inShape);
                for (int64_t p = 0; p < NC; ++p)
                    for (int64_t h = 0; h < H; ++h)
                        std::memcpy(d.f32() + (p * H + h) * W,
                                    in[0].f32() + (p * OH + h + top) * OW + left,
                                    sizeof(float) * static_cast<size_t>(W));
                return d;
            },
            true)};
    });
}

}  // namespace ts::engine::ops
