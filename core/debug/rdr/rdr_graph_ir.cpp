#include "core/debug/rdr/rdr_graph_ir.h"

namespace ts::rdr {
namespace {

void describeCell(const engine::Cell& cell, const std::string& prefix, int depth,
                  std::unordered_map<const void*, std::string>& names, int64_t& nextPara,
                  std::string& out) {
    const std::string pad(static_cast<size_t>(depth) * 2, ' ');
    out += pad;
    out += "cell ";
    out += cell.name().empty() ? std::string("<root>") : cell.name();
    out += ": ";
    out += cell.typeName();
    out += '\n';
    // Own parameters are those whose dotted name has no further dot below `prefix`.
    for (const auto& p : cell.parameters()) {
        if (p.name.find('.') != std::string::npos) continue;
        const std::string full = prefix + p.name;
        const std::string irName = "%para" + std::to_string(++nextPara) + "_" + full;
        if (p.tensor.defined() && p.tensor.raw()) names[p.tensor.raw()] = irName;
        out += pad;
        out += "  ";
        out += irName;
        out += " : ";
        out += GraphIrBuilder::typeText(p.tensor);
        out += p.trainable ? "\n" : "  # not trainable\n";
    }
    for (const auto& [name, child] : cell.children())
        describeCell(*child, prefix + name + ".", depth + 1, names, nextPara, out);
}

}  // namespace

std::string GraphIrBuilder::typeText(const engine::Tensor& t) {
    if (!t.defined()) return "<None>";
    std::string s = "<";
    s += engine::dtypeName(t.dtype());
    s += ", ";
    s += engine::shapeString(t.shape());
    s += '>';
    return s;
}

std::string GraphIrBuilder::begin(const engine::Cell& net, const std::string& modelName) {
    m_names.clear();
    m_params.clear();
    m_nextValue = 0;
    m_nextArg = 0;
    std::string out = "# TrainScope graph IR, written by the Running Data Recorder\n";
    out += "# model: " + modelName + "\n";
    out += "# parameters: " + std::to_string(net.parameterCount(false)) + " (trainable " +
           std::to_string(net.parameterCount(true)) + ")\n";
    out += "#\n# cells and their parameters\n";
    int64_t nextPara = 0;
    describeCell(net, "", 0, m_names, nextPara, out);
    m_params = m_names;
    out += "\n# graph: the ops of the first training step in execution order\n";
    out += "#   %N(<Op>-op<i>) = <Op>(inputs) : (input types) -> (output types)\n\n";
    return out;
}

std::string GraphIrBuilder::parameterName(const engine::Tensor& t) const {
    if (!t.defined() || !t.raw()) return {};
    auto it = m_params.find(t.raw());
    return it == m_params.end() ? std::string() : it->second;
}

std::string GraphIrBuilder::valueName(const engine::Tensor& t) {
    if (!t.defined() || !t.raw()) return "%none";
    auto it = m_names.find(t.raw());
    if (it != m_names.end()) return it->second;
    std::string name = "%arg" + std::to_string(m_nextArg++);
    m_names[t.raw()] = name;
    return name;
}

std::string GraphIrBuilder::opLines(const engine::OpEvent& op, const std::string& failure) {
    std::string args, inTypes, outTypes, outName;
    if (op.inputs)
        for (const auto& t : *op.inputs) {
            if (!args.empty()) args += ", ", inTypes += ", ";
            args += valueName(t);
            inTypes += typeText(t);
        }
    const std::string self = "%" + std::to_string(m_nextValue++);
    if (op.outputs) {
        size_t k = 0;
        for (const auto& t : *op.outputs) {
            if (!outTypes.empty()) outTypes += ", ";
            outTypes += typeText(t);
            if (t.defined() && t.raw())
                m_names[t.raw()] = op.outputs->size() == 1 ? self : self + "." + std::to_string(k);
            ++k;
        }
    }
    const size_t slash = op.scopeName.rfind('/');
    const std::string leaf =
        slash == std::string::npos ? op.scopeName : op.scopeName.substr(slash + 1);
    std::string out = self + "(" + leaf + ") = ";
    out += op.opType;
    out += "(" + args + ")\n      : (" + inTypes + ") -> (" + outTypes + ")\n";
    out += "      # scope: " + op.scopeName + "\n";
    if (!failure.empty()) {
        std::string flat = failure;
        for (char& c : flat)
            if (c == '\n' || c == '\r') c = ' ';
        out += "      # FAILED: " + flat + "\n";
    }
    return out;
}

}  // namespace ts::rdr
