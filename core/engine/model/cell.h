#pragma once
// Cell: a node of a model tree (MindSpore's nn.Cell). It owns named parameters and child
// cells; calling a cell pushes "<name>-<Type>" onto the dispatcher scope so every op gets a
// full scope name. Parameter names are dotted paths ("conv1.weight", "fc1.bias").
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "core/engine/model/hooks.h"
#include "core/engine/tensor/tensor.h"

namespace ts::engine {

struct NamedParam {
    std::string name;
    Tensor tensor;
    bool trainable = true;
};

class Cell {
public:
    explicit Cell(std::string typeName) : m_type(std::move(typeName)) {}
    virtual ~Cell() = default;
    Cell(const Cell&) = delete;
    Cell& operator=(const Cell&) = delete;

    /// Runs forward inside this cell's scope.
    Tensor operator()(const Tensor& x);
    virtual Tensor forward(const Tensor& x) = 0;

    const std::string& typeName() const { return m_type; }
    const std::string& name() const { return m_name; }
    void setName(std::string name);

    /// All parameters of this subtree, in registration order, with dotted names.
    std::vector<NamedParam> parameters() const;
    int64_t parameterCount(bool trainableOnly) const;
    void setTraining(bool on);
    bool training() const { return m_training; }
    const std::vector<std::pair<std::string, std::shared_ptr<Cell>>>& children() const {
        return m_children;
    }

    /// Readable tree: cells, parameters with shapes and dtypes (for the RDR graph IR and the GUI).
    std::string describe() const;
    /// Every cell of this subtree with its dotted path ("" for this one, "layer2",
    /// "layer2.conv1", ...), parents before children (PyTorch's named_modules()).
    std::vector<std::pair<std::string, Cell*>> namedCells();
    /// The descendant at a dotted path, or nullptr.
    Cell* child(const std::string& path);

    /// Hooks (hooks.h), called in registration order on every call of this cell.
    HookHandle registerForwardPreHook(ForwardPreHook hook);
    HookHandle registerForwardHook(ForwardHook hook);
    HookHandle registerBackwardHook(BackwardHook hook);
    /// True while this cell has a hook registered (not its children).
    bool hooked() const;

protected:
    Tensor& addParam(const std::string& name, Tensor t, bool trainable = true);
    template <class C>
    std::shared_ptr<C> addChild(const std::string& name, std::shared_ptr<C> c) {
        c->setName(name);
        m_children.emplace_back(name, c);
        return c;
    }

private:
    void collect(const std::string& prefix, std::vector<NamedParam>& out) const;
    Tensor callWithHooks(const Tensor& x);
    CellHooks& hooks();
    void describeInto(std::string& out, int depth) const;

    std::string m_type;
    std::string m_name;
    std::string m_scopePart;
    bool m_training = true;
    std::vector<NamedParam> m_params;
    std::vector<std::pair<std::string, std::shared_ptr<Cell>>> m_children;
    std::shared_ptr<CellHooks> m_hooks;  // null until a hook is registered
};

}  // namespace ts::engine
