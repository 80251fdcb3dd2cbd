#include "core/export/onnx/onnx_export.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <set>

#include "core/common/file_io.h"
#include "core/engine/model/models.h"
#include "core/engine/train/checkpoint.h"
#include "core/engine/train/trainer.h"
#include "core/export/onnx/onnx_graph.h"
#include "core/export/onnx/op_tracer.h"
#include "onnx/onnx.pb.h"

namespace ts::onnx_export {

namespace {

/// Deterministic values in [0, 1), like normalized pixels (the trace needs shapes only).
engine::Tensor traceInput(const engine::Shape& shape) {
    engine::Tensor t = engine::Tensor::empty(shape);
    uint32_t s = 12345;
    for (int64_t i = 0; i < t.numel(); ++i) {
        s = s * 1664525u + 1013904223u;
        t.f32()[i] = static_cast<float>(s >> 8) / 16777216.f;
    }
    return t;
}

}  // namespace

Result<std::string> exportModel(engine::Cell& model, const engine::Shape& inputShape,
                                const ExportOptions& options, ExportReport* report) {
    if (options.opset < 13 || options.opset > 17)
        return Error{"opset " + std::to_string(options.opset) + " is not supported (13 to 17)"};
    if (inputShape.empty() || engine::numel(inputShape) <= 0)
        return Error{"the input shape " + engine::shapeString(inputShape) + " is empty"};
    auto trace = traceForward(model, traceInput(inputShape));
    if (!trace) return Error{trace.error()};
    onnx::ModelProto m;
    // IR version 7 goes with opsets 12-14, 8 with 15-18 (onnx/docs/Versioning.md).
    m.set_ir_version(options.opset >= 15 ? 8 : 7);
    m.set_producer_name("TrainScope");
    m.set_producer_version(TRAINSCOPE_VERSION);
    m.set_domain("io.github.trainscope");
    m.set_model_version(1);
    m.set_doc_string("Exported from the TrainScope engine: " + model.typeName() +
                     ", evaluation mode (batch norm on running statistics)");
    auto* opset = m.add_opset_import();
    opset->set_domain("");
    opset->set_version(options.opset);
    for (const auto& [k, v] : options.metadata) {
        auto* p = m.add_metadata_props();
        p->set_key(k);
        p->set_value(v);
    }
    auto* g = m.mutable_graph();
    g->set_name(options.graphName.empty() ? model.typeName() : options.graphName);
    if (auto s = buildGraph(trace.value(), model.parameters(), options, g); !s)
        return Error{s.error()};
    std::string bytes;
    if (!m.SerializeToString(&bytes)) return Error{"the ONNX model could not be serialized"};
    if (report) {
        report->model = model.typeName();
        report->opset = options.opset;
        report->bytes = static_cast<int64_t>(bytes.size());
        report->nodes = g->node_size();
        report->initializers = g->initializer_size();
        report->parameters = 0;
        for (const auto& init : g->initializer())
            if (init.data_type() == onnx::TensorProto::FLOAT) {
                int64_t n = 1;
                for (int64_t d : init.dims()) n *= d;
                report->parameters += n;
            }
        report->inputShape = trace->input.shape();
        report->outputShape = trace->output.shape();
        std::set<std::string> types;
        for (const auto& n : g->node()) types.insert(n.op_type());
        report->opTypes.assign(types.begin(), types.end());
    }
    return bytes;
}

Result<ExportReport> exportModelToFile(engine::Cell& model, const engine::Shape& inputShape,
                                       const std::string& path, const ExportOptions& options,
                                       const std::vector<std::string>& inputs) {
    if (auto s = refuseInputAsOutput(path, inputs); !s) return Error{s.error()};
    ExportReport report;
    auto bytes = exportModel(model, inputShape, options, &report);
    if (!bytes) return Error{bytes.error()};
    if (auto s = writeFileAtomically(path, bytes.value(), inputs); !s) return Error{s.error()};
    report.path = path;
    return report;
}

Result<std::string> checkpointModel(const std::string& checkpointPath) {
    auto ck = engine::readCheckpoint(checkpointPath);
    if (!ck) return Error{ck.error()};
    if (!ck->hasTrainState) return std::string();
    auto cfg = engine::TrainConfig::fromJson(ck->state.configJson);
    return cfg ? cfg->model : std::string();
}

Result<ExportReport> exportCheckpoint(const std::string& checkpointPath,
                                      const std::string& modelName, const std::string& outPath,
                                      const ExportOptions& options) {
    // Before anything is read: writing the model over its checkpoint would lose the training.
    if (auto s = refuseInputAsOutput(outPath, {checkpointPath}); !s) return Error{s.error()};
    auto ck = engine::readCheckpoint(checkpointPath);
    if (!ck) return Error{ck.error()};
    std::string name = modelName;
    if (name.empty() && ck->hasTrainState) {
        auto cfg = engine::TrainConfig::fromJson(ck->state.configJson);
        if (cfg) name = cfg->model;
    }
    if (name.empty())
        return Error{checkpointPath + " does not say which model it holds: name it (" +
                     "mlp, lenet5, resnet8 or shufflenetv2)"};
    auto findTensor = [&](const std::string& tag) -> const engine::Tensor* {
        for (const auto& [t, v] : ck->values)
            if (t == tag) return &v;
        return nullptr;
    };
    // Classes from the classifier (the last 2-D weight), features from the MLP's first.
    auto net = engine::makeModel(name, 0);
    if (!net) return Error{"unknown model '" + name + "' (mlp, lenet5, resnet8 or shufflenetv2)"};
    int64_t classes = 10, inputs = 784;
    std::vector<engine::NamedParam> probe = net->parameters();
    for (auto it = probe.rbegin(); it != probe.rend(); ++it)
        if (it->tensor.rank() == 2) {
            if (const engine::Tensor* t = findTensor(it->name); t && t->rank() == 2)
                classes = t->dim(0);
            break;
        }
    if (!engine::modelTakesImages(name))
        for (const auto& p : probe)
            if (p.tensor.rank() == 2) {
                if (const engine::Tensor* t = findTensor(p.name); t && t->rank() == 2)
                    inputs = t->dim(1);
                break;
            }
    net = engine::makeModel(name, 0, inputs, classes);
    if (!net) return Error{"cannot build " + name + " for " + std::to_string(inputs) + " inputs"};
    std::vector<std::string> missing;
    for (auto& p : net->parameters()) {
        const engine::Tensor* t = findTensor(p.name);
        if (!t || t->shape() != p.tensor.shape()) {
            missing.push_back(p.name +
                              (t ? " (shape " + engine::shapeString(t->shape()) +
                                       " in the checkpoint, " +
                                       engine::shapeString(p.tensor.shape()) + " in " + name + ")"
                                 : ""));
            continue;
        }
        const engine::Tensor f =
            t->dtype() == engine::DType::Float32 ? *t : t->to(engine::DType::Float32);
        std::copy(f.f32(), f.f32() + f.numel(), p.tensor.f32());
    }
    if (!missing.empty()) {
        std::string list;
        for (size_t i = 0; i < missing.size() && i < 5; ++i) list += (i ? ", " : "") + missing[i];
        if (missing.size() > 5) list += ", ... (" + std::to_string(missing.size()) + " in all)";
        return Error{checkpointPath + " is not a " + name + " checkpoint: missing " + list};
    }
    ExportOptions o = options;
    o.metadata.emplace_back("trainscope.model", name);
    o.metadata.emplace_back("trainscope.checkpoint",
                            std::filesystem::path(checkpointPath).filename().string());
    if (ck->hasTrainState)
        o.metadata.emplace_back("trainscope.step", std::to_string(ck->state.step));
    if (o.batch < 1) return Error{"the batch must be >= 1"};
    const engine::Shape shape = engine::modelTakesImages(name) ? engine::Shape{o.batch, 1, 28, 28}
                                                               : engine::Shape{o.batch, inputs};
    return exportModelToFile(*net, shape, outPath, o, {checkpointPath});
}

}  // namespace ts::onnx_export
