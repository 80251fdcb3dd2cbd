#include "core/engine/ops/conv_direct.h"

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>

#if defined(__x86_64__) && defined(__GNUC__)
#include <immintrin.h>
#define TS_HAVE_AVX2_KERNELS 1
#define TS_AVX2 __attribute__((target("avx2,fma")))
#endif

namespace ts::engine::direct {

namespace {

/// Output channels padded to whole chunks of 16 (two AVX vectors).
int64_t padded(int64_t o) {
    return (o + 15) / 16 * 16;
}
/// The padded input plane covers every position a window reads.
int64_t planeH(const Geometry& g) {
    return (g.OH - 1) * g.sh + g.KH;
}
int64_t planeW(const Geometry& g) {
    return (g.OW - 1) * g.sw + g.KW;
}
/// Slack after the plane: the filter kernel reads 4 kernel columns at a time.
constexpr int64_t kSlack = 8;

/// x[C][H][W] into a zero-padded xp[C][planeH][planeW] (+ slack).
void padInput(const float* x, float* xp, const Geometry& g) {
    const int64_t Hp = planeH(g), Wp = planeW(g);
    std::memset(xp, 0, sizeof(float) * static_cast<size_t>(g.C * Hp * Wp + kSlack));
    for (int64_t c = 0; c < g.C; ++c)
        for (int64_t h = 0; h < g.H; ++h) {
            const int64_t ph = h + g.pt;
            if (ph < 0 || ph >= Hp) continue;
            const int64_t w0 = std::max<int64_t>(0, -g.pl), w1 = std::min(g.W, Wp - g.pl);
            if (w1 <= w0) continue;
            std::memcpy(xp + (c * Hp + ph) * Wp + w0 + g.pl, x + (c * g.H + h) * g.W + w0,
                        sizeof(float) * static_cast<size_t>(w1 - w0));
        }
}

#ifdef TS_HAVE_AVX2_KERNELS

/// Output channels [oc, oc + 16) for every output pixel, 4 pixels at a time: 8 accumulators
/// in registers, one weight row (two vectors) loaded per tap.
TS_AVX2 void forwardChunk(const float* xp, const float* wt, const float* bias, float* out,
                          const Geometry& g, int64_t oc) {
    const int64_t Op = padded(g.O), Hp = planeH(g), Wp = planeW(g), ohw = g.OH * g.OW;
    const int64_t oEnd = std::min(g.O, oc + 16);
    const __m256 b0 = _mm256_loadu_ps(bias + oc), b1 = _mm256_loadu_ps(bias + oc + 8);
    alignas(32) float tmp[4][16];
    for (int64_t p = 0; p < ohw; p += 4) {
        const int np = static_cast<int>(std::min<int64_t>(4, ohw - p));
        const float* base[4];
        for (int q = 0; q < 4; ++q) {
            const int64_t pix = p + std::min(q, np - 1);
            base[q] = xp + (pix / g.OW) * g.sh * Wp + (pix % g.OW) * g.sw;
        }
        const float *x0 = base[0], *x1 = base[1], *x2 = base[2], *x3 = base[3];
        __m256 a00 = b0, a01 = b1, a10 = b0, a11 = b1, a20 = b0, a21 = b1, a30 = b0, a31 = b1;
        const float* w = wt + oc;
        for (int64_t c = 0; c < g.C; ++c)
            for (int64_t kh = 0; kh < g.KH; ++kh) {
                const int64_t row = c * Hp * Wp + kh * Wp;
                for (int64_t kw = 0; kw < g.KW; ++kw, w += Op) {
                    const __m256 w0 = _mm256_loadu_ps(w), w1 = _mm256_loadu_ps(w + 8);
                    const int64_t o = row + kw;
                    __m256 xv = _mm256_broadcast_ss(x0 + o);
                    a00 = _mm256_fmadd_ps(xv, w0, a00);
                    a01 = _mm256_fmadd_ps(xv, w1, a01);
                    xv = _mm256_broadcast_ss(x1 + o);
                    a10 = _mm256_fmadd_ps(xv, w0, a10);
                    a11 = _mm256_fmadd_ps(xv, w1, a11);
                    xv = _mm256_broadcast_ss(x2 + o);
                    a20 = _mm256_fmadd_ps(xv, w0, a20);
                    a21 = _mm256_fmadd_ps(xv, w1, a21);
                    xv = _mm256_broadcast_ss(x3 + o);
                    a30 = _mm256_fmadd_ps(xv, w0, a30);
                    a31 = _mm256_fmadd_ps(xv, w1, a31);
                }
            }
        _mm256_store_ps(tmp[0], a00);
        _mm256_store_ps(tmp[0] + 8, a01);
        _mm256_store_ps(tmp[1], a10);
        _mm256_store_ps(tmp[1] + 8, a11);
        _mm256_store_ps(tmp[2], a20);
        _mm256_store_ps(tmp[2] + 8, a21);
        _mm256_store_ps(tmp[3], a30);
        _mm256_store_ps(tmp[3] + 8, a31);
        for (int64_t o = oc; o < oEnd; ++o)
            for (int q = 0; q < np; ++q) out[o * ohw + p + q] = tmp[q][o - oc];
    }
}

/// Filter gradient of output channels [oc, oc + 16): 4 kernel columns at a time (8
/// accumulators), the sum over output pixels in their order.
TS_AVX2 void filterChunk(const float* xp, const float* dyT, float* dwt, const Geometry& g,
                         int64_t oc) {
    const int64_t Op = padded(g.O), Hp = planeH(g), Wp = planeW(g);
    for (int64_t c = 0; c < g.C; ++c)
        for (int64_t kh = 0; kh < g.KH; ++kh)
            for (int64_t kw0 = 0; kw0 < g.KW; kw0 += 4) {
                const int nk = static_cast<int>(std::min<int64_t>(4, g.KW - kw0));
                __m256 a00 = _mm256_setzero_ps(), a01 = a00, a10 = a00, a11 = a00, a20 = a00,
                       a21 = a00, a30 = a00, a31 = a00;
                const float* dy = dyT + oc;
                for (int64_t oh = 0; oh < g.OH; ++oh) {
                    const float* xr = xp + c * Hp * Wp + (oh * g.sh + kh) * Wp + kw0;
                    for (int64_t ow = 0; ow < g.OW; ++ow, dy += Op) {
                        const __m256 d0 = _mm256_loadu_ps(dy), d1 = _mm256_loadu_ps(dy + 8);
                        const float* xo = xr + ow * g.sw;
                        __m256 xv = _mm256_broadcast_ss(xo);
                        a00 = _mm256_fmadd_ps(xv, d0, a00);
                        a01 = _mm256_fmadd_ps(xv, d1, a01);
                        xv = _mm256_broadcast_ss(xo + 1);
                        a10 = _mm256_fmadd_ps(xv, d0, a10);
                        a11 = _mm256_fmadd_ps(xv, d1, a11);
                        xv = _mm256_broadcast_ss(xo + 2);
                        a20 = _mm256_fmadd_ps(xv, d0, a20);
                        a21 = _mm256_fmadd_ps(xv, d1, a21);
                        xv = _mm256_broadcast_ss(xo + 3);
                        a30 = _mm256_fmadd_ps(xv, d0, a30);
                        a31 = _mm256_fmadd_ps(xv, d1, a31);
                    }
                }
                const __m256 acc[4][2] = {{a00, a01}, {a10, a11}, {a20, a21}, {a30, a31}};
                for (int k = 0; k < nk; ++k) {
                    float* dst = dwt + ((c * g.KH + kh) * g.KW + kw0 + k) * Op + oc;
                    _mm256_storeu_ps(dst, _mm256_add_ps(_mm256_loadu_ps(dst), acc[k][0]));
                    _mm256_storeu_ps(dst + 8, _mm256_add_ps(_mm256_loadu_ps(dst + 8), acc[k][1]));
                }
            }
}

bool cpuHasAvx2() {
    static const bool ok = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
    return ok;
}

#endif

std::atomic<bool>& enabled() {
    static std::atomic<bool> on = [] {
        const char* v = std::getenv("TS_CONV_DIRECT");
        return !(v && std::strcmp(v, "0") == 0);
    }();
    return on;
}

}  // namespace

bool applies(const Geometry& g) {
#ifdef TS_HAVE_AVX2_KERNELS
    const bool on = enabled().load(std::memory_order_relaxed);
    // Small convolutions with output channels filling 16-wide chunks (LeNet's conv2: 6 -> 16):
    // fewer channels waste lanes and the column matrix + GEMM path wins (conv1: 1 -> 6), as it
    // does for big convolutions.
    return on && cpuHasAvx2() && g.O >= 12 && g.O <= 64 && g.C * g.KH * g.KW <= 1024 &&
           g.OH * g.OW >= 16;
#else
    (void)g;
    return false;
#endif
}

void setEnabled(bool on) {
    enabled().store(on);
}

int64_t weightFloats(const Geometry& g) {
    return g.C * g.KH * g.KW * padded(g.O) + padded(g.O);  // + the padded bias
}

int64_t scratchFloats(const Geometry& g) {
    return g.C * planeH(g) * planeW(g) + kSlack + g.OH * g.OW * padded(g.O);
}

void packWeights(const float* w, const float* bias, float* wt, const Geometry& g) {
    const int64_t Op = padded(g.O), ckk = g.C * g.KH * g.KW;
    std::memset(wt, 0, sizeof(float) * static_cast<size_t>(weightFloats(g)));
    for (int64_t o = 0; o < g.O; ++o)
        for (int64_t t = 0; t < ckk; ++t) wt[t * Op + o] = w[o * ckk + t];
    if (bias) std::memcpy(wt + ckk * Op, bias, sizeof(float) * static_cast<size_t>(g.O));
}

void unpackWeights(const float* wt, float* w, const Geometry& g) {
    const int64_t Op = padded(g.O), ckk = g.C * g.KH * g.KW;
    for (int64_t o = 0; o < g.O; ++o)
        for (int64_t t = 0; t < ckk; ++t) w[o * ckk + t] = wt[t * Op + o];
}

void forward(const float* x, const float* wt, float* out, float* scratch, const Geometry& g) {
#ifdef TS_HAVE_AVX2_KERNELS
    const int64_t Op = padded(g.O), ckk = g.C * g.KH * g.KW;
    float* xp = scratch;
    padInput(x, xp, g);
    const float* pb = wt + ckk * Op;  // the packed bias
    for (int64_t oc = 0; oc < Op; oc += 16) forwardChunk(xp, wt, pb, out, g, oc);
#else
    (void)x, (void)wt, (void)out, (void)scratch, (void)g;
#endif
}

void accumulateFilter(const float* x, const float* dy, float* dwt, float* scratch,
                      const Geometry& g) {
#ifdef TS_HAVE_AVX2_KERNELS
    const int64_t Op = padded(g.O), ohw = g.OH * g.OW;
    float* xp = scratch;
    padInput(x, xp, g);
    float* dyT = xp + g.C * planeH(g) * planeW(g) + kSlack;
    std::memset(dyT, 0, sizeof(float) * static_cast<size_t>(ohw * Op));
    for (int64_t o = 0; o < g.O; ++o)
        for (int64_t p = 0; p < ohw; ++p) dyT[p * Op + o] = dy[o * ohw + p];
    for (int64_t oc = 0; oc < Op; oc += 16) filterChunk(xp, dyT, dwt, g, oc);
#else
    (void)x, (void)dy, (void)dwt, (void)scratch, (void)g;
#endif
}

}  // namespace ts::engine::direct
