// Cell hooks (hooks.h). Backward hooks use PyTorch's scheme for full backward hooks: the
// cell's input and output pass through identity autograd nodes ("BackwardHook", no op is
// dispatched); the output's node sees the output gradient first, the input's node then the
// input gradient and calls the hooks with both.
#include "core/engine/model/hooks.h"

#include <algorithm>
#include <vector>

#include "core/engine/model/cell.h"
#include "core/engine/tensor/autograd.h"
#include "core/engine/tensor/dispatcher.h"

namespace ts::engine {

struct CellHooks {
    uint64_t next = 1;
    std::vector<std::pair<uint64_t, ForwardPreHook>> pre;
    std::vector<std::pair<uint64_t, ForwardHook>> forward;
    std::vector<std::pair<uint64_t, BackwardHook>> backward;

    template <class V>
    static bool erase(V& v, uint64_t id) {
        auto it = std::find_if(v.begin(), v.end(), [id](const auto& p) { return p.first == id; });
        if (it == v.end()) return false;
        v.erase(it);
        return true;
    }
    template <class V>
    static bool has(const V& v, uint64_t id) {
        return std::any_of(v.begin(), v.end(), [id](const auto& p) { return p.first == id; });
    }
};

void HookHandle::remove() {
    if (auto h = m_hooks.lock())
        CellHooks::erase(h->pre, m_id) || CellHooks::erase(h->forward, m_id) ||
            CellHooks::erase(h->backward, m_id);
}

bool HookHandle::active() const {
    auto h = m_hooks.lock();
    return h && (CellHooks::has(h->pre, m_id) || CellHooks::has(h->forward, m_id) ||
                 CellHooks::has(h->backward, m_id));
}

CellHooks& Cell::hooks() {
    if (!m_hooks) m_hooks = std::make_shared<CellHooks>();
    return *m_hooks;
}

HookHandle Cell::registerForwardPreHook(ForwardPreHook hook) {
    CellHooks& h = hooks();
    h.pre.emplace_back(h.next, std::move(hook));
    return {m_hooks, h.next++};
}

HookHandle Cell::registerForwardHook(ForwardHook hook) {
    CellHooks& h = hooks();
    h.forward.emplace_back(h.next, std::move(hook));
    return {m_hooks, h.next++};
}

HookHandle Cell::registerBackwardHook(BackwardHook hook) {
    CellHooks& h = hooks();
    h.backward.emplace_back(h.next, std::move(hook));
    return {m_hooks, h.next++};
}

namespace {

/// What the two identity nodes of one call share.
struct BackwardCall {
    std::shared_ptr<CellHooks> hooks;
    Cell* cell = nullptr;
    std::string scope;
    int64_t step = 0;
    int epoch = 0;
    bool training = false;
    bool inputTracked = false;  // the input needs a gradient: its node calls the hooks
    Tensor gradOutput;

    void fire(const Tensor& gradInput) const {
        const HookContext ctx{*cell, scope, step, epoch, training};
        const auto list = hooks->backward;  // a hook may remove itself
        for (const auto& [id, fn] : list) fn(ctx, gradInput, gradOutput);
    }
};

/// `t` through an identity node whose backward calls `onGrad(gradient)`.
Tensor identityNode(const Tensor& t, std::function<void(const Tensor&)> onGrad) {
    return record(t.view(t.shape()), "BackwardHook", {t}, [onGrad](const Tensor& g) {
        onGrad(g);
        return std::vector<Tensor>{g};
    });
}

}  // namespace

bool Cell::hooked() const {
    return m_hooks &&
           !(m_hooks->pre.empty() && m_hooks->forward.empty() && m_hooks->backward.empty());
}

Tensor Cell::callWithHooks(const Tensor& x) {
    std::shared_ptr<CellHooks> keep = m_hooks;  // hooks may remove themselves while running
    const Dispatcher& d = Dispatcher::current();
    const std::string scope = d.scope();
    const HookContext ctx{*this, scope, d.step(), d.epoch(), training()};
    Tensor in = x;
    for (const auto& [id, fn] : std::vector(keep->pre)) fn(ctx, in);
    std::shared_ptr<BackwardCall> bw;
    if (!keep->backward.empty() && NoGradGuard::gradEnabled()) {
        bw = std::make_shared<BackwardCall>();
        bw->hooks = keep;
        bw->cell = this;
        bw->scope = scope;
        bw->step = ctx.step;
        bw->epoch = ctx.epoch;
        bw->training = ctx.training;
        bw->inputTracked = in.defined() && in.requiresGrad();
        if (bw->inputTracked) in = identityNode(in, [bw](const Tensor& g) { bw->fire(g); });
    }
    Tensor out = forward(in);
    for (const auto& [id, fn] : std::vector(keep->forward)) fn(ctx, in, out);
    if (bw && out.defined() && out.requiresGrad()) {
        out = identityNode(out, [bw](const Tensor& g) {
            bw->gradOutput = g;
            if (!bw->inputTracked) bw->fire(Tensor());
        });
    }
    return out;
}

}  // namespace ts::engine
