#pragma once
// Optimizers over named parameters: SGD (momentum, Nesterov, weight decay) as MindSpore's
// Momentum / PyTorch's SGD, and Adam. Updates run through the dispatcher as op "ApplyMomentum"
// / "Adam". Learning-rate schedules and gradient clipping by global norm.
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "core/engine/model/cell.h"

namespace ts::engine {

/// Learning rate as a function of the global step (0-based) and steps per epoch.
struct LrSchedule {
    enum class Kind { Constant, Step, Cosine } kind = Kind::Constant;
    double base = 0.01;
    int64_t stepSize = 1;    // Step: decay every stepSize epochs
    double gamma = 0.1;      // Step: factor
    int64_t totalSteps = 1;  // Cosine: steps to anneal over
    double minLr = 0.0;      // Cosine: floor
    double at(int64_t step, int64_t stepsPerEpoch) const;
};

class Optimizer {
public:
    explicit Optimizer(std::vector<NamedParam> params) : m_params(std::move(params)) {}
    virtual ~Optimizer() = default;
    virtual std::string name() const = 0;
    /// Applies one update with learning rate `lr` using each parameter's grad.
    virtual void step(double lr) = 0;
    void zeroGrad();
    const std::vector<NamedParam>& params() const { return m_params; }
    /// State tensors by checkpoint tag, named as MindSpore's optimizers name them
    /// ("moments.fc1.weight" for Momentum, "moment1." / "moment2." for Adam).
    virtual std::map<std::string, Tensor> state() const = 0;
    /// Restores state by tag; unknown tags are ignored. Returns tags it used.
    virtual int loadState(const std::map<std::string, Tensor>& state) = 0;
    int64_t updates() const { return m_updates; }
    void setUpdates(int64_t n) { m_updates = n; }

protected:
    std::vector<NamedParam> m_params;
    int64_t m_updates = 0;
};

struct SgdOptions {
    double momentum = 0.0;
    bool nesterov = false;
    double weightDecay = 0.0;
};

class Sgd : public Optimizer {
public:
    Sgd(std::vector<NamedParam> params, SgdOptions opt);
    std::string name() const override { return "sgd"; }
    void step(double lr) override;
    std::map<std::string, Tensor> state() const override;
    int loadState(const std::map<std::string, Tensor>& state) override;

private:
    SgdOptions m_opt;
    std::vector<Tensor> m_moments;
};

struct AdamOptions {
    double beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weightDecay = 0.0;
};

class Adam : public Optimizer {
public:
    Adam(std::vector<NamedParam> params, AdamOptions opt);
    std::string name() const override { return "adam"; }
    void step(double lr) override;
    std::map<std::string, Tensor> state() const override;
    int loadState(const std::map<std::string, Tensor>& state) override;

private:
    AdamOptions m_opt;
    std::vector<Tensor> m_m, m_v;
};

/// Scales all gradients so their global L2 norm is at most maxNorm; returns the norm before.
double clipGradNorm(const std::vector<NamedParam>& params, double maxNorm);
/// True when every gradient is finite.
bool gradientsFinite(const std::vector<NamedParam>& params);

}  // namespace ts::engine
