#include "core/summary/graph_model.h"

#include <algorithm>
#include <cctype>
#include <map>

#include "core/common/text.h"
#include "core/proto/mindinsight_anf_ir.pb.h"
#include "core/summary/protobuf_log.h"
#include "core/summary/summary_values.h"

namespace ts::summary {
namespace {

constexpr int kMaxDepth = 8;
constexpr size_t kMaxText = 512;

std::string typeText(const mindinsight::TypeProto& t, int depth = 0) {
    if (depth > kMaxDepth) return "...";
    if (t.has_tensor_type()) {
        std::string s = mindsporeDtypeName(t.tensor_type().elem_type());
        if (t.tensor_type().has_shape()) {
            s += " [";
            for (int i = 0; i < t.tensor_type().shape().dim_size(); ++i)
                s += (i ? ", " : "") + std::to_string(t.tensor_type().shape().dim(i).size());
            s += "]";
        }
        return s;
    }
    if (t.has_sequence_type()) {
        std::string s = "tuple(";
        for (int i = 0; i < t.sequence_type().elem_types_size() && s.size() < kMaxText; ++i)
            s += (i ? ", " : "") + typeText(t.sequence_type().elem_types(i), depth + 1);
        return s + ")";
    }
    if (t.has_data_type()) return mindsporeDtypeName(t.data_type());
    return {};
}

std::string valueText(const mindinsight::ValueProto& v, int depth = 0) {
    if (depth > kMaxDepth) return "...";
    auto list = [](const auto& rep, auto conv) {
        std::string s = "[";
        for (int i = 0; i < rep.size() && s.size() < kMaxText; ++i)
            s += (i ? ", " : "") + conv(rep.Get(i));
        return s + "]";
    };
    auto num = [](auto x) { return std::to_string(x); };
    if (v.has_str_val()) return v.str_val();
    if (v.has_bool_val()) return v.bool_val() ? "true" : "false";
    if (v.has_int_val()) return std::to_string(v.int_val());
    if (v.has_uint_val()) return std::to_string(v.uint_val());
    if (v.has_float_val()) return std::to_string(v.float_val());
    if (v.has_double_val()) return std::to_string(v.double_val());
    if (v.int_vals_size()) return list(v.int_vals(), num);
    if (v.uint_vals_size()) return list(v.uint_vals(), num);
    if (v.float_vals_size()) return list(v.float_vals(), num);
    if (v.double_vals_size()) return list(v.double_vals(), num);
    if (v.bool_vals_size())
        return list(v.bool_vals(), [](bool b) { return std::string(b ? "true" : "false"); });
    if (v.str_vals_size()) return list(v.str_vals(), [](const std::string& s) { return s; });
    if (v.values_size())
        return list(v.values(),
                    [depth](const mindinsight::ValueProto& x) { return valueText(x, depth + 1); });
    if (v.dict_val_size()) {
        std::string s = "{";
        for (int i = 0; i < v.dict_val_size() && s.size() < kMaxText; ++i)
            s += (i ? ", " : "") + v.dict_val(i).key() + ": " +
                 valueText(v.dict_val(i).value(), depth + 1);
        return s + "}";
    }
    if (v.has_tensor_val()) {
        std::string s = "tensor " + mindsporeDtypeName(v.tensor_val().data_type()) + " [";
        for (int i = 0; i < v.tensor_val().dims_size(); ++i)
            s += (i ? ", " : "") + std::to_string(v.tensor_val().dims(i));
        return s + "]";
    }
    if (v.has_type_val()) return typeText(v.type_val());
    if (v.has_graph()) return "graph " + v.graph().name();
    if (v.dtype() == mindinsight::DT_NONE) return "None";
    return {};
}

std::string cut(std::string s) {
    if (s.size() > kMaxText) {
        s.resize(kMaxText);
        s += "...";
    }
    return s;
}

}  // namespace

std::string GraphNode::displayPath() const {
    if (!fullName.empty()) return fullName;
    const std::string leaf = opType.empty() ? name : opType + "-" + name;
    return scope.empty() ? leaf : scope + "/" + leaf;
}

Result<GraphModel> decodeGraph(std::string_view bytes) {
    routeProtobufLog();
    mindinsight::GraphProto g;
    if (!g.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
        return Error{"damaged graph (protobuf decoding failed)"};
    GraphModel out;
    out.name = g.name();
    for (const auto& n : g.node()) {
        GraphNode x;
        x.name = n.name();
        x.opType = n.op_type();
        x.scope = n.scope();
        x.fullName = n.full_name();
        for (const auto& in : n.input())
            x.inputs.push_back((in.type() == mindinsight::InputProto::CONTROL_EDGE ? "^" : "") +
                               in.name());
        x.outputType = cut(typeText(n.output_type()));
        for (const auto& a : n.attribute())
            x.attributes.emplace_back(a.name(), cut(valueText(a.value())));
        if (!n.instance_name().empty())
            x.attributes.emplace_back("instance_name", n.instance_name());
        out.nodes.push_back(std::move(x));
    }
    for (const auto& p : g.parameters()) {
        GraphNode x;
        x.name = p.name();
        x.opType = "Parameter";
        x.outputType = cut(typeText(p.type()));
        if (p.has_default_val())
            x.attributes.emplace_back("default", cut(valueText(p.default_val())));
        out.parameters.push_back(std::move(x));
    }
    for (const auto& c : g.const_vals()) {
        GraphNode x;
        x.name = c.key();
        x.opType = "Const";
        x.attributes.emplace_back("value", cut(valueText(c.value())));
        out.constants.push_back(std::move(x));
    }
    for (const auto& o : g.outputs()) out.outputs.push_back(o.name());
    return out;
}

std::vector<ScopeTreeNode> buildScopeTree(const GraphModel& g) {
    std::vector<ScopeTreeNode> tree(1);
    std::map<std::string, size_t> byPath;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        const GraphNode& n = g.nodes[i];
        std::string scope = n.scope;
        if (scope.empty() && !n.fullName.empty()) {
            const size_t slash = n.fullName.rfind('/');
            if (slash != std::string::npos) scope = n.fullName.substr(0, slash);
        }
        size_t cur = 0;
        ++tree[0].totalNodes;
        size_t start = 0;
        std::string path;
        int depth = 0;
        while (start < scope.size() && depth++ < 64) {
            size_t slash = scope.find('/', start);
            if (slash == std::string::npos) slash = scope.size();
            const std::string part = scope.substr(start, slash - start);
            start = slash + 1;
            if (part.empty()) continue;
            path += (path.empty() ? "" : "/") + part;
            auto it = byPath.find(path);
            if (it == byPath.end()) {
                ScopeTreeNode s;
                s.name = part;
                s.path = path;
                tree.push_back(s);
                it = byPath.emplace(path, tree.size() - 1).first;
                tree[cur].children.push_back(it->second);
            }
            cur = it->second;
            ++tree[cur].totalNodes;
        }
        tree[cur].graphNodes.push_back(i);
    }
    return tree;
}

std::vector<size_t> searchGraph(const GraphModel& g, std::string_view text) {
    const std::string needle = asciiLower(text);
    std::vector<size_t> out;
    if (needle.empty()) return out;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        const GraphNode& n = g.nodes[i];
        if (asciiLower(n.displayPath()).find(needle) != std::string::npos ||
            asciiLower(n.opType).find(needle) != std::string::npos || asciiLower(n.name) == needle)
            out.push_back(i);
    }
    return out;
}

}  // namespace ts::summary
