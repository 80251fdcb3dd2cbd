#pragma once
// The math of the device's depthwise convolution (included by device_kernels.h): one input
// and one output channel per group (DepthwiseConv2dNative), x[N][C][H][W] * w[C][1][KH][KW]
// (+ b[C]) -> y[N][C][OH][OW], described by a ConvShape whose C and O are the channels.
// Forward and input gradient give one element each; the filter gradient is a reduction over
// N*OH*OW values per weight, cut into slices as the per-channel reductions are.
#include <cstdint>

namespace ts::engine::kernels {

TS_HD float depthwiseAt(const float* x, const float* w, const float* b, int64_t i,
                        const ConvShape& g) {
    const int64_t ow = i % g.OW, oh = (i / g.OW) % g.OH, c = (i / g.ohw()) % g.C,
                  n = i / (g.ohw() * g.C);
    const float* plane = x + (n * g.C + c) * g.H * g.W;
    const float* wc = w + c * g.KH * g.KW;
    float acc = 0.f;
    for (int64_t kh = 0; kh < g.KH; ++kh) {
        const int64_t ih = oh * g.sh - g.pt + kh;
        if (ih < 0 || ih >= g.H) continue;
        for (int64_t kw = 0; kw < g.KW; ++kw) {
            const int64_t iw = ow * g.sw - g.pl + kw;
            if (iw < 0 || iw >= g.W) continue;
            acc += plane[ih * g.W + iw] * wc[kh * g.KW + kw];
        }
    }
    return b ? acc + b[c] : acc;
}

/// Element i of dx: dy of every output whose window read it, times the weight that read it.
TS_HD float depthwiseInputAt(const float* dy, const float* w, int64_t i, const ConvShape& g) {
    const int64_t iw = i % g.W, ih = (i / g.W) % g.H, c = (i / (g.H * g.W)) % g.C,
                  n = i / (g.H * g.W * g.C);
    const float* dplane = dy + (n * g.C + c) * g.ohw();
    const float* wc = w + c * g.KH * g.KW;
    float acc = 0.f;
    for (int64_t kh = 0; kh < g.KH; ++kh) {
        const int64_t th = ih + g.pt - kh;
        if (th < 0 || th % g.sh != 0 || th / g.sh >= g.OH) continue;
        for (int64_t kw = 0; kw < g.KW; ++kw) {
            const int64_t tw = iw + g.pl - kw;
            if (tw < 0 || tw % g.sw != 0 || tw / g.sw >= g.OW) continue;
            acc += dplane[(th / g.sh) * g.OW + tw / g.sw] * wc[kh * g.KW + kw];
        }
    }
    return acc;
}

/// Term m (of the N*OH*OW outputs of its channel) of the filter gradient of weight
/// j = (c, kh, kw): dy times the input the weight met there (0 in the padding).
TS_HD double depthwiseFilterTerm(const float* dy, const float* x, int64_t j, int64_t m,
                                 const ConvShape& g) {
    const int64_t kw = j % g.KW, kh = (j / g.KW) % g.KH, c = j / (g.KH * g.KW);
    const int64_t ohw = g.ohw(), n = m / ohw, p = m % ohw;
    const int64_t ih = (p / g.OW) * g.sh - g.pt + kh, iw = (p % g.OW) * g.sw - g.pl + kw;
    if (ih < 0 || ih >= g.H || iw < 0 || iw >= g.W) return 0.0;
    return static_cast<double>(dy[(n * g.C + c) * ohw + p]) *
           x[((n * g.C + c) * g.H + ih) * g.W + iw];
}

}  // namespace ts::engine::kernels
