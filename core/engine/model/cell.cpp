#include "core/engine/model/cell.h"

#include "core/engine/tensor/dispatcher.h"

namespace ts::engine {

Tensor Cell::operator()(const Tensor& x) {
    ScopeGuard scope(m_scopePart.empty() ? m_type : m_scopePart);
    if (m_hooks) return callWithHooks(x);
    return forward(x);
}

void Cell::setName(std::string name) {
    m_name = std::move(name);
    m_scopePart = m_name + "-" + m_type;
}

Tensor& Cell::addParam(const std::string& name, Tensor t, bool trainable) {
    t.setRequiresGrad(trainable);
    m_params.push_back({name, std::move(t), trainable});
    return m_params.back().tensor;
}

void Cell::collect(const std::string& prefix, std::vector<NamedParam>& out) const {
    for (const auto& p : m_params) out.push_back({prefix + p.name, p.tensor, p.trainable});
    for (const auto& [name, child] : m_children) child->collect(prefix + name + ".", out);
}

std::vector<NamedParam> Cell::parameters() const {
    std::vector<NamedParam> out;
    collect("", out);
    return out;
}

int64_t Cell::parameterCount(bool trainableOnly) const {
    int64_t n = 0;
    for (const auto& p : parameters())
        if (!trainableOnly || p.trainable) n += p.tensor.numel();
    return n;
}

void Cell::setTraining(bool on) {
    m_training = on;
    for (auto& [name, child] : m_children) child->setTraining(on);
}

void Cell::describeInto(std::string& out, int depth) const {
    const std::string pad(static_cast<size_t>(depth) * 2, ' ');
    out += pad + (m_name.empty() ? std::string("<root>") : m_name) + ": " + m_type + "\n";
    for (const auto& p : m_params)
        out += pad + "  %" + p.name + " : " + dtypeName(p.tensor.dtype()) +
               shapeString(p.tensor.shape()) + (p.trainable ? "" : " (not trainable)") + "\n";
    for (const auto& [name, child] : m_children) child->describeInto(out, depth + 1);
}

std::string Cell::describe() const {
    std::string out;
    describeInto(out, 0);
    return out;
}

}  // namespace ts::engine

namespace ts::engine {

std::vector<std::pair<std::string, Cell*>> Cell::namedCells() {
    std::vector<std::pair<std::string, Cell*>> out{{"", this}};
    for (const auto& [name, child] : m_children)
        for (auto& [sub, c] : child->namedCells())
            out.emplace_back(sub.empty() ? name : name + "." + sub, c);
    return out;
}

Cell* Cell::child(const std::string& path) {
    for (auto& [name, c] : namedCells())
        if (name == path) return c;
    return nullptr;
}

}  // namespace ts::engine
