// Engine ops -> ONNX nodes. Values are named after the op that makes them
// ("_backbone-ResNet8/layer1-BasicBlock/conv1-Conv2d/Conv2D-op3:0"), parameters by their
// checkpoint names; constants an op needs (Reshape's shape, Split's sizes, Pad's pads) are
// int64 initializers named after the node.
#include "core/export/onnx/onnx_graph.h"

#include <cstring>
#include <map>
#include <set>

#include "core/common/json_read.h"
#include "onnx/onnx.pb.h"

namespace ts::onnx_export {

namespace {

using engine::Tensor;

class GraphBuilder {
public:
    GraphBuilder(const Trace& t, const ExportOptions& o, onnx::GraphProto* g)
        : m_trace(t), m_opt(o), m_g(g), m_batch(t.input.dim(0)) {}

    void addParams(const std::vector<engine::NamedParam>& params) {
        for (const auto& p : params) m_params.emplace(p.tensor.impl(), p);
    }

    Status run() {
        m_names[m_trace.input.impl()] = m_opt.inputName;
        addValueInfo(m_g->add_input(), m_opt.inputName, m_trace.input.shape(), true);
        for (const TracedOp& op : m_trace.ops)
            if (auto s = addOp(op); !s) return s;
        auto it = m_names.find(m_trace.output.impl());
        if (it == m_names.end() || it->second != m_opt.outputName)
            return Error{"the traced output is not produced by an exported op"};
        addValueInfo(m_g->add_output(), m_opt.outputName, m_trace.output.shape(), true);
        return Status::success();
    }

private:
    static std::string nodeName(const TracedOp& op) {
        const std::string prefix = "Default/";
        return op.scope.rfind(prefix, 0) == 0 ? op.scope.substr(prefix.size()) : op.scope;
    }

    /// dim 0 is symbolic where the batch is dynamic and the tensor carries it.
    void addValueInfo(onnx::ValueInfoProto* v, const std::string& name, const engine::Shape& s,
                      bool batchFirst) {
        v->set_name(name);
        auto* tt = v->mutable_type()->mutable_tensor_type();
        tt->set_elem_type(onnx::TensorProto::FLOAT);
        auto* shape = tt->mutable_shape();
        for (size_t i = 0; i < s.size(); ++i) {
            auto* d = shape->add_dim();
            if (i == 0 && batchFirst && m_opt.dynamicBatch && s[0] == m_batch)
                d->set_dim_param("batch_size");
            else
                d->set_dim_value(s[i]);
        }
    }

    /// The name of an op input: earlier output, graph input, parameter or a new constant.
    std::string inputName(const Tensor& t) {
        if (auto it = m_names.find(t.impl()); it != m_names.end()) return it->second;
        if (auto p = m_params.find(t.impl()); p != m_params.end()) {
            addFloatInitializer(p->second.name, t);
            m_names[t.impl()] = p->second.name;
            return p->second.name;
        }
        const std::string name = "const_" + std::to_string(m_constants++);
        addFloatInitializer(name, t);
        m_names[t.impl()] = name;
        return name;
    }

    std::string outputName(const TracedOp& op, size_t i) {
        const Tensor& t = op.outputs[i];
        const std::string name = t.impl() == m_trace.output.impl()
                                     ? m_opt.outputName
                                     : nodeName(op) + ":" + std::to_string(i);
        m_names[t.impl()] = name;
        if (name != m_opt.outputName) addValueInfo(m_g->add_value_info(), name, t.shape(), true);
        return name;
    }

    void addFloatInitializer(const std::string& name, const Tensor& t) {
        auto* init = m_g->add_initializer();
        init->set_name(name);
        init->set_data_type(onnx::TensorProto::FLOAT);
        for (int64_t d : t.shape()) init->add_dims(d);
        const Tensor f = t.dtype() == engine::DType::Float32 ? t : t.to(engine::DType::Float32);
        init->set_raw_data(f.raw(), f.nbytes());
    }

    std::string addInt64Initializer(const std::string& name, const std::vector<int64_t>& v) {
        auto* init = m_g->add_initializer();
        init->set_name(name);
        init->set_data_type(onnx::TensorProto::INT64);
        init->add_dims(static_cast<int64_t>(v.size()));
        init->set_raw_data(v.data(), v.size() * sizeof(int64_t));
        return name;
    }

    onnx::NodeProto* node(const std::string& type, const std::string& name) {
        auto* n = m_g->add_node();
        n->set_op_type(type);
        n->set_name(name);
        return n;
    }

    static void intsAttr(onnx::NodeProto* n, const char* name, const std::vector<int64_t>& v) {
        auto* a = n->add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto::INTS);
        for (int64_t x : v) a->add_ints(x);
    }
    static void intAttr(onnx::NodeProto* n, const char* name, int64_t v) {
        auto* a = n->add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto::INT);
        a->set_i(v);
    }
    static void floatAttr(onnx::NodeProto* n, const char* name, float v) {
        auto* a = n->add_attribute();
        a->set_name(name);
        a->set_type(onnx::AttributeProto::FLOAT);
        a->set_f(v);
    }

    /// An op's attributes as a JSON object.
    static bool parseAttrs(const TracedOp& op, rapidjson::Document& doc) {
        const std::string text = "{" + op.attrs + "}";
        return json::parse(doc, text) && doc.IsObject();
    }
    static std::vector<int64_t> ints(const rapidjson::Document& d, const char* key) {
        std::vector<int64_t> v;
        if (d.HasMember(key) && d[key].IsArray())
            for (const auto& x : d[key].GetArray()) v.push_back(x.GetInt64());
        return v;
    }
    static int64_t intOr(const rapidjson::Document& d, const char* key, int64_t fallback) {
        return d.HasMember(key) && d[key].IsInt64() ? d[key].GetInt64() : fallback;
    }

    /// A Reshape target: dim 0 as 0 ("copy the input's") when it is the batch.
    std::vector<int64_t> reshapeTarget(const engine::Shape& in, const engine::Shape& out) const {
        std::vector<int64_t> v(out.begin(), out.end());
        if (m_opt.dynamicBatch && !in.empty() && !v.empty() && in[0] == m_batch && v[0] == m_batch)
            v[0] = 0;
        return v;
    }

    Status addOp(const TracedOp& op);

    const Trace& m_trace;
    const ExportOptions& m_opt;
    onnx::GraphProto* m_g;
    int64_t m_batch;
    std::map<engine::TensorImpl*, engine::NamedParam> m_params;
    std::map<engine::TensorImpl*, std::string> m_names;
    int m_constants = 0;
};

Status GraphBuilder::addOp(const TracedOp& op) {
    const std::string name = nodeName(op);
    rapidjson::Document a;
    if (!parseAttrs(op, a)) return Error{name + ": unreadable attributes '" + op.attrs + "'"};
    auto unary = [&](const char* type) {
        auto* n = node(type, name);
        n->add_input(inputName(op.inputs[0]));
        n->add_output(outputName(op, 0));
        return n;
    };
    auto binary = [&](const char* type) {
        auto* n = node(type, name);
        n->add_input(inputName(op.inputs[0]));
        n->add_input(inputName(op.inputs[1]));
        n->add_output(outputName(op, 0));
        return n;
    };
    const std::string& t = op.type;
    if (t == "Conv2D" || t == "DepthwiseConv2dNative") {
        auto* n = node("Conv", name);
        for (const Tensor& in : op.inputs) n->add_input(inputName(in));
        n->add_output(outputName(op, 0));
        const Tensor& w = op.inputs[1];
        intsAttr(n, "kernel_shape", {w.dim(2), w.dim(3)});
        intsAttr(n, "strides", ints(a, "strides"));
        intsAttr(n, "pads", ints(a, "pads"));
        intsAttr(n, "dilations", {1, 1});
        intAttr(n, "group", intOr(a, "group", 1));
    } else if (t == "MatMul") {
        auto* n = binary("Gemm");
        intAttr(n, "transA", a.HasMember("transpose_a") && a["transpose_a"].GetBool() ? 1 : 0);
        intAttr(n, "transB", a.HasMember("transpose_b") && a["transpose_b"].GetBool() ? 1 : 0);
    } else if (t == "BiasAdd") {
        const Tensor& x = op.inputs[0];
        std::string bias = inputName(op.inputs[1]);
        if (x.rank() > 2) {  // [C] -> [C, 1, ..., 1] to broadcast over NC...
            std::vector<int64_t> shape(static_cast<size_t>(x.rank() - 1), 1);
            shape[0] = x.dim(1);
            auto* r = node("Reshape", name + "/bias_shape");
            r->add_input(bias);
            r->add_input(addInt64Initializer(name + "/bias_shape:value", shape));
            bias = name + "/bias_shape:0";
            r->add_output(bias);
        }
        auto* n = node("Add", name);
        n->add_input(inputName(x));
        n->add_input(bias);
        n->add_output(outputName(op, 0));
    } else if (t == "Add" || t == "Sub" || t == "Mul" || t == "RealDiv") {
        if (op.inputs.size() != 2) return Error{name + ": " + t + " of a constant is not exported"};
        binary(t == "RealDiv" ? "Div" : t.c_str());
    } else if (t == "ReLU") {
        unary("Relu");
    } else if (t == "Sigmoid" || t == "Tanh") {
        unary(t.c_str());
    } else if (t == "Softmax" || t == "LogSoftmax") {
        intAttr(unary(t.c_str()), "axis", 1);
    } else if (t == "MaxPool" || t == "AvgPool") {
        auto* n = unary(t == "MaxPool" ? "MaxPool" : "AveragePool");
        const int64_t k = intOr(a, "kernel", 0), s = intOr(a, "stride", 0);
        if (k < 1 || s < 1) return Error{name + ": pooling without kernel/stride attributes"};
        intsAttr(n, "kernel_shape", {k, k});
        intsAttr(n, "strides", {s, s});
    } else if (t == "BatchNorm") {
        if (a.HasMember("training") && a["training"].GetBool())
            return Error{name + ": BatchNorm traced in training mode"};
        auto* n = node("BatchNormalization", name);
        for (const Tensor& in : op.inputs) n->add_input(inputName(in));
        n->add_output(outputName(op, 0));
        floatAttr(n, "epsilon",
                  a.HasMember("epsilon") ? static_cast<float>(a["epsilon"].GetDouble()) : 1e-5f);
    } else if (t == "Reshape") {
        auto* n = node("Reshape", name);
        n->add_input(inputName(op.inputs[0]));
        n->add_input(addInt64Initializer(
            name + ":shape", reshapeTarget(op.inputs[0].shape(), op.outputs[0].shape())));
        n->add_output(outputName(op, 0));
    } else if (t == "Transpose") {
        intsAttr(unary("Transpose"), "perm", ints(a, "perm"));
    } else if (t == "Concat") {
        auto* n = node("Concat", name);
        for (const Tensor& in : op.inputs) n->add_input(inputName(in));
        n->add_output(outputName(op, 0));
        intAttr(n, "axis", intOr(a, "axis", 0));
    } else if (t == "Split") {
        auto* n = node("Split", name);
        n->add_input(inputName(op.inputs[0]));
        n->add_input(addInt64Initializer(name + ":split", ints(a, "split")));
        for (size_t i = 0; i < op.outputs.size(); ++i) n->add_output(outputName(op, i));
        intAttr(n, "axis", intOr(a, "axis", 0));
    } else if (t == "Pad") {
        const std::vector<int64_t> p = ints(a, "pads");  // top, left, bottom, right
        if (p.size() != 4) return Error{name + ": Pad without its pads"};
        auto* n = node("Pad", name);
        n->add_input(inputName(op.inputs[0]));
        n->add_input(addInt64Initializer(name + ":pads", {0, 0, p[0], p[1], 0, 0, p[2], p[3]}));
        n->add_output(outputName(op, 0));
    } else if (t == "GlobalAvgPool") {
        auto* gap = node("GlobalAveragePool", name);
        gap->add_input(inputName(op.inputs[0]));
        const std::string pooled = name + ":pooled";
        gap->add_output(pooled);
        auto* f = node("Flatten", name + "/flatten");
        f->add_input(pooled);
        f->add_output(outputName(op, 0));
        intAttr(f, "axis", 1);
    } else {
        return Error{name + ": op " + t + " has no ONNX mapping"};
    }
    return Status::success();
}

}  // namespace

Status buildGraph(const Trace& trace, const std::vector<engine::NamedParam>& params,
                  const ExportOptions& options, onnx::GraphProto* graph) {
    GraphBuilder b(trace, options, graph);
    b.addParams(params);
    return b.run();
}

}  // namespace ts::onnx_export
