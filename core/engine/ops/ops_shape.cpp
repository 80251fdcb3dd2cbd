// Shape ops: Concat, Split (and chunk), Transpose (and ShuffleNet's channel shuffle), Pad.
// Their host kernels are in cpu_shape.cpp, the device's in kernel_table_device.cpp.
#include <algorithm>
#include <numeric>

#include "core/engine/ops/op_util.h"
#include "core/engine/ops/ops.h"

namespace ts::engine::ops {

using detail::kernelsFor;
using detail::requireF32;
using detail::run1;
using detail::runN;

namespace {

int normAxis(std::string_view op, int axis, int rank) {
    const int a = axis < 0 ? axis + rank : axis;
    if (a < 0 || a >= rank)
        throw std::invalid_argument(std::string(op) + ": axis " + std::to_string(axis) +
                                    " out of range for rank " + std::to_string(rank));
    return a;
}

}  // namespace

Tensor concat(const std::vector<Tensor>& xs, int axis) {
    if (xs.empty()) throw std::invalid_argument("Concat: no inputs");
    const KernelTable* k = kernelsFor("Concat", xs, &KernelTable::concat, &KernelTable::split);
    for (const Tensor& x : xs) requireF32("Concat", x);
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
        k, "Concat", xs, [k, a](std::vector<Tensor>& in) { return k->concat(in, a); }, false,
        detail::attrsIfObserved([a] { return "\"axis\":" + std::to_string(a); }));
    std::vector<int64_t> lens;
    for (const Tensor& x : xs) lens.push_back(x.dim(a));
    return record(out, "Concat", xs, [k, a, lens](const Tensor& g) {
        return runN(
            k, "ConcatGrad", {g}, [&](std::vector<Tensor>& in) { return k->split(in[0], a, lens); },
            true);
    });
}

std::vector<Tensor> split(const Tensor& x, int axis, const std::vector<int64_t>& sizes) {
    const KernelTable* k = kernelsFor("Split", {&x}, &KernelTable::split, &KernelTable::concat);
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
    std::vector<Tensor> outs = runN(
        k, "Split", {x}, [&](std::vector<Tensor>& in) { return k->split(in[0], a, sizes); }, false,
        detail::attrsIfObserved([&] {
            return "\"axis\":" + std::to_string(a) + ",\"split\":" + detail::jsonList(sizes);
        }));
    const Shape inShape = x.shape();
    return recordMulti(outs, "Split", {x}, [k, a, sizes, inShape](const std::vector<Tensor>& gs) {
        std::vector<Tensor> parts = gs;
        for (size_t i = 0; i < parts.size(); ++i)
            if (!parts[i].defined()) {
                Shape s = inShape;
                s[static_cast<size_t>(a)] = sizes[i];
                parts[i] = zerosOn(k->device, s);
            }
        return std::vector<Tensor>{run1(
            k, "SplitGrad", parts, [k, a](std::vector<Tensor>& in) { return k->concat(in, a); },
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
    const KernelTable* k = kernelsFor("Transpose", {&x}, &KernelTable::transpose);
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
        k, "Transpose", {x}, [&](std::vector<Tensor>& in) { return k->transpose(in[0], perm); },
        false, detail::attrsIfObserved([&] { return "\"perm\":" + detail::jsonList(perm); }));
    std::vector<int> inverse(perm.size());
    for (size_t i = 0; i < perm.size(); ++i)
        inverse[static_cast<size_t>(perm[i])] = static_cast<int>(i);
    return record(out, "Transpose", {x}, [k, inverse](const Tensor& g) {
        return std::vector<Tensor>{run1(
            k, "TransposeGrad", {g},
            [&](std::vector<Tensor>& in) { return k->transpose(in[0], inverse); }, true)};
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
    const KernelTable* k = kernelsFor("Pad", {&x}, &KernelTable::pad2d, &KernelTable::pad2dGrad);
    requireF32("Pad", x);
    if (x.rank() != 4 || top < 0 || bottom < 0 || left < 0 || right < 0)
        throw std::invalid_argument("Pad: expects NCHW and paddings >= 0, got " +
                                    shapeString(x.shape()));
    const std::vector<int> pads{top, left, bottom, right};
    Tensor out = run1(
        k, "Pad", {x},
        [&](std::vector<Tensor>& in) { return k->pad2d(in[0], top, bottom, left, right); }, false,
        detail::attrsIfObserved([&] { return "\"pads\":" + detail::jsonList(pads); }));
    const Shape inShape = x.shape();
    return record(out, "Pad", {x}, [=](const Tensor& g) {
        return std::vector<Tensor>{run1(
            k, "PadGrad", {g},
            [&](std::vector<Tensor>& in) { return k->pad2dGrad(in[0], inShape, top, left); },
            true)};
    });
}

}  // namespace ts::engine::ops
