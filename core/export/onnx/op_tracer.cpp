#include "core/export/onnx/op_tracer.h"

#include <exception>

#include "core/engine/model/layers.h"
#include "core/engine/tensor/dispatcher.h"

namespace ts::onnx_export {

namespace {

class Recorder final : public engine::OpObserver {
public:
    explicit Recorder(std::vector<TracedOp>& ops) : m_ops(ops) {}
    void onOpEnd(const engine::OpEvent& op) override {
        if (op.backward) return;
        TracedOp t;
        t.type = std::string(op.opType);
        t.scope = op.scopeName;
        t.attrs = std::string(op.attrs);
        if (op.inputs) t.inputs = *op.inputs;
        if (op.outputs) t.outputs = *op.outputs;
        m_ops.push_back(std::move(t));
    }

private:
    std::vector<TracedOp>& m_ops;
};

/// Puts the calling thread's dispatcher, AMP level and the model's mode back on exit.
class TraceScope {
public:
    TraceScope(engine::Dispatcher& d, engine::Cell& model)
        : m_prev(engine::Dispatcher::install(&d)),
          m_amp(engine::ampLevel()),
          m_model(model),
          m_training(model.training()) {
        engine::setAmpLevel(engine::AmpLevel::O0);
        model.setTraining(false);
    }
    ~TraceScope() {
        m_model.setTraining(m_training);
        engine::setAmpLevel(m_amp);
        engine::Dispatcher::install(m_prev);
    }
    TraceScope(const TraceScope&) = delete;
    TraceScope& operator=(const TraceScope&) = delete;

private:
    engine::Dispatcher* m_prev;
    engine::AmpLevel m_amp;
    engine::Cell& m_model;
    bool m_training;
};

}  // namespace

Result<Trace> traceForward(engine::Cell& model, const engine::Tensor& input) {
    Trace trace;
    trace.input = input;
    engine::Dispatcher d;
    Recorder rec(trace.ops);
    d.addObserver(&rec);
    try {
        TraceScope scope(d, model);
        engine::NoGradGuard noGrad;
        trace.output = model(input);
    } catch (const std::exception& e) {
        return Error{std::string("the model's forward pass failed: ") + e.what()};
    }
    return trace;
}

}  // namespace ts::onnx_export
