#pragma once
// Cell hooks: PyTorch's register_forward_pre_hook / register_forward_hook /
// register_full_backward_hook for the engine's cells. A hook is a function a cell calls
// around its forward: before it (may replace the input), after it (sees input and output,
// may replace the output), and when the gradient w.r.t. its output and input is known
// (backward). Hooks run on the training thread, synchronously, as OpObservers do; they see
// the cell's full scope name, the same prefix the dispatcher gives the cell's ops (so a hook's
// figures line up with the profile, dumps and overflow findings of those ops). A cell without
// hooks pays one pointer test per call.
//
//   auto h = net->child("layer2")->registerForwardHook(
//       [](const HookContext& c, const Tensor&, Tensor& out) { printStats(c.scope, out); });
//   ...
//   h.remove();
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include "core/engine/tensor/tensor.h"

namespace ts::engine {

class Cell;

/// What a hook is told about the call.
struct HookContext {
    Cell& cell;
    const std::string& scope;  // Default/network-WithLossCell/_backbone-ResNet8/layer2-BasicBlock
    int64_t step = 0;          // the dispatcher's step (0 outside training)
    int epoch = 0;
    bool training = false;  // the cell's mode
};

/// Before forward; may replace `input`.
using ForwardPreHook = std::function<void(const HookContext&, Tensor& input)>;
/// After forward; may replace `output` (same shape expected by what follows).
using ForwardHook = std::function<void(const HookContext&, const Tensor& input, Tensor& output)>;
/// During backward: the gradients w.r.t. the cell's input (undefined when the input needs
/// none, e.g. the first layer's data) and output.
using BackwardHook =
    std::function<void(const HookContext&, const Tensor& gradInput, const Tensor& gradOutput)>;

struct CellHooks;

/// Removes a hook (PyTorch's RemovableHandle). Copyable; removing twice, or after the cell
/// is gone, does nothing.
class HookHandle {
public:
    HookHandle() = default;
    HookHandle(std::weak_ptr<CellHooks> hooks, uint64_t id) : m_hooks(std::move(hooks)), m_id(id) {}
    void remove();
    /// True while the hook is registered.
    bool active() const;

private:
    std::weak_ptr<CellHooks> m_hooks;
    uint64_t m_id = 0;
};

}  // namespace ts::engine
