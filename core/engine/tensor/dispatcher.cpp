#include "core/engine/tensor/dispatcher.h"

#include <algorithm>

namespace ts::engine {

namespace {
thread_local Dispatcher* t_dispatcher = nullptr;
thread_local bool t_gradEnabled = true;
}  // namespace

const char* phaseName(Phase p) {
    switch (p) {
        case Phase::DataLoading:
            return "data_loading";
        case Phase::Forward:
            return "forward";
        case Phase::Backward:
            return "backward";
        case Phase::Optimizer:
            return "optimizer";
        case Phase::Callbacks:
            return "callbacks";
    }
    return "?";
}

Dispatcher& Dispatcher::current() {
    if (t_dispatcher) return *t_dispatcher;
    thread_local Dispatcher fallback;
    return fallback;
}

Dispatcher* Dispatcher::install(Dispatcher* d) {
    Dispatcher* prev = t_dispatcher;
    t_dispatcher = d;
    return prev;
}

void Dispatcher::addObserver(OpObserver* o) {
    if (o && std::find(m_observers.begin(), m_observers.end(), o) == m_observers.end())
        m_observers.push_back(o);
}

void Dispatcher::removeObserver(OpObserver* o) {
    m_observers.erase(std::remove(m_observers.begin(), m_observers.end(), o), m_observers.end());
}

void Dispatcher::pushScope(std::string_view part) {
    m_scopeMarks.push_back(m_scope.size());
    m_scope += '/';
    m_scope += part;
}

void Dispatcher::popScope() {
    if (m_scopeMarks.empty()) return;
    m_scope.resize(m_scopeMarks.back());
    m_scopeMarks.pop_back();
}

std::string Dispatcher::scopeNameFor(std::string_view opType, int64_t index, bool backward) const {
    std::string s;
    if (backward) {
        s = "Gradients/";
        s += m_gradScope.empty() ? m_scope : m_gradScope;
    } else {
        s = m_scope;
    }
    s += '/';
    s += opType;
    s += "-op";
    s += std::to_string(index);
    return s;
}

void Dispatcher::beginStep(int epoch, int64_t step) {
    m_epoch = epoch;
    m_step = step;
    m_seq = 0;
    m_fwdIndex = 0;
    m_bwdIndex = 0;
}

NoGradGuard::NoGradGuard() : m_prev(t_gradEnabled) {
    t_gradEnabled = false;
}
NoGradGuard::~NoGradGuard() {
    t_gradEnabled = m_prev;
}
bool NoGradGuard::gradEnabled() {
    return t_gradEnabled;
}

}  // namespace ts::engine
