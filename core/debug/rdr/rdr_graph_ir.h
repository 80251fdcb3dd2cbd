#pragma once
// GraphIrBuilder: the model's graph as readable IR text for the Running Data Recorder, in
// the spirit of MindSpore's *.ir files:
//
//   # cells and their parameters
//   cell _backbone: LeNet5
//     cell conv1: Conv2d
//       %para1_conv1.weight : <Float32, [6, 1, 5, 5]>
//   # graph: the ops of the first training step in execution order
//   %3(Conv2D-op0) = Conv2D(%arg0, %para1_conv1.weight)
//       : (<Float32, [32, 1, 28, 28]>, <Float32, [6, 1, 5, 5]>) -> (<Float32, [32, 6, 24, 24]>)
//       # scope: Default/network-WithLossCell/_backbone-LeNet5/conv1-Conv2d/Conv2D-op0
//
// Values are named by identity of their storage: parameters %paraN_<name>, outputs of
// earlier ops %N, anything else (the batch, labels, constants) %argN. The "# scope:" line
// carries the exact scope name the execution order uses, so the studio can link the two.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/engine/model/cell.h"
#include "core/engine/tensor/op_observer.h"

namespace ts::rdr {

class GraphIrBuilder {
public:
    /// The header: model name, parameter counts, the cell tree with each cell's parameters,
    /// and the heading of the op section. Also binds the parameters' storage to their
    /// %para names for the op lines that follow. Forgets earlier op values.
    std::string begin(const engine::Cell& net, const std::string& modelName);

    /// The IR lines of one op (ends with '\n'). Call with the op's outputs set (onOpEnd) so
    /// they are named for later ops; `failure` non-empty adds a "# FAILED: ..." line (an op
    /// that threw has no outputs).
    std::string opLines(const engine::OpEvent& op, const std::string& failure = {});

    /// "<Float32, [32, 10]>"
    static std::string typeText(const engine::Tensor& t);
    /// The %para name of a parameter's tensor ("%para3_fc1.weight"), "" for other tensors.
    std::string parameterName(const engine::Tensor& t) const;

private:
    std::string valueName(const engine::Tensor& t);
    std::unordered_map<const void*, std::string> m_names;   // storage -> IR name
    std::unordered_map<const void*, std::string> m_params;  // parameters only
    int64_t m_nextValue = 0;
    int64_t m_nextArg = 0;
};

}  // namespace ts::rdr
