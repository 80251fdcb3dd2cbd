#include "core/engine/tensor/autograd.h"

#include <stdexcept>
#include <unordered_map>
#include <unordered_set>

#include "core/engine/device/device.h"
#include "core/engine/ops/ops.h"
#include "core/engine/tensor/dispatcher.h"
#include "core/engine/tensor/grad_ready.h"

namespace ts::engine {

namespace {
thread_local const GradReadyFn* t_gradReady = nullptr;
}  // namespace

GradReadyHook::GradReadyHook(GradReadyFn fn) : m_fn(std::move(fn)), m_prev(t_gradReady) {
    t_gradReady = &m_fn;
}
GradReadyHook::~GradReadyHook() {
    t_gradReady = m_prev;
}
const GradReadyFn* GradReadyHook::current() {
    return t_gradReady;
}

bool needsGrad(const std::vector<Tensor>& inputs) {
    if (!NoGradGuard::gradEnabled()) return false;
    for (const Tensor& t : inputs)
        if (t.defined() && t.requiresGrad()) return true;
    return false;
}

namespace {
std::shared_ptr<Node> makeNode(std::string opType, std::vector<Tensor> inputs) {
    auto node = std::make_shared<Node>();
    node->opType = std::move(opType);
    Dispatcher& d = Dispatcher::current();
    // The forward op just dispatched: its name, so backward scopes embed it exactly.
    if (d.observed()) node->scope = d.scopeNameFor(node->opType, d.forwardOpsThisStep() - 1, false);
    node->inputs = std::move(inputs);
    return node;
}
}  // namespace

Tensor record(Tensor out, std::string opType, std::vector<Tensor> inputs,
              std::function<std::vector<Tensor>(const Tensor&)> backward) {
    if (!needsGrad(inputs)) return out;
    auto node = makeNode(std::move(opType), std::move(inputs));
    node->backward = std::move(backward);
    out.setRequiresGrad(true);
    out.setGradFn(std::move(node));
    return out;
}

std::vector<Tensor> recordMulti(
    std::vector<Tensor> outs, std::string opType, std::vector<Tensor> inputs,
    std::function<std::vector<Tensor>(const std::vector<Tensor>&)> backward) {
    if (!needsGrad(inputs)) return outs;
    auto node = makeNode(std::move(opType), std::move(inputs));
    node->outputs = static_cast<int>(outs.size());
    node->backwardMulti = std::move(backward);
    for (size_t i = 0; i < outs.size(); ++i) {
        outs[i].setRequiresGrad(true);
        outs[i].setGradFn(node, static_cast<int>(i));
    }
    return outs;
}

void Tensor::backward(float seed) const {
    if (!requiresGrad()) throw std::logic_error("backward: tensor does not require grad");
    // Reverse topological order of the nodes this tensor depends on (depth-first post-order).
    std::vector<std::shared_ptr<Node>> order;
    if (gradFn()) {
        std::unordered_set<Node*> seen{gradFn().get()};
        std::vector<std::pair<std::shared_ptr<Node>, size_t>> stack{{gradFn(), 0}};
        while (!stack.empty()) {
            auto& [node, i] = stack.back();
            if (i < node->inputs.size()) {
                const Tensor& in = node->inputs[i++];
                if (in.defined() && in.requiresGrad() && in.gradFn() &&
                    seen.insert(in.gradFn().get()).second)
                    stack.push_back({in.gradFn(), 0});
                continue;
            }
            order.push_back(node);
            stack.pop_back();
        }
    }
    Tensor start = fullOn(device(), shape(), seed);
    if (!gradFn()) {  // a leaf: its gradient is the seed
        Tensor leaf = *this;
        leaf.setGrad(leaf.grad().defined() ? ops::addN(leaf.grad(), start) : start);
        return;
    }
    // Output gradients per node, one slot per output.
    std::unordered_map<Node*, std::vector<Tensor>> grads;
    auto slot = [&grads](Node* n) -> std::vector<Tensor>& {
        auto& v = grads[n];
        if (v.empty()) v.resize(static_cast<size_t>(n->outputs));
        return v;
    };
    slot(gradFn().get())[static_cast<size_t>(outputIndex())] = start;
    // With a GradReadyHook: per leaf, the nodes still to run that take it; at 0 its gradient
    // is final.
    const GradReadyFn* onReady = GradReadyHook::current();
    std::unordered_map<const TensorImpl*, int> waiting;
    auto isLeaf = [](const Tensor& t) { return t.defined() && t.requiresGrad() && !t.gradFn(); };
    if (onReady)
        for (const auto& node : order)
            for (const Tensor& in : node->inputs)
                if (isLeaf(in)) ++waiting[in.impl()];
    auto ran = [&](const Node& node) {
        if (!onReady) return;
        for (const Tensor& in : node.inputs)
            if (isLeaf(in) && --waiting[in.impl()] == 0) (*onReady)(in);
    };
    Dispatcher& d = Dispatcher::current();
    NoGradGuard noGrad;
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        const std::shared_ptr<Node>& node = *it;
        auto g = grads.find(node.get());
        if (g == grads.end()) {
            ran(*node);
            continue;
        }
        const std::vector<Tensor> gradOuts = std::move(g->second);
        grads.erase(g);
        d.setGradientScope(node->scope);
        std::vector<Tensor> ins =
            node->backwardMulti ? node->backwardMulti(gradOuts) : node->backward(gradOuts[0]);
        for (size_t k = 0; k < ins.size() && k < node->inputs.size(); ++k) {
            const Tensor& in = node->inputs[k];
            if (!ins[k].defined() || !in.defined() || !in.requiresGrad()) continue;
            if (in.gradFn()) {
                Tensor& acc = slot(in.gradFn().get())[static_cast<size_t>(in.outputIndex())];
                acc = acc.defined() ? ops::addN(acc, ins[k]) : ins[k];
            } else {
                Tensor leaf = in;
                if (leaf.grad().defined())
                    leaf.setGrad(ops::addN(leaf.grad(), ins[k]));
                else
                    leaf.setGrad(ins[k]);
            }
        }
        ran(*node);
    }
    d.setGradientScope({});
}

}  // namespace ts::engine
