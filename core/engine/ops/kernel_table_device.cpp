// Device::CUDA's kernel table: each kernel allocates its outputs (and scratch) from the device
// pool and calls the tensors' DeviceBackend (the CUDA backend, or its CPU emulation in the
// tests). GEMMs are the backend's (cuBLAS on CUDA). Conv2D is im2col over the batch + one
// strided batched GEMM (the input itself for a 1x1 stride-1 convolution), its filter gradient
// one GEMM over the whole batch of channel-major columns, its input gradient a strided batched
// GEMM + col2im; a grouped Conv2D runs those per group on strided slices; depthwise has its
// own kernels. Every op of ops.h has its device form here.
#include <stdexcept>

#include "core/engine/device/device.h"
#include "core/engine/ops/conv_geometry.h"
#include "core/engine/ops/kernel_table.h"

namespace ts::engine {
namespace {

using detail::ConvGeom;
using kernels::Binary;
using kernels::ConvShape;
using kernels::kMaxDims;
using kernels::PoolShape;
using kernels::Unary;

DeviceBackend& be(const Tensor& t) {
    return backendOf(t.device());
}

Tensor like(const Tensor& t, const Shape& shape, DType dtype = DType::Float32) {
    return emptyOn(t.device(), shape, dtype);
}

Tensor unary(Unary op, const Tensor& x, float alpha) {
    Tensor y = like(x, x.shape());
    be(x).unary(op, x.f32(), y.f32(), x.numel(), alpha);
    return y;
}

Tensor binary(Binary op, const Tensor& a, const Tensor& b) {
    Tensor y = like(a, a.shape());
    be(a).binary(op, a.f32(), b.f32(), y.f32(), a.numel());
    return y;
}

Tensor divGradB(const Tensor& g, const Tensor& a, const Tensor& b) {
    Tensor y = like(g, g.shape());
    be(g).divGradB(g.f32(), a.f32(), b.f32(), y.f32(), y.numel());
    return y;
}

Tensor gemm(const Tensor& A, bool tA, const Tensor& B, bool tB) {
    const auto [M, N, K] = detail::gemmShape(A, tA, B, tB);
    Tensor C = like(A, {M, N});
    be(A).sgemm(tA, tB, M, N, K, 1.f, A.f32(), A.dim(1), B.f32(), B.dim(1), 0.f, C.f32(), N);
    return C;
}

Tensor biasAdd(const Tensor& x, const Tensor& b, int64_t N, int64_t C, int64_t inner) {
    Tensor y = like(x, x.shape());
    be(x).biasAdd(x.f32(), b.f32(), y.f32(), N, C, inner);
    return y;
}

Tensor biasGrad(const Tensor& g, int64_t N, int64_t C, int64_t inner) {
    Tensor db = like(g, {C});
    be(g).biasGrad(g.f32(), db.f32(), N, C, inner);
    return db;
}

Tensor logSoftmax(const Tensor& x) {
    Tensor y = like(x, x.shape());
    be(x).logSoftmax(x.f32(), y.f32(), x.dim(0), x.dim(1));
    return y;
}

Tensor softmax(const Tensor& x) {
    return unary(Unary::Exp, logSoftmax(x), 0.f);
}

Tensor softmaxGrad(const Tensor& g, const Tensor& y) {
    Tensor dx = like(g, g.shape());
    be(g).softmaxGrad(g.f32(), y.f32(), dx.f32(), dx.dim(0), dx.dim(1));
    return dx;
}

Tensor logSoftmaxGrad(const Tensor& g, const Tensor& y) {
    Tensor dx = like(g, g.shape());
    be(g).logSoftmaxGrad(g.f32(), y.f32(), dx.f32(), dx.dim(0), dx.dim(1));
    return dx;
}

Tensor crossEntropy(const Tensor& logits, const Tensor& labels, const Tensor& logp) {
    Tensor loss = like(logits, {});
    be(logits).crossEntropy(logits.f32(), labels.i32(), logp.f32(), loss.f32(), logits.dim(0),
                            logits.dim(1));
    return loss;
}

Tensor crossEntropyGrad(const Tensor& g, const Tensor& logp, const Tensor& labels) {
    Tensor dx = like(logp, logp.shape());
    be(logp).crossEntropyGrad(g.f32(), logp.f32(), labels.i32(), dx.f32(), logp.dim(0),
                              logp.dim(1));
    return dx;
}

Tensor mse(const Tensor& a, const Tensor& b) {
    Tensor loss = like(a, {});
    be(a).mse(a.f32(), b.f32(), loss.f32(), a.numel());
    return loss;
}

Tensor mseGrad(const Tensor& g, const Tensor& a, const Tensor& b) {
    Tensor dx = like(a, a.shape());
    be(a).mseGrad(g.f32(), a.f32(), b.f32(), dx.f32(), dx.numel());
    return dx;
}

/// One group's geometry; `groups` > 1: its channels are a slice of tensors with groups * C
/// input and groups * O output channels.
ConvShape convShape(const ConvGeom& g) {
    ConvShape s{g.N, g.C, g.H, g.W, g.O, g.KH, g.KW, g.OH, g.OW, g.sh, g.sw, g.pt, g.pl};
    s.xs = g.groups * g.chw();
    return s;
}
/// Floats from one sample of y (and dy) to the next.
int64_t ystride(const ConvGeom& g) {
    return g.groups * g.O * g.ohw();
}

/// A scratch tensor of n floats on t's device (from the pool: released when it goes, which
/// is safe as the stream runs in order).
Tensor scratch(const Tensor& t, int64_t n) {
    return like(t, {n});
}

/// y (samples ystride apart) = w[O, CKK] x columns of x, per sample.
void convForward(DeviceBackend& b, const Tensor& like, const float* x, const float* w, float* y,
                 const ConvGeom& g) {
    const ConvShape s = convShape(g);
    const int64_t ckk = s.ckk(), ohw = s.ohw();
    if (detail::pointwise(g)) {  // the input is its own column matrix
        b.sgemmStrided(false, false, s.O, ohw, ckk, 1.f, w, ckk, 0, x, ohw, s.xstride(), 0.f, y,
                       ohw, ystride(g), s.N);
        return;
    }
    const Tensor cols = scratch(like, s.N * ckk * ohw);
    b.im2col(x, cols.f32(), s);
    b.sgemmStrided(false, false, s.O, ohw, ckk, 1.f, w, ckk, 0, cols.f32(), ohw, ckk * ohw, 0.f, y,
                   ohw, ystride(g), s.N);
}

/// dw[O, CKK] = dy^T[O][N*OHW] x columns^T[CKK][N*OHW]^T: one GEMM over the batch.
void convFilter(DeviceBackend& b, const Tensor& like, const float* dy, const float* x, float* dw,
                const ConvGeom& g) {
    const ConvShape s = convShape(g);
    const int64_t ckk = s.ckk(), ohw = s.ohw(), nohw = s.N * ohw;
    const Tensor colsT = scratch(like, ckk * nohw), dyT = scratch(like, s.O * nohw);
    b.im2colT(x, colsT.f32(), s);
    kernels::PermuteShape p;
    p.rank = 3;
    p.out[0] = s.O, p.out[1] = s.N, p.out[2] = ohw;
    p.stride[0] = ohw, p.stride[1] = ystride(g), p.stride[2] = 1;
    b.permute(dy, dyT.f32(), s.O * nohw, p);
    b.sgemm(false, true, s.O, ckk, nohw, 1.f, dyT.f32(), nohw, colsT.f32(), nohw, 0.f, dw, ckk);
}

/// dx = col2im(W^T[CKK, O] x dy_n) (W^T x dy_n itself for a 1x1 stride-1 convolution).
void convInput(DeviceBackend& b, const Tensor& like, const float* dy, const float* w, float* dx,
               const ConvGeom& g) {
    const ConvShape s = convShape(g);
    const int64_t ckk = s.ckk(), ohw = s.ohw();
    if (detail::pointwise(g)) {
        b.sgemmStrided(true, false, ckk, ohw, s.O, 1.f, w, ckk, 0, dy, ohw, ystride(g), 0.f, dx,
                       ohw, s.xstride(), s.N);
        return;
    }
    const Tensor cols = scratch(like, s.N * ckk * ohw);
    b.sgemmStrided(true, false, ckk, ohw, s.O, 1.f, w, ckk, 0, dy, ohw, ystride(g), 0.f, cols.f32(),
                   ohw, ckk * ohw, s.N);
    b.col2im(cols.f32(), dx, s);
}

Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor& bias, const ConvGeom& g) {
    Tensor y = like(x, {g.N, g.O, g.OH, g.OW});
    convForward(be(x), x, x.f32(), w.f32(), y.f32(), g);
    if (bias.defined()) be(x).biasAdd(y.f32(), bias.f32(), y.f32(), g.N, g.O, g.ohw());
    return y;
}

Tensor conv2dFilter(const Tensor& dy, const Tensor& x, const ConvGeom& g) {
    Tensor dw = like(dy, {g.O, g.C, g.KH, g.KW});
    convFilter(be(dy), dy, dy.f32(), x.f32(), dw.f32(), g);
    return dw;
}

Tensor conv2dInput(const Tensor& dy, const Tensor& w, const ConvGeom& g) {
    Tensor dx = like(dy, {g.N, g.C, g.H, g.W});
    convInput(be(dy), dy, dy.f32(), w.f32(), dx.f32(), g);
    return dx;
}

// Grouped: the one-group kernels on each group's slices (C and O of g are per group).

Tensor groupedConv2d(const Tensor& x, const Tensor& w, const Tensor& bias, const ConvGeom& g) {
    Tensor y = like(x, {g.N, g.groups * g.O, g.OH, g.OW});
    for (int64_t gi = 0; gi < g.groups; ++gi)
        convForward(be(x), x, x.f32() + gi * g.chw(), w.f32() + gi * g.O * g.ckk(),
                    y.f32() + gi * g.O * g.ohw(), g);
    if (bias.defined()) be(x).biasAdd(y.f32(), bias.f32(), y.f32(), g.N, g.groups * g.O, g.ohw());
    return y;
}

Tensor groupedFilter(const Tensor& dy, const Tensor& x, const ConvGeom& g) {
    Tensor dw = like(dy, {g.groups * g.O, g.C, g.KH, g.KW});
    for (int64_t gi = 0; gi < g.groups; ++gi)
        convFilter(be(dy), dy, dy.f32() + gi * g.O * g.ohw(), x.f32() + gi * g.chw(),
                   dw.f32() + gi * g.O * g.ckk(), g);
    return dw;
}

Tensor groupedInput(const Tensor& dy, const Tensor& w, const ConvGeom& g) {
    Tensor dx = like(dy, {g.N, g.groups * g.C, g.H, g.W});
    for (int64_t gi = 0; gi < g.groups; ++gi)  // each group writes its own channels of dx
        convInput(be(dy), dy, dy.f32() + gi * g.O * g.ohw(), w.f32() + gi * g.O * g.ckk(),
                  dx.f32() + gi * g.chw(), g);
    return dx;
}

// Depthwise: one input and one output channel per group (g.C == g.O == 1).

ConvShape depthwiseShape(const ConvGeom& g) {
    return {g.N, g.groups, g.H, g.W, g.groups, g.KH, g.KW, g.OH, g.OW, g.sh, g.sw, g.pt, g.pl};
}

Tensor depthwiseConv2d(const Tensor& x, const Tensor& w, const Tensor& bias, const ConvGeom& g) {
    Tensor y = like(x, {g.N, g.groups, g.OH, g.OW});
    be(x).depthwise(x.f32(), w.f32(), bias.defined() ? bias.f32() : nullptr, y.f32(),
                    depthwiseShape(g));
    return y;
}

Tensor depthwiseFilter(const Tensor& dy, const Tensor& x, const ConvGeom& g) {
    const ConvShape s = depthwiseShape(g);
    Tensor dw = like(dy, {g.groups, 1, g.KH, g.KW});
    const int64_t units = g.groups * g.KH * g.KW;
    const Tensor work = scratch(dy, 2 * units * kernels::reduceSlices(g.N * g.ohw()));
    be(dy).depthwiseFilter(dy.f32(), x.f32(), dw.f32(), reinterpret_cast<double*>(work.raw()), s);
    return dw;
}

Tensor depthwiseInput(const Tensor& dy, const Tensor& w, const ConvGeom& g) {
    Tensor dx = like(dy, {g.N, g.groups, g.H, g.W});
    be(dy).depthwiseInput(dy.f32(), w.f32(), dx.f32(), depthwiseShape(g));
    return dx;
}

Tensor maxPool(const Tensor& x, const PoolShape& g, const Tensor& argmax) {
    Tensor y = like(x, {g.N, g.C, g.OH, g.OW});
    be(x).maxPool(x.f32(), y.f32(), argmax.i32(), g);
    return y;
}

Tensor maxPoolGrad(const Tensor& g, const Tensor& argmax, const PoolShape& s) {
    Tensor dx = like(g, {s.N, s.C, s.H, s.W});
    be(g).maxPoolGrad(g.f32(), argmax.i32(), dx.f32(), s);
    return dx;
}

Tensor avgPool(const Tensor& x, const PoolShape& g) {
    Tensor y = like(x, {g.N, g.C, g.OH, g.OW});
    be(x).avgPool(x.f32(), y.f32(), g);
    return y;
}

Tensor avgPoolGrad(const Tensor& g, const PoolShape& s) {
    Tensor dx = like(g, {s.N, s.C, s.H, s.W});
    be(g).avgPoolGrad(g.f32(), dx.f32(), s);
    return dx;
}

Tensor batchNorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, const Tensor& runMean,
                 const Tensor& runVar, const Tensor& mean, const Tensor& invstd,
                 const kernels::BatchNormArgs& a) {
    Tensor y = like(x, x.shape());
    const Tensor work = scratch(x, 2 * a.workDoubles());
    be(x).batchNorm(x.f32(), gamma.f32(), beta.f32(), runMean.f32(), runVar.f32(), y.f32(),
                    mean.f32(), invstd.f32(), reinterpret_cast<double*>(work.raw()), a);
    return y;
}

std::vector<Tensor> batchNormGrad(const Tensor& g, const Tensor& x, const Tensor& gamma,
                                  const Tensor& mean, const Tensor& invstd,
                                  const kernels::BatchNormArgs& a) {
    Tensor dx = like(g, g.shape()), dgamma = like(g, {a.C}), dbeta = like(g, {a.C});
    const Tensor work = scratch(g, 2 * a.workDoubles());
    be(g).batchNormGrad(g.f32(), x.f32(), gamma.f32(), mean.f32(), invstd.f32(), dx.f32(),
                        dgamma.f32(), dbeta.f32(), reinterpret_cast<double*>(work.raw()), a);
    return {dx, dgamma, dbeta};
}

Tensor globalAvgPool(const Tensor& x) {
    Tensor y = like(x, {x.dim(0), x.dim(1)});
    be(x).globalAvgPool(x.f32(), y.f32(), x.dim(0) * x.dim(1), x.dim(2) * x.dim(3));
    return y;
}

Tensor globalAvgPoolGrad(const Tensor& g, const Shape& inShape) {
    Tensor dx = like(g, inShape);
    be(g).globalAvgPoolGrad(g.f32(), dx.f32(), inShape[0] * inShape[1], inShape[2] * inShape[3]);
    return dx;
}

/// The rank limit of the device's shape kernels (kernels::kMaxDims), said by op name.
void requireRank(const char* op, size_t rank) {
    if (rank > static_cast<size_t>(kMaxDims))
        throw std::invalid_argument(std::string(op) + ": a device tensor of rank " +
                                    std::to_string(rank) + " (at most " + std::to_string(kMaxDims) +
                                    " on a device)");
}

Tensor broadcastAdd(const Tensor& a, const Tensor& b, const detail::Broadcast& bc) {
    requireRank("Add", bc.out.size());
    Tensor y = like(a, bc.out);
    kernels::BroadcastShape s;
    s.rank = static_cast<int>(bc.out.size());
    for (int d = 0; d < s.rank; ++d) {
        const size_t k = static_cast<size_t>(d);
        s.out[d] = bc.out[k], s.sa[d] = bc.sa[k], s.sb[d] = bc.sb[k];
    }
    be(a).broadcastAdd(a.f32(), b.f32(), y.f32(), y.numel(), s);
    return y;
}

Tensor reduceSumTo(const Tensor& g, const detail::Broadcast& bc, bool first, const Shape& shape) {
    requireRank("ReduceSum", bc.out.size());
    Tensor out = like(g, shape);
    const std::vector<int64_t>& st = first ? bc.sa : bc.sb;
    kernels::ReduceShape s;
    s.rank = static_cast<int>(bc.out.size());
    for (int d = 0; d < s.rank; ++d) {
        const size_t k = static_cast<size_t>(d);
        s.out[d] = bc.out[k];
        s.dims[d] = st[k] == 0 ? 1 : bc.out[k];  // stride 0: the operand's dim was 1
    }
    be(g).reduceSumTo(g.f32(), out.f32(), out.numel(), s);
    return out;
}

/// Product of dims [from, to).
int64_t span(const Shape& s, int from, int to) {
    int64_t n = 1;
    for (int i = from; i < to; ++i) n *= s[static_cast<size_t>(i)];
    return n;
}

Tensor concat(const std::vector<Tensor>& xs, int axis) {
    Shape out = xs[0].shape();
    out[static_cast<size_t>(axis)] = 0;
    for (const Tensor& x : xs) out[static_cast<size_t>(axis)] += x.dim(axis);
    Tensor y = like(xs[0], out);
    const int64_t outer = span(out, 0, axis), inner = span(out, axis + 1, xs[0].rank());
    const int64_t row = out[static_cast<size_t>(axis)] * inner;
    int64_t off = 0;
    for (const Tensor& x : xs) {
        const int64_t n = x.dim(axis) * inner;
        if (n > 0 && outer > 0) be(x).copy2d(y.f32() + off, row, x.f32(), n, outer, n);
        off += n;
    }
    return y;
}

std::vector<Tensor> split(const Tensor& x, int axis, const std::vector<int64_t>& lens) {
    const int64_t outer = span(x.shape(), 0, axis), inner = span(x.shape(), axis + 1, x.rank());
    const int64_t row = x.dim(axis) * inner;
    std::vector<Tensor> outs;
    int64_t off = 0;
    for (int64_t len : lens) {
        Shape s = x.shape();
        s[static_cast<size_t>(axis)] = len;
        outs.push_back(like(x, s));
        const int64_t n = len * inner;
        if (n > 0 && outer > 0) be(x).copy2d(outs.back().f32(), n, x.f32() + off, row, outer, n);
        off += n;
    }
    return outs;
}

Tensor transpose(const Tensor& x, const std::vector<int>& perm) {
    requireRank("Transpose", perm.size());
    const int r = x.rank();
    std::vector<int64_t> inStride(static_cast<size_t>(r), 1);
    for (int i = r - 2; i >= 0; --i)
        inStride[static_cast<size_t>(i)] = inStride[static_cast<size_t>(i + 1)] * x.dim(i + 1);
    kernels::PermuteShape s;
    s.rank = r;
    Shape out(static_cast<size_t>(r));
    for (int d = 0; d < r; ++d) {
        const int src = perm[static_cast<size_t>(d)];
        out[static_cast<size_t>(d)] = x.dim(src);
        s.out[d] = x.dim(src);
        s.stride[d] = inStride[static_cast<size_t>(src)];
    }
    Tensor y = like(x, out);
    be(x).permute(x.f32(), y.f32(), y.numel(), s);
    return y;
}

Tensor pad2d(const Tensor& x, int top, int bottom, int left, int right) {
    const kernels::PadShape s{x.dim(0) * x.dim(1),     x.dim(2), x.dim(3), x.dim(2) + top + bottom,
                              x.dim(3) + left + right, top,      left};
    Tensor y = like(x, {x.dim(0), x.dim(1), s.OH, s.OW});
    be(x).pad2d(x.f32(), y.f32(), s);
    return y;
}

Tensor pad2dGrad(const Tensor& g, const Shape& inShape, int top, int left) {
    const kernels::PadShape s{
        inShape[0] * inShape[1], inShape[2], inShape[3], g.dim(2), g.dim(3), top, left};
    Tensor dx = like(g, inShape);
    be(g).pad2dGrad(g.f32(), dx.f32(), s);
    return dx;
}

void sgd(const Tensor& w, const Tensor& g, const Tensor& v, const kernels::SgdArgs& a) {
    be(w).sgd(w.f32(), g.f32(), v.f32(), w.numel(), a);
}

void adam(const Tensor& w, const Tensor& g, const Tensor& m, const Tensor& v,
          const kernels::AdamArgs& a) {
    be(w).adam(w.f32(), g.f32(), m.f32(), v.f32(), w.numel(), a);
}

/// The updates of many parameters, a chunk of TensorChunk::kMax per launch.
template <class Launch>
void chunked(const std::vector<Tensor>& w, const std::vector<Tensor>& g,
             const std::vector<Tensor>& m, const std::vector<Tensor>& v, Launch launch) {
    kernels::TensorChunk c;
    for (size_t i = 0; i < w.size(); ++i) {
        c.w[c.count] = w[i].f32();
        c.g[c.count] = g[i].f32();
        c.m[c.count] = m[i].f32();
        c.v[c.count] = v.empty() ? nullptr : v[i].f32();
        c.n[c.count] = w[i].numel();
        if (++c.count == kernels::TensorChunk::kMax || i + 1 == w.size()) {
            launch(c);
            c.count = 0;
        }
    }
}

void sgdMany(const std::vector<Tensor>& w, const std::vector<Tensor>& g,
             const std::vector<Tensor>& v, const kernels::SgdArgs& a) {
    if (w.empty()) return;
    DeviceBackend& b = be(w[0]);
    chunked(w, g, v, {}, [&](const kernels::TensorChunk& c) { b.sgdChunk(c, a); });
}

void adamMany(const std::vector<Tensor>& w, const std::vector<Tensor>& g,
              const std::vector<Tensor>& m, const std::vector<Tensor>& v,
              const kernels::AdamArgs& a) {
    if (w.empty()) return;
    DeviceBackend& b = be(w[0]);
    chunked(w, g, m, v, [&](const kernels::TensorChunk& c) { b.adamChunk(c, a); });
}

const KernelTable kDevice{
    .device = Device::CUDA,
    .unary = &unary,
    .binary = &binary,
    .divGradB = &divGradB,
    .broadcastAdd = &broadcastAdd,
    .reduceSumTo = &reduceSumTo,
    .gemm = &gemm,
    .biasAdd = &biasAdd,
    .biasGrad = &biasGrad,
    .softmax = &softmax,
    .logSoftmax = &logSoftmax,
    .softmaxGrad = &softmaxGrad,
    .logSoftmaxGrad = &logSoftmaxGrad,
    .crossEntropy = &crossEntropy,
    .crossEntropyGrad = &crossEntropyGrad,
    .mse = &mse,
    .mseGrad = &mseGrad,
    .conv2d = &conv2d,
    .conv2dFilter = &conv2dFilter,
    .conv2dInput = &conv2dInput,
    .depthwiseConv2d = &depthwiseConv2d,
    .depthwiseFilter = &depthwiseFilter,
    .depthwiseInput = &depthwiseInput,
    .groupedConv2d = &groupedConv2d,
    .groupedFilter = &groupedFilter,
    .groupedInput = &groupedInput,
    .maxPool = &maxPool,
    .maxPoolGrad = &maxPoolGrad,
    .avgPool = &avgPool,
    .avgPoolGrad = &avgPoolGrad,
    .globalAvgPool = &globalAvgPool,
    .globalAvgPoolGrad = &globalAvgPoolGrad,
    .batchNorm = &batchNorm,
    .batchNormGrad = &batchNormGrad,
    .concat = &concat,
    .split = &split,
    .transpose = &transpose,
    .pad2d = &pad2d,
    .pad2dGrad = &pad2dGrad,
    .sgd = &sgd,
    .adam = &adam,
    .sgdMany = &sgdMany,
    .adamMany = &adamMany,
};

}  // namespace

const KernelTable& deviceKernels() {
    return kDevice;
}

}  // namespace ts::engine
