#include "core/engine/train/optimizer.h"

#include <cmath>
#include <cstring>

#include "core/engine/device/device.h"
#include "core/engine/ops/op_util.h"
#include "core/log/logger.h"

namespace ts::engine {

double LrSchedule::at(int64_t step, int64_t stepsPerEpoch) const {
    switch (kind) {
        case Kind::Constant:
            return base;
        case Kind::Step: {
            const int64_t epoch = stepsPerEpoch > 0 ? step / stepsPerEpoch : 0;
            return base *
                   std::pow(gamma, static_cast<double>(epoch / std::max<int64_t>(1, stepSize)));
        }
        case Kind::Cosine: {
            const double t =
                std::min(1.0, static_cast<double>(step) /
                                  static_cast<double>(std::max<int64_t>(1, totalSteps)));
            return minLr + 0.5 * (base - minLr) * (1.0 + std::cos(M_PI * t));
        }
    }
    return base;
}

void Optimizer::zeroGrad() {
    for (auto& p : m_params) p.tensor.zeroGrad();
}

namespace {
std::vector<Tensor> zerosLike(const std::vector<NamedParam>& params) {
    std::vector<Tensor> out;
    for (const auto& p : params) out.push_back(zerosOn(p.tensor.device(), p.tensor.shape()));
    return out;
}

/// The parameters an update touches (trainable, with a gradient) and their state tensors, when
/// one multi-tensor launch may update them all: nothing observes ops (a profile, dumps or
/// hooks see one ApplyMomentum / Adam op per parameter instead) and they share a device
/// whose kernels have the multi-tensor form. nullptr otherwise.
struct Many {
    std::vector<Tensor> w, g, m, v;
};
const KernelTable* manyOf(const std::vector<NamedParam>& params, const std::vector<Tensor>* m,
                          const std::vector<Tensor>* v, bool adam, Many& out) {
    if (Dispatcher::current().observed() || params.empty()) return nullptr;
    const KernelTable& k = kernelsOf(params[0].tensor.device());
    if (adam ? !k.adamMany : !k.sgdMany) return nullptr;
    for (size_t i = 0; i < params.size(); ++i) {
        const NamedParam& p = params[i];
        if (!p.trainable || !p.tensor.grad().defined()) continue;
        if (p.tensor.device() != k.device || p.tensor.grad().device() != k.device) return nullptr;
        out.w.push_back(p.tensor);
        out.g.push_back(p.tensor.grad());
        out.m.push_back((*m)[i]);
        if (v) out.v.push_back((*v)[i]);
    }
    return &k;
}

int loadInto(const std::map<std::string, Tensor>& state, const std::string& prefix,
             const std::vector<NamedParam>& params, std::vector<Tensor>& slots) {
    int used = 0;
    for (size_t i = 0; i < params.size(); ++i) {
        auto it = state.find(prefix + params[i].name);
        if (it == state.end() || it->second.shape() != slots[i].shape() ||
            it->second.dtype() != DType::Float32)
            continue;
        Tensor dst = slots[i];
        if (onDevice(dst))  // a device slot takes a device copy of the host value, in place
            dst.impl()->storage = toDevice(it->second, dst.device()).impl()->storage;
        else
            std::memcpy(dst.raw(), it->second.raw(), dst.nbytes());
        ++used;
    }
    return used;
}
}  // namespace

Sgd::Sgd(std::vector<NamedParam> params, SgdOptions opt)
    : Optimizer(std::move(params)), m_opt(opt) {
    m_moments = zerosLike(m_params);
    TS_LOG(OPTIMIZER, INFO) << "SGD over " << m_params.size() << " parameters, momentum "
                            << opt.momentum << (opt.nesterov ? " (Nesterov)" : "")
                            << ", weight decay " << opt.weightDecay;
}

void Sgd::step(double lrD) {
    const kernels::SgdArgs a{static_cast<float>(lrD), static_cast<float>(m_opt.momentum),
                             static_cast<float>(m_opt.weightDecay), m_opt.nesterov};
    Many many;
    if (const KernelTable* k = manyOf(m_params, &m_moments, nullptr, false, many)) {
        k->sgdMany(many.w, many.g, many.m, a);
        ++m_updates;
        return;
    }
    for (size_t i = 0; i < m_params.size(); ++i) {
        NamedParam& p = m_params[i];
        if (!p.trainable || !p.tensor.grad().defined()) continue;
        Tensor w = p.tensor, g = p.tensor.grad(), v = m_moments[i];
        const KernelTable* k = detail::kernelsFor("ApplyMomentum", {&w, &g, &v});
        detail::run1(k, "ApplyMomentum", {w, g, v}, [&](std::vector<Tensor>& in) {
            k->sgd(in[0], in[1], in[2], a);
            return in[0];
        });
    }
    ++m_updates;
}

std::map<std::string, Tensor> Sgd::state() const {
    std::map<std::string, Tensor> out;
    for (size_t i = 0; i < m_params.size(); ++i) out["moments." + m_params[i].name] = m_moments[i];
    return out;
}

int Sgd::loadState(const std::map<std::string, Tensor>& state) {
    return loadInto(state, "moments.", m_params, m_moments);
}

Adam::Adam(std::vector<NamedParam> params, AdamOptions opt)
    : Optimizer(std::move(params)), m_opt(opt) {
    m_m = zerosLike(m_params);
    m_v = zerosLike(m_params);
    TS_LOG(OPTIMIZER, INFO) << "Adam over " << m_params.size() << " parameters, beta1 " << opt.beta1
                            << ", beta2 " << opt.beta2 << ", weight decay " << opt.weightDecay;
}

void Adam::step(double lrD) {
    const int64_t t = m_updates + 1;
    const double bc1 = 1.0 - std::pow(m_opt.beta1, static_cast<double>(t));
    const double bc2 = 1.0 - std::pow(m_opt.beta2, static_cast<double>(t));
    const float b1 = static_cast<float>(m_opt.beta1), b2 = static_cast<float>(m_opt.beta2),
                eps = static_cast<float>(m_opt.eps), wd = static_cast<float>(m_opt.weightDecay);
    const float stepSize = static_cast<float>(lrD / bc1);
    const float sq = static_cast<float>(std::sqrt(bc2));
    const kernels::AdamArgs a{b1, b2, eps, wd, stepSize, sq};
    Many many;
    if (const KernelTable* k = manyOf(m_params, &m_m, &m_v, true, many)) {
        k->adamMany(many.w, many.g, many.m, many.v, a);
        ++m_updates;
        return;
    }
    for (size_t i = 0; i < m_params.size(); ++i) {
        NamedParam& p = m_params[i];
        if (!p.trainable || !p.tensor.grad().defined()) continue;
        Tensor w = p.tensor, g = p.tensor.grad(), m = m_m[i], v = m_v[i];
        const KernelTable* k = detail::kernelsFor("Adam", {&w, &g, &m, &v});
        detail::run1(k, "Adam", {w, g, m, v}, [&](std::vector<Tensor>& in) {
            k->adam(in[0], in[1], in[2], in[3], a);
            return in[0];
        });
    }
    ++m_updates;
}

std::map<std::string, Tensor> Adam::state() const {
    std::map<std::string, Tensor> out;
    for (size_t i = 0; i < m_params.size(); ++i) {
        out["moment1." + m_params[i].name] = m_m[i];
        out["moment2." + m_params[i].name] = m_v[i];
    }
    return out;
}

int Adam::loadState(const std::map<std::string, Tensor>& state) {
    // MindSpore's names; "adam_m." / "adam_v." are what older sessions of this engine wrote.
    return loadInto(state, "moment1.", m_params, m_m) + loadInto(state, "moment2.", m_params, m_v) +
           loadInto(state, "adam_m.", m_params, m_m) + loadInto(state, "adam_v.", m_params, m_v);
}

double clipGradNorm(const std::vector<NamedParam>& params, double maxNorm) {
    double sq = 0;
    for (const auto& p : params) {
        const Tensor g = p.tensor.grad();
        if (!g.defined()) continue;
        sq += sumOfSquares(g);
    }
    const double norm = std::sqrt(sq);
    TS_LOG(OPTIMIZER, DEBUG) << "gradient norm " << norm << " (clip at " << maxNorm << ")";
    if (norm > maxNorm && norm > 0) {
        const float s = static_cast<float>(maxNorm / norm);
        for (const auto& p : params) {
            const Tensor g = p.tensor.grad();
            if (!g.defined()) continue;
            scaleInPlace(g, s);
        }
    }
    return norm;
}

bool gradientsFinite(const std::vector<NamedParam>& params) {
    for (const auto& p : params) {
        const Tensor g = p.tensor.grad();
        if (!g.defined()) continue;
        if (onDevice(g)) {
            if (nonFiniteCount(g) > 0) return false;
            continue;
        }
        for (int64_t i = 0, n = g.numel(); i < n; ++i)
            if (!std::isfinite(g.f32()[i])) return false;
    }
    return true;
}

}  // namespace ts::engine
