#pragma once
// The math of the engine's device kernels: one function per element, row, channel or plane,
// compiled twice — by nvcc into the CUDA kernels (core/engine/cuda/cuda_kernels.cu: each GPU
// thread calls one for its index) and by the host compiler into the CPU emulation of the
// device backend (device_emulation.cpp: a loop calls them) — so the arithmetic a GPU runs is
// the arithmetic the tests here check against the CPU ops. It follows the CPU kernels' order
// of operations (core/engine/ops/cpu_*.cpp), so results agree to rounding (exp/log of another
// libm).
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

/// Geometry of a Conv2D (ops_conv.cpp's ConvGeom: pt/pl the top/left padding).
struct ConvShape {
    int64_t N, C, H, W, O, KH, KW, OH, OW, sh, sw, pt, pl;
    TS_HD int64_t ckk() const { return C * KH * KW; }
    TS_HD int64_t ohw() const { return OH * OW; }
    TS_HD int64_t chw() const { return C * H * W; }
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

/// Mean of -logp[r, label[r]] (one thread).
TS_HD float crossEntropyLoss(const float* logp, const int32_t* labels, int64_t rows, int64_t cols) {
    double loss = 0;
    for (int64_t r = 0; r < rows; ++r) loss -= logp[r * cols + labels[r]];
    return static_cast<float>(loss / static_cast<double>(rows));
}

/// d loss / d logits at flat index i, the loss's gradient being *g.
TS_HD float crossEntropyGradAt(const float* g, const float* logp, const int32_t* labels, int64_t i,
                               int64_t rows, int64_t cols) {
    const float scale = g[0] / static_cast<float>(rows);
    const float v = ::expf(logp[i]) * scale;
    return i % cols == labels[i / cols] ? v - scale : v;
}

/// Mean squared difference (one thread).
TS_HD float mseLoss(const float* a, const float* b, int64_t n) {
    double s = 0;
    for (int64_t i = 0; i < n; ++i) {
        const double d = a[i] - b[i];
        s += d * d;
    }
    return static_cast<float>(s / static_cast<double>(n > 1 ? n : 1));
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
    return x[((n * g.C + c) * g.H + ih) * g.W + iw];
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

/// The gradient of plane nc (of N*C) of max pooling: each output's gradient added at its
/// maximum, in output order (as the CPU op).
TS_HD void maxPoolGradPlane(const float* g, const int32_t* arg, float* dx, int64_t nc,
                            const PoolShape& s) {
    const int64_t hw = s.H * s.W, ohw = s.OH * s.OW;
    float* d = dx + nc * hw;
    for (int64_t i = 0; i < hw; ++i) d[i] = 0.f;
    for (int64_t p = 0; p < ohw; ++p) d[arg[nc * ohw + p]] += g[nc * ohw + p];
}

TS_HD float avgPoolAt(const float* x, int64_t i, const PoolShape& g) {
    const int64_t ow = i % g.OW, oh = (i / g.OW) % g.OH, nc = i / (g.OW * g.OH);
    const float* plane = x + nc * g.H * g.W;
    float s = 0;
    for (int64_t a = 0; a < g.k; ++a)
        for (int64_t b = 0; b < g.k; ++b) s += plane[(oh * g.s + a) * g.W + ow * g.s + b];
    return s * (1.f / static_cast<float>(g.k * g.k));
}

TS_HD void avgPoolGradPlane(const float* g, float* dx, int64_t nc, const PoolShape& s) {
    const float inv = 1.f / static_cast<float>(s.k * s.k);
    float* d = dx + nc * s.H * s.W;
    for (int64_t i = 0; i < s.H * s.W; ++i) d[i] = 0.f;
    const float* gp = g + nc * s.OH * s.OW;
    for (int64_t oh = 0; oh < s.OH; ++oh)
        for (int64_t ow = 0; ow < s.OW; ++ow) {
            const float v = gp[oh * s.OW + ow] * inv;
            for (int64_t a = 0; a < s.k; ++a)
                for (int64_t b = 0; b < s.k; ++b) d[(oh * s.s + a) * s.W + ow * s.s + b] += v;
        }
}

// ---- batch norm: one channel per call (sums in double, as the CPU op) ----

struct BatchNormArgs {
    int64_t N, C, HW;
    bool training;
    float momentum, eps;
};

/// Channel c of BatchNorm: y, and the mean and 1/sqrt(var + eps) it used (for the gradient).
TS_HD void batchNormChannel(const float* x, const float* gamma, const float* beta, float* runMean,
                            float* runVar, float* y, float* mean, float* invstd, int64_t c,
                            const BatchNormArgs& a) {
    const int64_t M = a.N * a.HW;
    double mu64, var;
    if (a.training) {
        double s = 0, s2 = 0;
        for (int64_t n = 0; n < a.N; ++n) {
            const float* p = x + (n * a.C + c) * a.HW;
            for (int64_t i = 0; i < a.HW; ++i) s += p[i];
        }
        mu64 = s / static_cast<double>(M);
        for (int64_t n = 0; n < a.N; ++n) {
            const float* p = x + (n * a.C + c) * a.HW;
            for (int64_t i = 0; i < a.HW; ++i) s2 += (p[i] - mu64) * (p[i] - mu64);
        }
        var = s2 / static_cast<double>(M);
        const double unbiased = M > 1 ? s2 / static_cast<double>(M - 1) : var;
        runMean[c] = static_cast<float>(a.momentum * runMean[c] + (1 - a.momentum) * mu64);
        runVar[c] = static_cast<float>(a.momentum * runVar[c] + (1 - a.momentum) * unbiased);
    } else {
        mu64 = runMean[c];
        var = runVar[c];
    }
    const float is = static_cast<float>(1.0 / ::sqrt(var + a.eps));
    const float ga = gamma[c], be = beta[c], mu = static_cast<float>(mu64);
    mean[c] = mu;
    invstd[c] = is;
    for (int64_t n = 0; n < a.N; ++n) {
        const int64_t base = (n * a.C + c) * a.HW;
        for (int64_t i = 0; i < a.HW; ++i) y[base + i] = ga * ((x[base + i] - mu) * is) + be;
    }
}

/// Channel c of BatchNorm's gradient from the forward's x, mean and invstd: x's normalized
/// value is recomputed as the forward computed it, (x - mean) * invstd.
TS_HD void batchNormGradChannel(const float* g, const float* x, const float* gamma,
                                const float* mean, const float* invstd, float* dx, float* dgamma,
                                float* dbeta, int64_t c, const BatchNormArgs& a) {
    const int64_t M = a.N * a.HW;
    const float mu = mean[c], is = invstd[c];
    double sg = 0, sgh = 0;
    for (int64_t n = 0; n < a.N; ++n) {
        const int64_t base = (n * a.C + c) * a.HW;
        for (int64_t i = 0; i < a.HW; ++i) {
            sg += g[base + i];
            sgh += g[base + i] * ((x[base + i] - mu) * is);
        }
    }
    dgamma[c] = static_cast<float>(sgh);
    dbeta[c] = static_cast<float>(sg);
    const float ga = gamma[c];
    const float mg = static_cast<float>(sg / static_cast<double>(M));
    const float mgh = static_cast<float>(sgh / static_cast<double>(M));
    for (int64_t n = 0; n < a.N; ++n) {
        const int64_t base = (n * a.C + c) * a.HW;
        for (int64_t i = 0; i < a.HW; ++i) {
            const float gv = g[base + i], h = (x[base + i] - mu) * is;
            dx[base + i] = a.training ? ga * is * (gv - mg - h * mgh) : ga * is * gv;
        }
    }
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

}  // namespace ts::engine::kernels
