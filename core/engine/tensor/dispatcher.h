#pragma once
// Dispatcher: the one gate every forward and backward op of the engine goes through. It names
// ops by cell scope (Default/<cell path>/<OpType>-op<N>), numbers them per step, and calls the
// attached OpObservers before and after each kernel. Kernels are never called elsewhere.
// A Dispatcher is used by one thread at a time; install() makes it the thread's current one.
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/engine/tensor/op_observer.h"

namespace ts::engine {

class Dispatcher {
public:
    Dispatcher() = default;
    Dispatcher(const Dispatcher&) = delete;
    Dispatcher& operator=(const Dispatcher&) = delete;

    /// The calling thread's dispatcher (a per-thread default unless install()ed).
    static Dispatcher& current();
    /// Makes `d` current on the calling thread (nullptr: back to the default); returns the one
    /// installed before, so scopes can nest.
    static Dispatcher* install(Dispatcher* d);

    void addObserver(OpObserver* o);
    void removeObserver(OpObserver* o);
    const std::vector<OpObserver*>& observers() const { return m_observers; }
    bool observed() const { return !m_observers.empty(); }

    /// Runs `kernel(inputs) -> outputs` as op `opType`. Observers see it before and after;
    /// in onOpBegin they may replace inputs (load mode). `attrs`: the op's attributes as the
    /// members of a JSON object (collectives: "bytes":...,"algorithm":...), or empty.
    template <class Kernel>
    std::vector<Tensor> run(std::string_view opType, std::vector<Tensor> inputs, Kernel&& kernel,
                            bool backward = false, std::string_view attrs = {}) {
        const int64_t seq = m_seq++;
        const int64_t idx = backward ? m_bwdIndex++ : m_fwdIndex++;
        if (m_observers.empty()) return kernel(inputs);
        OpEvent ev;
        ev.opType = opType;
        ev.scopeName = scopeNameFor(opType, idx, backward);
        ev.seqId = seq;
        ev.opIndex = idx;
        ev.backward = backward;
        ev.step = m_step;
        ev.epoch = m_epoch;
        ev.inputs = &inputs;
        ev.attrs = attrs;
        ev.startNs = nowNs();
        for (OpObserver* o : m_observers) o->onOpBegin(ev);
        std::vector<Tensor> outputs;
        try {
            outputs = kernel(inputs);
        } catch (const std::exception& e) {
            for (OpObserver* o : m_observers) o->onOpError(ev, e.what());
            throw;
        }
        ev.endNs = nowNs();
        ev.outputs = &outputs;
        ev.endAttrs = m_endAttrs;
        for (OpObserver* o : m_observers) o->onOpEnd(ev);
        m_endAttrs.clear();
        return outputs;
    }

    /// From inside a kernel, after its last nested op: attributes of the running op known only
    /// once it ran (members of a JSON object), which observers see as OpEvent::endAttrs.
    /// Ignored when nothing observes.
    void setEndAttrs(std::string attrs) {
        if (!m_observers.empty()) m_endAttrs = std::move(attrs);
    }

    /// Scope: cells push their "<name>-<Type>" on entry and pop on exit.
    void pushScope(std::string_view part);
    void popScope();
    /// Current cell path, e.g. "Default/network-WithLossCell/_backbone-LeNet5".
    const std::string& scope() const { return m_scope; }
    /// Full name a forward op would get now (used by autograd to name its backward ops).
    std::string scopeNameFor(std::string_view opType, int64_t index, bool backward) const;
    /// During backward: the forward op whose gradient is being computed.
    void setGradientScope(std::string scope) { m_gradScope = std::move(scope); }

    /// Step bookkeeping (the trainer calls these; seq ids restart per step).
    void beginStep(int epoch, int64_t step);
    int64_t step() const { return m_step; }
    int epoch() const { return m_epoch; }
    int64_t opsThisStep() const { return m_seq; }
    /// Forward ops dispatched so far in this step (the next forward op gets "-op<this>").
    int64_t forwardOpsThisStep() const { return m_fwdIndex; }

    static int64_t nowNs() {
        return std::chrono::duration_cast<std::chrono::nanoseconds>(
                   std::chrono::steady_clock::now().time_since_epoch())
            .count();
    }

private:
    std::vector<OpObserver*> m_observers;
    std::string m_scope = "Default";
    std::vector<size_t> m_scopeMarks;
    std::string m_gradScope;
    std::string m_endAttrs;
    int64_t m_seq = 0;
    int64_t m_fwdIndex = 0;
    int64_t m_bwdIndex = 0;
    int64_t m_step = 0;
    int m_epoch = 0;
};

/// RAII scope entry for cells.
class ScopeGuard {
public:
    explicit ScopeGuard(std::string_view part) : m_d(Dispatcher::current()) { m_d.pushScope(part); }
    ~ScopeGuard() { m_d.popScope(); }
    ScopeGuard(const ScopeGuard&) = delete;
    ScopeGuard& operator=(const ScopeGuard&) = delete;

private:
    Dispatcher& m_d;
};

/// Turns off graph recording while alive (evaluation, optimizer updates).
class NoGradGuard {
public:
    NoGradGuard();
    ~NoGradGuard();
    NoGradGuard(const NoGradGuard&) = delete;
    NoGradGuard& operator=(const NoGradGuard&) = delete;
    static bool gradEnabled();

private:
    bool m_prev;
};

}  // namespace ts::engine
