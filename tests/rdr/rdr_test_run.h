#pragma once
// A small simulated training run fed into a RunningDataRecorder, shared by the RDR tests.
#include <string>

#include "core/debug/rdr/rdr_recorder.h"

namespace ts::rdr::test {

/// Configures `r` to export under `root` (mode 1 or 2) and records a graph, two steps of
/// three ops (MatMul, Add, Softmax; the last op recorded is Softmax of step 2), allocations
/// with a free, log lines and the run state. Returns the failing op's scope name.
inline std::string recordSampleRun(RunningDataRecorder& r, const std::string& root, int mode) {
    RdrConfig c;
    c.enable = true;
    c.mode = mode;
    c.path = root;
    r.configure(c);
    r.setGraphIr(
        "# IR of Net\n%para1_fc1.weight : <Tensor[Float32], (784, 10)>\n"
        "%0(MatMul) = MatMul(%x, %para1_fc1.weight) : (32, 10)\n"
        "    # scope: Default/network/fc1/MatMul-op0\n"
        "%1(Add) = Add(%0, %para2_fc1.bias)\n    # scope: Default/network/fc1/Add-op1\n"
        "%2(Softmax) = Softmax(%1)\n    # scope: Default/network/Softmax-op2\n");
    const char* ops[] = {"MatMul", "Add", "Softmax"};
    const char* scopes[] = {"Default/network/fc1/MatMul-op0", "Default/network/fc1/Add-op1",
                            "Default/network/Softmax-op2"};
    int64_t t = 1000;
    for (int step = 1; step <= 2; ++step) {
        r.beginStep(0, step);
        for (int i = 0; i < 3; ++i) {
            r.recordOp(step * 10 + i, ops[i], scopes[i],
                       {{{32, 784}, "float32"}, {{784, 10}, "float32"}}, {{32, 10}});
            r.recordAlloc(std::string(scopes[i]) + ":out0", 1280, static_cast<uint64_t>(i) * 1280,
                          t);
            t += 100;
        }
        r.recordFree(std::string(scopes[0]) + ":out0", 0, t);
        r.setPoolTotals(2560, 3840, 1 << 20);
        r.addLogLine("[INFO] ENGINE step " + std::to_string(step) + " done");
        r.setRunState(R"({"lr": 0.1, "batch": 32})", 0, step, 2.25, 1024.0);
    }
    return scopes[2];
}

}  // namespace ts::rdr::test
