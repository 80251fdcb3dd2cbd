#include "core/engine/conv_depthwise.h"

#include <algorithm>
#include <cstring>

namespace ts::engine::depthwise {

namespace {

// The plane loops are short rows; with AVX2 (chosen at load time where the CPU has it) a row
// of 16 floats is two vector operations.
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TS_DW_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define TS_DW_CLONES
#endif

/// Padded plane: rows Hp, columns Wp; phase planes: sw of them, Hp rows of Wq columns.
struct Phases {
    int64_t Hp, Wp, Wq;
    explicit Phases(const Geometry& g)
        : Hp((g.OH - 1) * g.sh + g.KH), Wp((g.OW - 1) * g.sw + g.KW), Wq((Wp + g.sw - 1) / g.sw) {}
    int64_t floats(const Geometry& g) const { return g.sw * Hp * Wq; }
    /// Start of the run that tap (kh, kw) reads for output row oh.
    int64_t at(const Geometry& g, int64_t oh, int64_t kh, int64_t kw) const {
        return ((kw % g.sw) * Hp + oh * g.sh + kh) * Wq + kw / g.sw;
    }
};

/// x[H][W] into phase planes (zeros where the padded plane lies outside x).
TS_DW_CLONES void toPhases(const float* __restrict x, float* __restrict ph, const Geometry& g,
                           const Phases& P) {
    for (int64_t p = 0; p < g.sw; ++p)
        for (int64_t r = 0; r < P.Hp; ++r) {
            float* __restrict dst = ph + (p * P.Hp + r) * P.Wq;
            const int64_t h = r - g.pt;
            if (h < 0 || h >= g.H) {
                std::memset(dst, 0, sizeof(float) * static_cast<size_t>(P.Wq));
                continue;
            }
            const float* __restrict src = x + h * g.W;
            for (int64_t q = 0; q < P.Wq; ++q) {
                const int64_t c = q * g.sw + p - g.pl;
                dst[q] = c >= 0 && c < g.W ? src[c] : 0.f;
            }
        }
}

}  // namespace

int64_t scratchFloats(const Geometry& g) {
    const Phases P(g);
    return P.floats(g) + g.OW + 8;
}

TS_DW_CLONES void forwardPlane(const float* x, const float* w, float bias, float* out,
                               float* scratch, const Geometry& g) {
    const Phases P(g);
    toPhases(x, scratch, g, P);
    for (int64_t oh = 0; oh < g.OH; ++oh) {
        float* __restrict o = out + oh * g.OW;
        for (int64_t ow = 0; ow < g.OW; ++ow) o[ow] = bias;
        for (int64_t kh = 0; kh < g.KH; ++kh)
            for (int64_t kw = 0; kw < g.KW; ++kw) {
                const float wv = w[kh * g.KW + kw];
                const float* __restrict src = scratch + P.at(g, oh, kh, kw);
                for (int64_t ow = 0; ow < g.OW; ++ow) o[ow] += wv * src[ow];
            }
    }
}

TS_DW_CLONES void inputPlane(const float* dy, const float* w, float* dx, float* scratch,
                             const Geometry& g) {
    const Phases P(g);
    std::memset(scratch, 0, sizeof(float) * static_cast<size_t>(P.floats(g)));
    for (int64_t oh = 0; oh < g.OH; ++oh) {
        const float* __restrict d = dy + oh * g.OW;
        for (int64_t kh = 0; kh < g.KH; ++kh)
            for (int64_t kw = 0; kw < g.KW; ++kw) {
                const float wv = w[kh * g.KW + kw];
                float* __restrict dst = scratch + P.at(g, oh, kh, kw);
                for (int64_t ow = 0; ow < g.OW; ++ow) dst[ow] += wv * d[ow];
            }
    }
    // Back from the phase planes: input (h, c) is padded (h + pt, c + pl); positions no
    // window reads get zero.
    for (int64_t h = 0; h < g.H; ++h) {
        float* __restrict row = dx + h * g.W;
        const int64_t r = h + g.pt;
        for (int64_t c = 0; c < g.W; ++c) {
            const int64_t j = c + g.pl;
            row[c] =
                r < P.Hp && j < P.Wp ? scratch[((j % g.sw) * P.Hp + r) * P.Wq + j / g.sw] : 0.f;
        }
    }
}

TS_DW_CLONES void filterPlane(const float* x, const float* dy, float* dw, float* scratch,
                              const Geometry& g) {
    const Phases P(g);
    toPhases(x, scratch, g, P);
    float* __restrict acc = scratch + P.floats(g);
    for (int64_t kh = 0; kh < g.KH; ++kh)
        for (int64_t kw = 0; kw < g.KW; ++kw) {
            for (int64_t ow = 0; ow < g.OW; ++ow) acc[ow] = 0.f;
            for (int64_t oh = 0; oh < g.OH; ++oh) {
                const float* __restrict src = scratch + P.at(g, oh, kh, kw);
                const float* __restrict d = dy + oh * g.OW;
                for (int64_t ow = 0; ow < g.OW; ++ow) acc[ow] += d[ow] * src[ow];
            }
            float s = 0.f;
            for (int64_t ow = 0; ow < g.OW; ++ow) s += acc[ow];
            dw[kh * g.KW + kw] += s;
        }
}

}  // namespace ts::engine::depthwise
