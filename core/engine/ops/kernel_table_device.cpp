// Device::CUDA's kernel table: each kernel allocates its outputs from the device pool and
// calls the tensors' DeviceBackend (the CUDA backend, or its CPU emulation in the tests).
// GEMMs are the backend's (cuBLAS on CUDA); Conv2D is im2col over the batch + one strided
// batched GEMM. The entries left nullptr are the ops with no device form yet (docs/GPU.md).
#include "core/engine/device/device.h"
#include "core/engine/ops/kernel_table.h"

namespace ts::engine {
namespace {

using detail::ConvGeom;
using kernels::Binary;
using kernels::ConvShape;
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
    const int64_t rows = logits.dim(0), cols = logits.dim(1);
    DeviceBackend& b = be(logits);
    b.logSoftmax(logits.f32(), logp.f32(), rows, cols);
    Tensor loss = like(logits, {});
    b.crossEntropy(logp.f32(), labels.i32(), loss.f32(), rows, cols);
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

ConvShape convShape(const ConvGeom& g) {
    return {g.N, g.C, g.H, g.W, g.O, g.KH, g.KW, g.OH, g.OW, g.sh, g.sw, g.pt, g.pl};
}

/// The column matrices [N][C*KH*KW][OH*OW] of x.
Tensor columns(const Tensor& x, const ConvShape& s) {
    Tensor cols = like(x, {s.N, s.ckk() * s.ohw()});
    be(x).im2col(x.f32(), cols.f32(), s);
    return cols;
}

Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor& bias, const ConvGeom& g) {
    const ConvShape s = convShape(g);
    const int64_t ckk = s.ckk(), ohw = s.ohw();
    DeviceBackend& b = be(x);
    const Tensor cols = columns(x, s);
    Tensor y = like(x, {s.N, s.O, s.OH, s.OW});
    b.sgemmStrided(false, false, s.O, ohw, ckk, 1.f, w.f32(), ckk, 0, cols.f32(), ohw, ckk * ohw,
                   0.f, y.f32(), ohw, s.O * ohw, s.N);
    if (bias.defined()) b.biasAdd(y.f32(), bias.f32(), y.f32(), s.N, s.O, ohw);
    return y;
}

/// dW = sum_n dy_n[O, OHW] x cols_n^T, added sample by sample.
Tensor conv2dFilter(const Tensor& dy, const Tensor& x, const ConvGeom& g) {
    const ConvShape s = convShape(g);
    const int64_t ckk = s.ckk(), ohw = s.ohw();
    DeviceBackend& b = be(dy);
    const Tensor cols = columns(x, s);
    Tensor dw = like(dy, {s.O, s.C, s.KH, s.KW});
    for (int64_t n = 0; n < s.N; ++n)
        b.sgemm(false, true, s.O, ckk, ohw, 1.f, dy.f32() + n * s.O * ohw, ohw,
                cols.f32() + n * ckk * ohw, ohw, n == 0 ? 0.f : 1.f, dw.f32(), ckk);
    return dw;
}

/// dx = col2im(W^T[CKK, O] x dy_n).
Tensor conv2dInput(const Tensor& dy, const Tensor& w, const ConvGeom& g) {
    const ConvShape s = convShape(g);
    const int64_t ckk = s.ckk(), ohw = s.ohw();
    DeviceBackend& b = be(dy);
    Tensor cols = like(dy, {s.N, ckk * ohw});
    b.sgemmStrided(true, false, ckk, ohw, s.O, 1.f, w.f32(), ckk, 0, dy.f32(), ohw, s.O * ohw, 0.f,
                   cols.f32(), ohw, ckk * ohw, s.N);
    Tensor dx = like(dy, {s.N, s.C, s.H, s.W});
    b.col2im(cols.f32(), dx.f32(), s);
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
    be(x).batchNorm(x.f32(), gamma.f32(), beta.f32(), runMean.f32(), runVar.f32(), y.f32(),
                    mean.f32(), invstd.f32(), a);
    return y;
}

std::vector<Tensor> batchNormGrad(const Tensor& g, const Tensor& x, const Tensor& gamma,
                                  const Tensor& mean, const Tensor& invstd,
                                  const kernels::BatchNormArgs& a) {
    Tensor dx = like(g, g.shape()), dgamma = like(g, {a.C}), dbeta = like(g, {a.C});
    be(g).batchNormGrad(g.f32(), x.f32(), gamma.f32(), mean.f32(), invstd.f32(), dx.f32(),
                        dgamma.f32(), dbeta.f32(), a);
    return {dx, dgamma, dbeta};
}

void sgd(const Tensor& w, const Tensor& g, const Tensor& v, const kernels::SgdArgs& a) {
    be(w).sgd(w.f32(), g.f32(), v.f32(), w.numel(), a);
}

void adam(const Tensor& w, const Tensor& g, const Tensor& m, const Tensor& v,
          const kernels::AdamArgs& a) {
    be(w).adam(w.f32(), g.f32(), m.f32(), v.f32(), w.numel(), a);
}

const KernelTable kDevice{
    .device = Device::CUDA,
    .unary = &unary,
    .binary = &binary,
    .divGradB = &divGradB,
    .broadcastAdd = nullptr,
    .reduceSumTo = nullptr,
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
    .depthwiseConv2d = nullptr,
    .depthwiseFilter = nullptr,
    .depthwiseInput = nullptr,
    .groupedConv2d = nullptr,
    .groupedFilter = nullptr,
    .groupedInput = nullptr,
    .maxPool = &maxPool,
    .maxPoolGrad = &maxPoolGrad,
    .avgPool = &avgPool,
    .avgPoolGrad = &avgPoolGrad,
    .globalAvgPool = nullptr,
    .globalAvgPoolGrad = nullptr,
    .batchNorm = &batchNorm,
    .batchNormGrad = &batchNormGrad,
    .concat = nullptr,
    .split = nullptr,
    .transpose = nullptr,
    .pad2d = nullptr,
    .pad2dGrad = nullptr,
    .sgd = &sgd,
    .adam = &adam,
};

}  // namespace

const KernelTable& deviceKernels() {
    return kDevice;
}

}  // namespace ts::engine
