// The host's BatchNorm kernels. Channels are spread over the intra-op pool, each computed by
// one part, and every sum runs over 8 fixed lanes per plane then across planes in double, so
// the result does not depend on the thread count.
#include <cmath>

#include "core/engine/ops/cpu_kernels.h"
#include "core/engine/tensor/parallel.h"

namespace ts::engine::cpu {

namespace {

/// Sum of p[0..n) over 8 lanes (vectorizable without reassociating: the lanes are explicit).
inline float sum8(const float* __restrict p, int64_t n) {
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int j = 0; j < 8; ++j) acc[j] += p[i + j];
    float s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
    for (; i < n; ++i) s += p[i];
    return s;
}

/// Sum of (p - m)^2.
inline float sumSq8(const float* __restrict p, int64_t n, float m) {
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int j = 0; j < 8; ++j) {
            const float d = p[i + j] - m;
            acc[j] += d * d;
        }
    float s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
    for (; i < n; ++i) s += (p[i] - m) * (p[i] - m);
    return s;
}

/// Sum of g * (x - m).
inline float dot8(const float* __restrict g, const float* __restrict x, int64_t n, float m) {
    float acc[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int64_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int j = 0; j < 8; ++j) acc[j] += g[i + j] * (x[i + j] - m);
    float s = ((acc[0] + acc[1]) + (acc[2] + acc[3])) + ((acc[4] + acc[5]) + (acc[6] + acc[7]));
    for (; i < n; ++i) s += g[i] * (x[i] - m);
    return s;
}

struct BnGeom {
    int64_t N, C, HW;
    int64_t plane(int64_t n, int64_t c) const { return (n * C + c) * HW; }
    /// Channels per part: about 32K elements each.
    int64_t grain() const { return std::max<int64_t>(1, (1 << 15) / std::max<int64_t>(1, N * HW)); }
};

}  // namespace

Tensor batchNorm(const Tensor& x, const Tensor& gamma, const Tensor& beta, const Tensor& runMean,
                 const Tensor& runVar, const Tensor& mean, const Tensor& invstd,
                 const kernels::BatchNormArgs& a) {
    const BnGeom g{a.N, a.C, a.HW};
    const int64_t M = g.N * g.HW;
    Tensor o = Tensor::empty(x.shape());
    const float* px = x.f32();
    parallelFor(g.C, g.grain(), [&](int64_t c0, int64_t c1) {
        for (int64_t c = c0; c < c1; ++c) {
            double mu, var;
            if (a.training) {
                double s = 0, s2 = 0;
                for (int64_t n = 0; n < g.N; ++n) s += sum8(px + g.plane(n, c), g.HW);
                mu = s / static_cast<double>(M);
                for (int64_t n = 0; n < g.N; ++n)
                    s2 += sumSq8(px + g.plane(n, c), g.HW, static_cast<float>(mu));
                var = s2 / static_cast<double>(M);
                const double unbiased = M > 1 ? s2 / static_cast<double>(M - 1) : var;
                runMean.f32()[c] =
                    static_cast<float>(a.momentum * runMean.f32()[c] + (1 - a.momentum) * mu);
                runVar.f32()[c] =
                    static_cast<float>(a.momentum * runVar.f32()[c] + (1 - a.momentum) * unbiased);
            } else {
                mu = runMean.f32()[c];
                var = runVar.f32()[c];
            }
            const float is = static_cast<float>(1.0 / std::sqrt(var + a.eps));
            const float m = static_cast<float>(mu);
            mean.f32()[c] = m;
            invstd.f32()[c] = is;
            const float k = gamma.f32()[c] * is, b = beta.f32()[c];
            for (int64_t n = 0; n < g.N; ++n) {
                const float* __restrict xp = px + g.plane(n, c);
                float* __restrict op = o.f32() + g.plane(n, c);
                for (int64_t i = 0; i < g.HW; ++i) op[i] = (xp[i] - m) * k + b;
            }
        }
    });
    return o;
}

std::vector<Tensor> batchNormGrad(const Tensor& grad, const Tensor& x, const Tensor& gamma,
                                  const Tensor& mean, const Tensor& invstd,
                                  const kernels::BatchNormArgs& a) {
    const BnGeom g{a.N, a.C, a.HW};
    const int64_t M = g.N * g.HW;
    Tensor dx = Tensor::empty(grad.shape());
    Tensor dgamma = Tensor::empty({g.C}), dbeta = Tensor::empty({g.C});
    const float* pg = grad.f32();
    const float* px = x.f32();
    parallelFor(g.C, g.grain(), [&](int64_t c0, int64_t c1) {
        for (int64_t c = c0; c < c1; ++c) {
            const float m = mean.f32()[c], is = invstd.f32()[c];
            double sg = 0, sgd = 0;
            for (int64_t n = 0; n < g.N; ++n) {
                sg += sum8(pg + g.plane(n, c), g.HW);
                sgd += dot8(pg + g.plane(n, c), px + g.plane(n, c), g.HW, m);
            }
            const double sgh = sgd * is;  // sum of g * xhat
            dgamma.f32()[c] = static_cast<float>(sgh);
            dbeta.f32()[c] = static_cast<float>(sg);
            const float k1 = gamma.f32()[c] * is;
            float k2 = 0, k3 = 0;
            if (a.training) {
                k2 = static_cast<float>(-k1 * is * sgh / static_cast<double>(M));
                k3 = static_cast<float>(-k1 * sg / static_cast<double>(M));
            }
            for (int64_t n = 0; n < g.N; ++n) {
                const float* __restrict gp = pg + g.plane(n, c);
                const float* __restrict xp = px + g.plane(n, c);
                float* __restrict dp = dx.f32() + g.plane(n, c);
                for (int64_t i = 0; i < g.HW; ++i) dp[i] = k1 * gp[i] + k2 * (xp[i] - m) + k3;
            }
        }
    });
    return {dx, dgamma, dbeta};
}

}  // namespace ts::engine::cpu
