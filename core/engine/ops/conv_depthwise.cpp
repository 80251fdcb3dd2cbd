#include "core/engine/ops/conv_depthwise.h"

#include <algorithm>
#include <cstring>

namespace ts::engine::depthwise {

namespace {

#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TS_DW_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define TS_DW_CLONES
#endif

// The vector helpers are internal and inlined into each clone: their ABI does not matter.
#pragma GCC diagnostic ignored "-Wpsabi"

/// 8 floats, unaligned (buffers come from the pool with 16-byte alignment).
typedef float v8 __attribute__((vector_size(32), aligned(4)));
constexpr int64_t kLanes = 8;

inline v8 load(const float* p) {
    return *reinterpret_cast<const v8*>(p);
}
inline void store(float* p, v8 v) {
    *reinterpret_cast<v8*>(p) = v;
}

struct Layout {
    int64_t Cp, Hp, Wp, taps;
    explicit Layout(const Geometry& g)
        : Cp((g.C + kLanes - 1) / kLanes * kLanes),
          Hp((g.OH - 1) * g.sh + g.KH),
          Wp((g.OW - 1) * g.sw + g.KW),
          taps(g.KH * g.KW) {}
    int64_t padded() const { return Hp * Wp * Cp; }
    int64_t out(const Geometry& g) const { return g.OH * g.OW * Cp; }
    /// The forward kernel's last group of 4 pixels may read up to 3 strides past a row.
    int64_t slack(const Geometry& g) const { return 4 * g.sw * Cp; }
};

/// x[C][H][W] into xT[Hp][Wp][Cp], zero outside x and in the padding channels.
void toChannelsLast(const float* x, float* xT, const Geometry& g, const Layout& L) {
    std::memset(xT, 0, sizeof(float) * static_cast<size_t>(L.padded() + L.slack(g)));
    const int64_t h1 = std::min(g.H, L.Hp - g.pt), w1 = std::min(g.W, L.Wp - g.pl);
    for (int64_t c = 0; c < g.C; ++c)
        for (int64_t h = 0; h < h1; ++h) {
            const float* src = x + (c * g.H + h) * g.W;
            float* dst = xT + ((h + g.pt) * L.Wp + g.pl) * L.Cp + c;
            for (int64_t w = 0; w < w1; ++w) dst[w * L.Cp] = src[w];
        }
}

}  // namespace

int64_t scratchFloats(const Geometry& g) {
    const Layout L(g);
    return L.padded() + L.slack(g) + L.out(g);
}

int64_t packedFloats(const Geometry& g) {
    const Layout L(g);
    return (L.taps + 1) * L.Cp;
}

void packWeights(const float* w, const float* bias, float* packed, const Geometry& g) {
    const Layout L(g);
    std::memset(packed, 0, sizeof(float) * static_cast<size_t>(packedFloats(g)));
    for (int64_t c = 0; c < g.C; ++c) {
        for (int64_t t = 0; t < L.taps; ++t) packed[t * L.Cp + c] = w[c * L.taps + t];
        if (bias) packed[L.taps * L.Cp + c] = bias[c];
    }
}

void unpackFilter(const float* dwPacked, float* dw, const Geometry& g) {
    const Layout L(g);
    for (int64_t c = 0; c < g.C; ++c)
        for (int64_t t = 0; t < L.taps; ++t) dw[c * L.taps + t] = dwPacked[t * L.Cp + c];
}

TS_DW_CLONES void forward(const float* x, const float* packed, float* out, float* scratch,
                          const Geometry& g) {
    const Layout L(g);
    float* xT = scratch;
    float* oT = scratch + L.padded() + L.slack(g);
    toChannelsLast(x, xT, g, L);
    const int64_t step = g.sw * L.Cp;  // from one output pixel's window to the next
    for (int64_t oh = 0; oh < g.OH; ++oh)
        for (int64_t ow = 0; ow < g.OW; ow += 4) {
            const int64_t n = std::min<int64_t>(4, g.OW - ow);
            for (int64_t cb = 0; cb < L.Cp; cb += kLanes) {
                const v8 b = load(packed + L.taps * L.Cp + cb);
                v8 a0 = b, a1 = b, a2 = b, a3 = b;
                for (int64_t kh = 0; kh < g.KH; ++kh) {
                    const float* row = xT + ((oh * g.sh + kh) * L.Wp + ow * g.sw) * L.Cp + cb;
                    const float* wr = packed + kh * g.KW * L.Cp + cb;
                    for (int64_t kw = 0; kw < g.KW; ++kw) {
                        const v8 wv = load(wr + kw * L.Cp);
                        const float* p = row + kw * L.Cp;
                        a0 += wv * load(p);
                        a1 += wv * load(p + step);
                        a2 += wv * load(p + 2 * step);
                        a3 += wv * load(p + 3 * step);
                    }
                }
                float* o = oT + (oh * g.OW + ow) * L.Cp + cb;
                store(o, a0);
                if (n > 1) store(o + L.Cp, a1);
                if (n > 2) store(o + 2 * L.Cp, a2);
                if (n > 3) store(o + 3 * L.Cp, a3);
            }
        }
    const int64_t ohw = g.OH * g.OW;
    for (int64_t c = 0; c < g.C; ++c) {
        float* dst = out + c * ohw;
        for (int64_t p = 0; p < ohw; ++p) dst[p] = oT[p * L.Cp + c];
    }
}

TS_DW_CLONES void backwardInput(const float* dy, const float* packed, float* dx, float* scratch,
                                const Geometry& g) {
    const Layout L(g);
    float* dxT = scratch;
    float* dyT = scratch + L.padded() + L.slack(g);
    const int64_t ohw = g.OH * g.OW;
    std::memset(dxT, 0, sizeof(float) * static_cast<size_t>(L.padded()));
    std::memset(dyT, 0, sizeof(float) * static_cast<size_t>(L.out(g)));
    for (int64_t c = 0; c < g.C; ++c)
        for (int64_t p = 0; p < ohw; ++p) dyT[p * L.Cp + c] = dy[c * ohw + p];
    for (int64_t oh = 0; oh < g.OH; ++oh)
        for (int64_t ow = 0; ow < g.OW; ++ow)
            for (int64_t cb = 0; cb < L.Cp; cb += kLanes) {
                const v8 d = load(dyT + (oh * g.OW + ow) * L.Cp + cb);
                for (int64_t kh = 0; kh < g.KH; ++kh) {
                    float* row = dxT + ((oh * g.sh + kh) * L.Wp + ow * g.sw) * L.Cp + cb;
                    const float* wr = packed + kh * g.KW * L.Cp + cb;
                    for (int64_t kw = 0; kw < g.KW; ++kw) {
                        float* p = row + kw * L.Cp;
                        store(p, load(p) + load(wr + kw * L.Cp) * d);
                    }
                }
            }
    // Back to [C][H][W]; input positions no window reaches get zero.
    for (int64_t c = 0; c < g.C; ++c)
        for (int64_t h = 0; h < g.H; ++h) {
            float* dst = dx + (c * g.H + h) * g.W;
            const int64_t r = h + g.pt;
            for (int64_t w = 0; w < g.W; ++w) {
                const int64_t j = w + g.pl;
                dst[w] = r < L.Hp && j < L.Wp ? dxT[(r * L.Wp + j) * L.Cp + c] : 0.f;
            }
        }
}

TS_DW_CLONES void accumulateFilter(const float* x, const float* dy, float* dwPacked, float* scratch,
                                   const Geometry& g) {
    const Layout L(g);
    float* xT = scratch;
    float* dyT = scratch + L.padded() + L.slack(g);
    const int64_t ohw = g.OH * g.OW;
    toChannelsLast(x, xT, g, L);
    std::memset(dyT, 0, sizeof(float) * static_cast<size_t>(L.out(g)));
    for (int64_t c = 0; c < g.C; ++c)
        for (int64_t p = 0; p < ohw; ++p) dyT[p * L.Cp + c] = dy[c * ohw + p];
    for (int64_t kh = 0; kh < g.KH; ++kh)
        for (int64_t kw = 0; kw < g.KW; ++kw)
            for (int64_t cb = 0; cb < L.Cp; cb += kLanes) {
                // Two accumulators (even and odd columns), added in a fixed order.
                v8 a0 = {}, a1 = {};
                for (int64_t oh = 0; oh < g.OH; ++oh) {
                    const float* row = xT + ((oh * g.sh + kh) * L.Wp + kw) * L.Cp + cb;
                    const float* d = dyT + oh * g.OW * L.Cp + cb;
                    int64_t ow = 0;
                    for (; ow + 2 <= g.OW; ow += 2) {
                        a0 += load(d + ow * L.Cp) * load(row + ow * g.sw * L.Cp);
                        a1 += load(d + (ow + 1) * L.Cp) * load(row + (ow + 1) * g.sw * L.Cp);
                    }
                    if (ow < g.OW) a0 += load(d + ow * L.Cp) * load(row + ow * g.sw * L.Cp);
                }
                float* dst = dwPacked + (kh * g.KW + kw) * L.Cp + cb;
                store(dst, load(dst) + (a0 + a1));
            }
}

}  // namespace ts::engine::depthwise
