#pragma once
// The math of the engine's device kernels: one function per element, row, channel or plane,
// compiled twice — by nvcc into the CUDA kernels (core/engine/cuda/cuda_kernels.cu: each GPU
// thread calls one for its index) and by the host compiler into the CPU emulation of the
// device backend (device_emulation.cpp: a loop calls them) — so the arithmetic a GPU runs is
// the arithmetic the tests here check against the CPU ops. A function that computes one
// element follows the CPU kernels' order of operations (core/engine/ops/cpu_*.cpp), so results
// agree to rounding (exp/log of another libm); reductions over a channel are cut into slices
// (reduceSlices) that a GPU block adds as a tree and the emulation in order. The shape ops'
// math is in device_kernels_shape.h, depthwise convolution's in device_kernels_conv.h.
// C++17 and <cmath>/<cstdint>/<cstring> only (nvcc compiles it as device code).
#include <cmath>
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define TS_HD __host__ __device__ inline
#else
#define TS_HD inline
#endif

namespace ts::engine::kernels {

enum class Unary : int { Neg, Relu, Sigmoid, Tanh, Scale, RoundFp16, Exp };
/// ReluGrad(g, y), SigmoidGrad(g, y), TanhGrad(g, y): the gradient given the output y.
enum class Binary : int { Add, Sub, Mul, Div, ReluGrad, SigmoidGrad, TanhGrad };

/// Geometry of a Conv2D (ops_conv.cpp's ConvGeom: pt/pl the top/left padding). `xs`: floats
/// from one sample of x (and dx) to the next when the convolution reads one group's channels
/// of a wider tensor (0: C*H*W, the tensor is this group's alone).
struct ConvShape {
    int64_t N, C, H, W, O, KH, KW, OH, OW, sh, sw, pt, pl;
    int64_t xs = 0;
    TS_HD int64_t ckk() const { return C * KH * KW; }
    TS_HD int64_t ohw() const { return OH * OW; }
    TS_HD int64_t chw() const { return C * H * W; }
    TS_HD int64_t xstride() const { return xs ? xs : C * H * W; }
};

/// Geometry of a pooling op (k x k windows, stride s, no padding).
struct PoolShape {
    int64_t N, C, H, W, OH, OW, k, s;
};

// ---- IEEE half rounding, round to nearest even (tensor.cpp's floatToHalf / halfToFloat) ----

TS_HD uint16_t toHalf(float f) {
    uint32_t x;
    memcpy(&x, &f, 4);
    const uint32_t sign = (x >> 16) & 0x8000u;
    const uint32_t absx = x & 0x7fffffffu;
    if (absx >= 0x7f800000u)
        return static_cast<uint16_t>(sign | (absx > 0x7f800000u ? 0x7e00u : 0x7c00u));
    if (absx >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);
    if (absx < 0x38800000u) {
        if (absx < 0x33000000u) return static_cast<uint16_t>(sign);
        const uint32_t mant = (absx & 0x7fffffu) | 0x800000u;
        const int shift = 126 - static_cast<int>(absx >> 23);
        uint32_t v = mant >> shift;
        const uint32_t rem = mant & ((1u << shift) - 1);
        const uint32_t half = 1u << (shift - 1);
        if (rem > half || (rem == half && (v & 1))) ++v;
        return static_cast<uint16_t>(sign | v);
    }
    uint32_t v = ((absx >> 13) - (112u << 10));
    const uint32_t rem = absx & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (v & 1))) ++v;
    return static_cast<uint16_t>(sign | v);
}

TS_HD float fromHalf(uint16_t h) {
    const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
    uint32_t exp = (h >> 10) & 0x1fu;
    uint32_t mant = h & 0x3ffu;
    uint32_t bits;
    if (exp == 0x1fu) {
        bits = sign | 0x7f800000u | (mant << 13);
    } else if (exp == 0) {
        if (mant == 0) {
            bits = sign;
        } else {
            exp = 113;
            while (!(mant & 0x400u)) {
                mant <<= 1;
                --exp;
            }
            bits = sign | (exp << 23) | ((mant & 0x3ffu) << 13);
        }
    } else {
        bits = sign | ((exp + 112u) << 23) | (mant << 13);
    }
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

// ---- element-wise ----

TS_HD float unaryAt(Unary op, float x, float alpha) {
    switch (op) {
        case Unary::Neg:
            return -x;
        case Unary::Relu:
            return x < 0.f ? 0.f : x;  // std::max(x, 0.f): a NaN stays NaN
        case Unary::Sigmoid:
            return 1.f / (1.f + ::expf(-x));
        case Unary::Tanh:
            return ::tanhf(x);
        case Unary::Scale:
            return x * alpha;
        case Unary::RoundFp16:
            return fromHalf(toHalf(x));
        case Unary::Exp:
            return ::expf(x);
    }
    return x;
}

TS_HD float binaryAt(Binary op, float a, float b) {
    switch (op) {
        case Binary::Add:
            return a + b;
        case Binary::Sub:
            return a - b;
        case Binary::Mul:
            return a * b;
        case Binary::Div:
            return a / b;
        case Binary::ReluGrad:
            return b > 0.f ? a : 0.f;
        case Binary::SigmoidGrad:
            return a * b * (1.f - b);
        case Binary::TanhGrad:
            return a * (1.f - b * b);
    }
    return a;
}

/// RealDivGrad for the divisor: -g * a / (b * b).
TS_HD float divGradBAt(float g, float a, float b) {
    return -g * a / (b * b);
}

/// x[N, C, inner] + bias[C] at flat index i.
TS_HD float biasAddAt(const float* x, const float* b, int64_t i, int64_t C, int64_t inner) {
    return x[i] + b[(i / inner) % C];
}

/// Sum of g[N, C, inner] over N and inner for channel c (per sample, then added in order).
TS_HD float biasGradChannel(const float* g, int64_t c, int64_t N, int64_t C, int64_t inner) {
    float acc = 0.f;
    for (int64_t n = 0; n < N; ++n) {
        const float* row = g + (n * C + c) * inner;
        float s = 0.f;
        for (int64_t i = 0; i < inner; ++i) s += row[i];
        acc += s;
    }
    return acc;
}

// ---- rows: softmax family and losses ----

/// Row r of log-softmax (the sum of exponentials in double, as the CPU op).
TS_HD void logSoftmaxRow(const float* x, float* out, int64_t r, int64_t cols) {
    const float* xr = x + r * cols;
    float* o = out + r * cols;
    float m = xr[0];
    for (int64_t c = 1; c < cols; ++c) m = xr[c] > m ? xr[c] : m;
    double s = 0;
    for (int64_t c = 0; c < cols; ++c) s += ::exp(static_cast<double>(xr[c] - m));
    const float lse = m + static_cast<float>(::log(s));
    for (int64_t c = 0; c < cols; ++c) o[c] = xr[c] - lse;
}

TS_HD void softmaxGradRow(const float* g, const float* y, float* out, int64_t r, int64_t cols) {
    const float* gr = g + r * cols;
    const float* yr = y + r * cols;
    float dot = 0;
    for (int64_t c = 0; c < cols; ++c) dot += gr[c] * yr[c];
    for (int64_t c = 0; c < cols; ++c) out[r * cols + c] = yr[c] * (gr[c] - dot);
}

TS_HD void logSoftmaxGradRow(const float* g, const float* y, float* out, int64_t r, int64_t cols) {
    const float* gr = g + r * cols;
    const float* yr = y + r * cols;
    float s = 0;
    for (int64_t c = 0; c < cols; ++c) s += gr[c];
    for (int64_t c = 0; c < cols; ++c) out[r * cols + c] = gr[c] - ::expf(yr[c]) * s;
}

/// Row r of the fused softmax cross entropy: writes the row's log-softmax into logp and
/// returns -logp[r, label] in double (the loss is their mean, summed by the caller). A label
/// outside [0, cols) adds nothing and is returned in *bad (the op then fails: the backend
/// raises it at its next synchronisation, as CUDA raises a device assertion).
TS_HD double crossEntropyRow(const float* x, float* logp, const int32_t* labels, int64_t r,
                             int64_t cols, int32_t* bad) {
    logSoftmaxRow(x, logp, r, cols);
    const int32_t l = labels[r];
    if (l < 0 || l >= cols) {
        *bad = l;
        return 0.0;
    }
    return -static_cast<double>(logp[r * cols + l]);
}

/// d loss / d logits at flat index i, the loss's gradient being *g.
TS_HD float crossEntropyGradAt(const float* g, const float* logp, const int32_t* labels, int64_t i,
                               int64_t rows, int64_t cols) {
    const float scale = g[0] / static_cast<float>(rows);
    const float v = ::expf(logp[i]) * scale;
    return i % cols == labels[i / cols] ? v - scale : v;
}

/// Term i of the mean squared difference (summed in double by the caller, then / n).
TS_HD double mseTerm(const float* a, const float* b, int64_t i) {
    const double d = a[i] - b[i];
    return d * d;
}

TS_HD float mseGradAt(const float* g, const float* a, const float* b, int64_t i, int64_t n) {
    const float k = 2.f * g[0] / static_cast<float>(n > 1 ? n : 1);
    return k * (a[i] - b[i]);
}

// ---- convolution: im2col / col2im over a batch ----

/// Element i of the column matrices [N][C*KH*KW][OH*OW] of x[N][C][H][W].
TS_HD float im2colAt(const float* x, int64_t i, const ConvShape& g) {
    const int64_t ohw = g.ohw(), ckk = g.ckk();
    const int64_t p = i % ohw, row = (i / ohw) % ckk, n = i / (ohw * ckk);
    const int64_t kw = row % g.KW, kh = (row / g.KW) % g.KH, c = row / (g.KW * g.KH);
    const int64_t oh = p / g.OW, ow = p % g.OW;
    const int64_t ih = oh * g.sh - g.pt + kh, iw = ow * g.sw - g.pl + kw;
    if (ih < 0 || ih >= g.H || iw < 0 || iw >= g.W) return 0.f;
    return x[n * g.xstride() + (c * g.H + ih) * g.W + iw];
}

/// Element i of the column matrix in channel-major order [C*KH*KW][N][OH*OW] (one GEMM over
/// the whole batch gives the filter gradient).
TS_HD float im2colTAt(const float* x, int64_t i, const ConvShape& g) {
    const int64_t nohw = g.N * g.ohw();
    const int64_t row = i / nohw, rest = i % nohw;
    return im2colAt(x, (rest / g.ohw() * g.ckk() + row) * g.ohw() + rest % g.ohw(), g);
}

/// Where element i of a dense [N][C][H][W] lies in dx (whose samples are xstride() apart).
TS_HD int64_t col2imDst(int64_t i, const ConvShape& g) {
    return i / g.chw() * g.xstride() + i % g.chw();
}

/// Element i of dx[N][C][H][W]: the sum of the column gradients [N][C*KH*KW][OH*OW] that
/// read it.
TS_HD float col2imAt(const float* col, int64_t i, const ConvShape& g) {
    const int64_t w = i % g.W, h = (i / g.W) % g.H, c = (i / (g.W * g.H)) % g.C, n = i / g.chw();
    const int64_t ohw = g.ohw();
    const float* base = col + n * g.ckk() * ohw;
    float s = 0.f;
    for (int64_t kh = 0; kh < g.KH; ++kh) {
        const int64_t th = h + g.pt - kh;
        if (th < 0 || th % g.sh != 0 || th / g.sh >= g.OH) continue;
        for (int64_t kw = 0; kw < g.KW; ++kw) {
            const int64_t tw = w + g.pl - kw;
            if (tw < 0 || tw % g.sw != 0 || tw / g.sw >= g.OW) continue;
            s += base[((c * g.KH + kh) * g.KW + kw) * ohw + (th / g.sh) * g.OW + tw / g.sw];
        }
    }
    return s;
}

// ---- pooling ----

/// Output element i of max pooling; *arg gets the flat index in its [H, W] plane of the
/// maximum (the first on ties; a NaN wins its window).
TS_HD float maxPoolAt(const float* x, int64_t i, const PoolShape& g, int32_t* arg) {
    const int64_t ow = i % g.OW, oh = (i / g.OW) % g.OH, nc = i / (g.OW * g.OH);
    const float* plane = x + nc * g.H * g.W;
    int64_t bi = (oh * g.s) * g.W + ow * g.s;
    float best = plane[bi];
    for (int64_t a = 0; a < g.k; ++a)
        for (int64_t b = 0; b < g.k; ++b) {
            const int64_t idx = (oh * g.s + a) * g.W + ow * g.s + b;
            const float v = plane[idx];
            if (v > best || (v != v && best == best)) {
                best = v;
                bi = idx;
            }
        }
    *arg = static_cast<int32_t>(bi);
    return best;
}

/// The windows of a pooling that hold input row (or column) h: [*first, *last].
TS_HD void poolWindows(int64_t h, int64_t k, int64_t s, int64_t outLen, int64_t* first,
                       int64_t* last) {
    const int64_t lo = h - k + 1;
    *first = lo <= 0 ? 0 : (lo + s - 1) / s;
    const int64_t hi = h / s;
    *last = hi < outLen - 1 ? hi : outLen - 1;
}

/// Element i of max pooling's input gradient: the gradients of the windows whose maximum it
/// was, added in output order (as the CPU op adds them).
TS_HD float maxPoolGradAt(const float* g, const int32_t* arg, int64_t i, const PoolShape& s) {
    const int64_t w = i % s.W, h = (i / s.W) % s.H, nc = i / (s.W * s.H);
    const int64_t ohw = s.OH * s.OW;
    const int32_t self = static_cast<int32_t>(h * s.W + w);
    int64_t oh0, oh1, ow0, ow1;
    poolWindows(h, s.k, s.s, s.OH, &oh0, &oh1);
    poolWindows(w, s.k, s.s, s.OW, &ow0, &ow1);
    float acc = 0.f;
    for (int64_t oh = oh0; oh <= oh1; ++oh)
        for (int64_t ow = ow0; ow <= ow1; ++ow) {
            const int64_t o = nc * ohw + oh * s.OW + ow;
            if (arg[o] == self) acc += g[o];
        }
    return acc;
}

TS_HD float avgPoolAt(const float* x, int64_t i, const PoolShape& g) {
    const int64_t ow = i % g.OW, oh = (i / g.OW) % g.OH, nc = i / (g.OW * g.OH);
    const float* plane = x + nc * g.H * g.W;
    float s = 0;
    for (int64_t a = 0; a < g.k; ++a)
        for (int64_t b = 0; b < g.k; ++b) s += plane[(oh * g.s + a) * g.W + ow * g.s + b];
    return s * (1.f / static_cast<float>(g.k * g.k));
}

/// Element i of average pooling's input gradient: g / (k*k) of every window holding it, in
/// output order.
TS_HD float avgPoolGradAt(const float* g, int64_t i, const PoolShape& s) {
    const float inv = 1.f / static_cast<float>(s.k * s.k);
    const int64_t w = i % s.W, h = (i / s.W) % s.H, nc = i / (s.W * s.H);
    int64_t oh0, oh1, ow0, ow1;
    poolWindows(h, s.k, s.s, s.OH, &oh0, &oh1);
    poolWindows(w, s.k, s.s, s.OW, &ow0, &ow1);
    float acc = 0.f;
    for (int64_t oh = oh0; oh <= oh1; ++oh)
        for (int64_t ow = ow0; ow <= ow1; ++ow) acc += g[(nc * s.OH + oh) * s.OW + ow] * inv;
    return acc;
}

// ---- per-channel reductions (batch norm, bias gradients): in slices ----
// A channel's M = N*HW values are cut into reduceSlices(M) slices; the CUDA backend reduces
// each (channel, slice) in one block, the emulation each in a loop, and a second pass adds
// the slices of a channel in order. Sums are in double.

TS_HD int64_t reduceSlices(int64_t M) {
    const int64_t s = M / 4096;
    return s < 1 ? 1 : (s > 64 ? 64 : s);
}
/// [*begin, *end) of slice s of S over M values.
TS_HD void sliceRange(int64_t M, int64_t s, int64_t S, int64_t* begin, int64_t* end) {
    *begin = M * s / S;
    *end = M * (s + 1) / S;
}
/// Flat NCHW index of value m (0..N*HW) of channel c.
TS_HD int64_t channelIndex(int64_t m, int64_t c, int64_t C, int64_t HW) {
    return ((m / HW) * C + c) * HW + m % HW;
}

struct BatchNormArgs {
    int64_t N, C, HW;
    bool training;
    float momentum, eps;
    TS_HD int64_t count() const { return N * HW; }
    TS_HD int64_t slices() const { return reduceSlices(N * HW); }
    /// Doubles of scratch the forward and the gradient need.
    TS_HD int64_t workDoubles() const { return C * slices() * 2 + C * 2; }
};

/// Training: the sum and the sum of squares of channel c's values in [begin, end).
TS_HD void batchNormSums(const float* x, int64_t c, int64_t begin, int64_t end,
                         const BatchNormArgs& a, double* sum, double* sumSq) {
    double s = 0, s2 = 0;
    for (int64_t m = begin; m < end; ++m) {
        const double v = x[channelIndex(m, c, a.C, a.HW)];
        s += v;
        s2 += v * v;
    }
    *sum = s;
    *sumSq = s2;
}

/// Channel c's statistics from its slices' sums (part[(c*S + s)*2 + {0,1}]), or from the
/// running statistics in evaluation: the mean and 1/sqrt(var + eps) used; training also
/// updates the running statistics (the unbiased variance, momentum as MindSpore's).
TS_HD void batchNormStats(const double* part, float* runMean, float* runVar, float* mean,
                          float* invstd, int64_t c, const BatchNormArgs& a) {
    double mu64, var;
    if (a.training) {
        const int64_t S = a.slices(), M = a.count();
        double s = 0, s2 = 0;
        for (int64_t k = 0; k < S; ++k) {
            s += part[(c * S + k) * 2];
            s2 += part[(c * S + k) * 2 + 1];
        }
        mu64 = s / static_cast<double>(M);
        var = s2 / static_cast<double>(M) - mu64 * mu64;
        if (var < 0) var = 0;
        const double unbiased =
            M > 1 ? var * static_cast<double>(M) / static_cast<double>(M - 1) : var;
        runMean[c] = static_cast<float>(a.momentum * runMean[c] + (1 - a.momentum) * mu64);
        runVar[c] = static_cast<float>(a.momentum * runVar[c] + (1 - a.momentum) * unbiased);
    } else {
        mu64 = runMean[c];
        var = runVar[c];
    }
    mean[c] = static_cast<float>(mu64);
    invstd[c] = static_cast<float>(1.0 / ::sqrt(var + a.eps));
}

/// Output element i: gamma * (x - mean) * invstd + beta.
TS_HD float batchNormAt(const float* x, const float* gamma, const float* beta, const float* mean,
                        const float* invstd, int64_t i, const BatchNormArgs& a) {
    const int64_t c = (i / a.HW) % a.C;
    return gamma[c] * ((x[i] - mean[c]) * invstd[c]) + beta[c];
}

/// The gradient's sums over channel c's values in [begin, end): of g and of g * x-hat.
TS_HD void batchNormGradSums(const float* g, const float* x, const float* mean, const float* invstd,
                             int64_t c, int64_t begin, int64_t end, const BatchNormArgs& a,
                             double* sumG, double* sumGH) {
    const float mu = mean[c], is = invstd[c];
    double sg = 0, sgh = 0;
    for (int64_t m = begin; m < end; ++m) {
        const int64_t i = channelIndex(m, c, a.C, a.HW);
        sg += g[i];
        sgh += g[i] * ((x[i] - mu) * is);
    }
    *sumG = sg;
    *sumGH = sgh;
}

/// Channel c's dgamma and dbeta from its slices' sums, and the two means dx needs
/// (means[c*2 + {0,1}]: of g and of g * x-hat).
TS_HD void batchNormGradStats(const double* part, float* dgamma, float* dbeta, float* means,
                              int64_t c, const BatchNormArgs& a) {
    const int64_t S = a.slices();
    double sg = 0, sgh = 0;
    for (int64_t k = 0; k < S; ++k) {
        sg += part[(c * S + k) * 2];
        sgh += part[(c * S + k) * 2 + 1];
    }
    dgamma[c] = static_cast<float>(sgh);
    dbeta[c] = static_cast<float>(sg);
    means[c * 2] = static_cast<float>(sg / static_cast<double>(a.count()));
    means[c * 2 + 1] = static_cast<float>(sgh / static_cast<double>(a.count()));
}

/// dx at element i (x-hat recomputed as the forward computed it).
TS_HD float batchNormGradAt(const float* g, const float* x, const float* gamma, const float* mean,
                            const float* invstd, const float* means, int64_t i,
                            const BatchNormArgs& a) {
    const int64_t c = (i / a.HW) % a.C;
    const float is = invstd[c], ga = gamma[c];
    if (!a.training) return ga * is * g[i];
    const float h = (x[i] - mean[c]) * is;
    return ga * is * (g[i] - means[c * 2] - h * means[c * 2 + 1]);
}

// ---- optimizer updates (optimizer.cpp) ----

struct SgdArgs {
    float lr, momentum, weightDecay;
    bool nesterov;
};

TS_HD void sgdAt(float* w, const float* g, float* v, int64_t k, const SgdArgs& a) {
    const float gk = g[k] + a.weightDecay * w[k];
    v[k] = a.momentum * v[k] + gk;
    w[k] -= a.nesterov ? a.lr * (gk + a.momentum * v[k]) : a.lr * v[k];
}

struct AdamArgs {
    float beta1, beta2, eps, weightDecay, stepSize, sqrtBc2;
};

TS_HD void adamAt(float* w, const float* g, float* m, float* v, int64_t k, const AdamArgs& a) {
    const float gk = g[k] + a.weightDecay * w[k];
    m[k] = a.beta1 * m[k] + (1 - a.beta1) * gk;
    v[k] = a.beta2 * v[k] + (1 - a.beta2) * gk * gk;
    w[k] -= a.stepSize * m[k] / (::sqrtf(v[k]) / a.sqrtBc2 + a.eps);
}

/// A chunk of parameters updated by one launch (the optimizers' multi-tensor kernels): the
/// i-th tensor's weights w[i], gradient g[i] and state m[i] (SGD's momentum, Adam's first
/// moment) and v[i] (Adam's second), n[i] values each.
struct TensorChunk {
    static constexpr int kMax = 48;
    int count = 0;
    float* w[kMax];
    const float* g[kMax];
    float* m[kMax];
    float* v[kMax];
    int64_t n[kMax];
};

}  // namespace ts::engine::kernels

#include "core/engine/device/device_kernels_conv.h"
#include "core/engine/device/device_kernels_shape.h"
