// The host's optimizer updates (ApplyMomentum, Adam), split over the intra-op pool.
#include <cmath>

#include "core/engine/ops/cpu_kernels.h"
#include "core/engine/tensor/parallel.h"

namespace ts::engine::cpu {

void sgd(const Tensor& w, const Tensor& g, const Tensor& v, const kernels::SgdArgs& a) {
    const float lr = a.lr, mom = a.momentum, wd = a.weightDecay;
    float* __restrict pw = w.f32();
    const float* __restrict pg = g.f32();
    float* __restrict pv = v.f32();
    parallelFor(w.numel(), 1 << 15, [&](int64_t b, int64_t e) {
        if (a.nesterov) {
            for (int64_t k = b; k < e; ++k) {
                const float gk = pg[k] + wd * pw[k];
                pv[k] = mom * pv[k] + gk;
                pw[k] -= lr * (gk + mom * pv[k]);
            }
        } else {
            for (int64_t k = b; k < e; ++k) {
                const float gk = pg[k] + wd * pw[k];
                pv[k] = mom * pv[k] + gk;
                pw[k] -= lr * pv[k];
            }
        }
    });
}

void adam(const Tensor& w, const Tensor& g, const Tensor& m, const Tensor& v,
          const kernels::AdamArgs& a) {
    const float b1 = a.beta1, b2 = a.beta2, eps = a.eps, wd = a.weightDecay;
    const float stepSize = a.stepSize, sq = a.sqrtBc2;
    float* __restrict pw = w.f32();
    const float* __restrict pg = g.f32();
    float* __restrict pm = m.f32();
    float* __restrict pv = v.f32();
    parallelFor(w.numel(), 1 << 14, [&](int64_t b, int64_t e) {
        for (int64_t k = b; k < e; ++k) {
            const float gk = pg[k] + wd * pw[k];
            pm[k] = b1 * pm[k] + (1 - b1) * gk;
            pv[k] = b2 * pv[k] + (1 - b2) * gk * gk;
            pw[k] -= stepSize * pm[k] / (std::sqrt(pv[k]) / sq + eps);
        }
    });
}

}  // namespace ts::engine::cpu
