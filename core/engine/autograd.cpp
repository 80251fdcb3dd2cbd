#include "core/engine/autograd.h"

#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "core/engine/device.h"
#include "core/engine/dispatcher.h"
#include "core/engine/ops.h"

namespace ts::engine {

bool needsGrad(const std::vector<Tensor>& inputs) {
    if (!NoGradGuard::gradEnabled()) return false;
    for (const Tensor& t : inputs)
        if (t.defined() && t.requiresGrad()) return true;
    return false;
}

Tensor record(Tensor out, std::string opType, std::vector<Tensor> inputs,
              std::function<std::vector<Tensor>(const Tensor&)> backward) {
    if (!needsGrad(inputs)) return out;
    auto node = std::make_shared<Node>();
    node->opType = std::move(opType);
    Dispatcher& d = Dispatcher::current();
    // The forward op just dispatched: its name, so backward scopes embed it exactly.
    if (d.observed()) node->scope = d.scopeNameFor(node->opType, d.forwardOpsThisStep() - 1, false);
    node->inputs = std::move(inputs);
    node->backward = std::move(backward);
    out.setRequiresGrad(true);
    out.setGradFn(std::move(node));
    return out;
}

namespace {
void accumulate(std::unordered_map<TensorImpl*, Tensor>& grads, const Tensor& t, const Tensor& g) {
    auto it = grads.find(t.impl());
    if (it == grads.end())
        grads.emplace(t.impl(), g);
    else
        it->second = ops::addN(it->second, g);
}
}  // namespace

void Tensor::backward(float seed) const {
    if (!requiresGrad()) throw std::logic_error("backward: tensor does not require grad");
    // Reverse topological order of non-leaf tensors.
    std::vector<Tensor> order;
    std::unordered_set<TensorImpl*> seen;
    std::vector<std::pair<Tensor, size_t>> stack{{*this, 0}};
    seen.insert(impl());
    while (!stack.empty()) {
        auto& [t, i] = stack.back();
        const auto& fn = t.gradFn();
        if (fn && i < fn->inputs.size()) {
            const Tensor in = fn->inputs[i++];
            if (in.defined() && in.requiresGrad() && in.gradFn() && seen.insert(in.impl()).second)
                stack.push_back({in, 0});
            continue;
        }
        order.push_back(t);
        stack.pop_back();
    }
    std::unordered_map<TensorImpl*, Tensor> grads;
    grads.emplace(impl(), toDevice(Tensor::full(shape(), seed), device()));
    Dispatcher& d = Dispatcher::current();
    NoGradGuard noGrad;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const Tensor& t = *it;
        auto g = grads.find(t.impl());
        if (g == grads.end()) continue;
        const Tensor gradOut = g->second;
        grads.erase(g);
        const auto& node = t.gradFn();
        d.setGradientScope(node->scope);
        std::vector<Tensor> ins = node->backward(gradOut);
        for (size_t k = 0; k < ins.size() && k < node->inputs.size(); ++k) {
            const Tensor& in = node->inputs[k];
            if (!ins[k].defined() || !in.defined() || !in.requiresGrad()) continue;
            if (in.gradFn()) {
                accumulate(grads, in, ins[k]);
            } else {
                Tensor leaf = in;
                if (leaf.grad().defined())
                    leaf.setGrad(ops::addN(leaf.grad(), ins[k]));
                else
                    leaf.setGrad(ins[k]);
            }
        }
    }
    d.setGradientScope({});
}

}  // namespace ts::engine
