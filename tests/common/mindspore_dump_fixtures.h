#pragma once
// MindSpore dump trees and RDR folders for the tests, laid out as MindSpore writes them
// (docs/MINDSPORE.md): .npy files in NumPy's format, statistic.csv with MindSpore's header,
// mapping.csv, async "bin" files, execution order csv; RDR files named
// <MODULE>_<tag>_<YYYYmmddHHMMSS>.<ext> with the contents MindSpore's recorders write.
// Header-only.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace ts::test {

/// A .npy file (format 1.0) of `descr` ('<f4', '<f2', '<i8', '|b1', ...) and `shape` holding
/// `raw` (already in the dtype's bytes).
inline std::string npyBytes(const std::string& descr, const std::vector<uint64_t>& shape,
                            const std::string& raw, bool fortran = false) {
    std::string s = "(";
    for (size_t i = 0; i < shape.size(); ++i)
        s += std::to_string(shape[i]) + (shape.size() == 1 || i + 1 < shape.size() ? "," : "");
    s += ")";
    std::string hdr = "{'descr': '" + descr +
                      "', 'fortran_order': " + (fortran ? "True" : "False") + ", 'shape': " + s +
                      ", }";
    while ((10 + hdr.size() + 1) % 64 != 0) hdr += ' ';
    hdr += '\n';
    std::string out("\x93NUMPY\x01\x00", 8);
    out.push_back(static_cast<char>(hdr.size() & 0xff));
    out.push_back(static_cast<char>(hdr.size() >> 8));
    return out + hdr + raw;
}

inline std::string f32Bytes(const std::vector<float>& v) {
    std::string s(v.size() * 4, '\0');
    std::memcpy(s.data(), v.data(), s.size());
    return s;
}

inline void writeFile(const std::filesystem::path& p, const std::string& bytes) {
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

struct DumpOp {
    std::string type,
        fullName;  // "Conv2D",
                   // "Default/network-WithLossCell/_backbone-LeNet5/conv1-Conv2d/Conv2D-op0"
    std::vector<std::vector<float>> inputs, outputs;
    std::vector<uint64_t> shape;  // of every tensor of the op
};

inline std::string safeName(std::string s) {
    for (char& c : s)
        if (c == '/' || c == '.' || c == '\\' || c == ' ') c = '_';
    return s;
}

/// Writes an iteration folder of a sync dump (MindSpore 2.x names with the dtype part) with
/// statistic.csv when `statistics`, the .npy files unless `statisticsOnly`, plus the rank's
/// execution order. Timestamps follow the op order. Returns the iteration folder.
inline std::filesystem::path writeMindSporeDump(const std::filesystem::path& root, int rank,
                                                const std::string& net, int graph, int iteration,
                                                const std::vector<DumpOp>& ops,
                                                bool statistics = true,
                                                bool statisticsOnly = false) {
    const auto rankDir = root / ("rank_" + std::to_string(rank));
    const auto dir = rankDir / net / std::to_string(graph) / std::to_string(iteration);
    std::filesystem::create_directories(dir);
    std::string csv =
        "Op Type,Op Name,Task ID,Stream ID,Timestamp,IO,Slot,Data Size,Data Type,Shape,Max Value,"
        "Min Value,Avg Value,Count,Negative Zero Count,Positive Zero Count,NaN Count,Negative Inf "
        "Count,Positive Inf Count,Zero Count\n";
    std::string order = "op_name\n";
    uint64_t ts = 1700000000000000 + static_cast<uint64_t>(iteration) * 1000;
    for (const DumpOp& op : ops) {
        order += op.fullName + "\n";
        auto one = [&](const char* io, size_t slot, const std::vector<float>& v) {
            ++ts;
            const std::string name = op.type + "." + safeName(op.fullName) + ".0.0." +
                                     std::to_string(ts) + "." + io + "." + std::to_string(slot) +
                                     ".DefaultFormat.float32.npy";
            if (!statisticsOnly) writeFile(dir / name, npyBytes("<f4", op.shape, f32Bytes(v)));
            if (!statistics) return;
            double mx = -1e300, mn = 1e300, sum = 0;
            uint64_t nan = 0, pinf = 0, ninf = 0, zero = 0, finite = 0;
            for (float x : v) {
                if (std::isnan(x))
                    ++nan;
                else if (std::isinf(x))
                    (x > 0 ? pinf : ninf)++;
                else {
                    ++finite;
                    mx = std::max(mx, double(x));
                    mn = std::min(mn, double(x));
                    sum += x;
                    zero += x == 0;
                }
            }
            std::string shape = "\"(";
            for (size_t i = 0; i < op.shape.size(); ++i)
                shape += (i ? "," : "") + std::to_string(op.shape[i]);
            shape += ")\"";
            csv += op.type + "," + op.fullName + ",0,0," + std::to_string(ts) + "," + io + "," +
                   std::to_string(slot) + "," + std::to_string(v.size() * 4) + ",float32," + shape +
                   "," + std::to_string(mx) + "," + std::to_string(mn) + "," +
                   std::to_string(finite ? sum / double(finite) : 0.0) + "," +
                   std::to_string(v.size()) + ",0,0," + std::to_string(nan) + "," +
                   std::to_string(ninf) + "," + std::to_string(pinf) + "," + std::to_string(zero) +
                   "\n";
        };
        for (size_t i = 0; i < op.inputs.size(); ++i) one("input", i, op.inputs[i]);
        for (size_t i = 0; i < op.outputs.size(); ++i) one("output", i, op.outputs[i]);
    }
    if (statistics) writeFile(dir / "statistic.csv", csv);
    writeFile(rankDir / "execution_order" /
                  ("ms_execution_order_graph_" + std::to_string(graph) + ".csv"),
              order);
    writeFile(rankDir / "graphs" / ("ms_output_trace_code_graph_" + std::to_string(graph) + ".ir"),
              "# IR of graph " + std::to_string(graph) + "\n");
    return dir;
}

/// LeNet-like ops: Conv2D, ReLU, MatMul, BiasAdd, with `scale` on MatMul's output (2 runs
/// that differ there) and optionally a NaN in ReLU's output.
inline std::vector<DumpOp> lenetOps(float scale = 1.0f, bool nanInRelu = false) {
    const std::string s = "Default/network-WithLossCell/_backbone-LeNet5/";
    std::vector<float> x = {0.5f, -1.0f, 2.0f, 0.25f, -0.75f, 1.5f};
    std::vector<float> conv = {1.0f, -2.0f, 3.0f, 0.5f, -0.25f, 1.25f};
    std::vector<float> relu = {1.0f, 0.0f, 3.0f, 0.5f, 0.0f, 1.25f};
    if (nanInRelu) relu[2] = std::nanf("");
    std::vector<float> mm = {2.0f, 1.0f, -1.0f, 0.5f, 3.0f, -2.0f};
    std::vector<float> mmScaled = mm;
    for (float& v : mmScaled) v *= scale;
    std::vector<float> bias = mmScaled;
    for (float& v : bias) v += 0.1f;
    return {
        {"Conv2D", s + "conv1-Conv2d/Conv2D-op0", {x}, {conv}, {2, 3}},
        {"ReLU", s + "relu-ReLU/ReLU-op1", {conv}, {relu}, {2, 3}},
        {"MatMul", s + "fc1-Dense/MatMul-op2", {relu}, {mmScaled}, {2, 3}},
        {"BiasAdd", s + "fc1-Dense/BiasAdd-op3", {mmScaled}, {bias}, {2, 3}},
    };
}

// ---- MindSpore RDR folders -----------------------------------------------------------

/// An RDR export as MindSpore writes one after "Run task error" on Ascend: graph IR, the
/// graph's execution order, the stream execution order, memory addresses, the task list, a
/// SOMAS record, and a log beside it naming the failing op. Returns the rdr folder.
inline std::filesystem::path writeMindSporeRdr(const std::filesystem::path& root,
                                               bool withLog = true) {
    const auto dir = root / "rank_0" / "rdr";
    const std::string ts = "20210911164831";
    const std::string a = "Default/network-WithLossCell/_backbone-Net/Conv2D-op1";
    const std::string b = "Default/network-WithLossCell/_backbone-Net/Add-op8";
    const std::string c = "Default/network-WithLossCell/_backbone-Net/ReLU-op9";
    writeFile(
        dir / ("PIPELINE_hwopt_d_before_graph_0_" + ts + ".ir"),
        "# [No.1] hwopt_d_before_graph_0\n"
        "subgraph @kernel_graph_0() {\n"
        "  %1(equivoutput) = Conv2D(%para1_x, %para2_w) {instance name: conv2d}\n"
        "      : (<Tensor[Float32], (32, 1, 32, 32)>) -> (<Tensor[Float32], (32, 6, 28, 28)>)\n"
        "      # Fullname with scope: (" +
            a +
            ")\n"
            "  %2(equivoutput) = Add(%1, %para3_b)\n"
            "      : (<Tensor[Float32], (32, 6, 28, 28)>) -> (<Tensor[Float32], (32, 6, 28, 28)>)\n"
            "      # Fullname with scope: (" +
            b +
            ")\n"
            "  %3(equivoutput) = ReLU(%2)\n"
            "      # Fullname with scope: (" +
            c +
            ")\n"
            "  Return(%3)\n}\n");
    auto node = [](int i, const std::string& name, const std::string& op) {
        return std::to_string(i) + ":\n\t@kernel_graph_0:" + name + "{[0]: ValueNode<Primitive> " +
               op + ", [1]: @kernel_graph_0:param_x}\n\t0\n\t0\n";
    };
    writeFile(dir / ("SESSION_graph_exec_order.0_" + ts + ".txt"),
              "================== execution order ==================\nexecution_order size: 3\n" +
                  node(0, a, "Conv2D") + node(1, b, "Add") + node(2, c, "ReLU") +
                  "================== execution order ==================\n");
    writeFile(
        dir / ("KERNEL_stream_exec_order_" + ts + ".json"),
        "[\n  {\"index\": 0, \"node_name\": \"" + a +
            "\", \"logic_id\": 0, \"stream_id\": 0, "
            "\"node_info\": \"Conv2D\", \"event_id\": 0},\n  {\"index\": 1, \"node_name\": \"" +
            b +
            "\", \"logic_id\": 0, \"stream_id\": 1, \"node_info\": \"Add\", \"event_id\": 3, "
            "\"active_stream_id\": \"2,3\"}\n]");
    writeFile(dir / ("KERNEL_mem_address_list_" + ts + ".txt"),
              a +
                  "\nkernel_inputs 2\n&0x1240000 #131072\n&0x1260000 #600\nkernel_workspaces 0\n"
                  "kernel_outputs 1\n&0x1270000 #602112\n\n" +
                  b +
                  "\nkernel_inputs 2\n&0x1270000 #602112\n&0x1300000 #24\nkernel_workspaces 1\n"
                  "&0x1310000 #32\nkernel_outputs 1\n&0x1320000 #602112\n\n");
    writeFile(dir / ("DEVICE_task_debug_info_0_" + ts + ".ir"),
              "op_name:" + a +
                  "\ntask_index:0\ttask_num:1\ttask0_stream_id:0\ttask0_type:0\ttask0_dump_flag:0\n"
                  "input address:0x1240000(131072)\t0x1260000(600)\t\noutput "
                  "address:0x1270000(602112)\t\n\n" +
                  "op_name:" + b +
                  "\ntask_index:1\ttask_num:1\ttask0_stream_id:1\ttask0_type:0\ttask0_dump_flag:0\n"
                  "input address:0x1270000(602112)\t\noutput "
                  "address:0x1320000(602112)\t\nworkspace address:0x1310000(32)\t\n\n");
    writeFile(dir / ("OPTIMIZER_somas_allocate_info.0_" + ts + ".txt"),
              "All Tensors:\n\nindex:[0]\tsize:[602112]\tstart_addr:[0]\n");
    writeFile(dir / ("DEBUG_unknown_record_" + ts + ".bin"), std::string("\x01\x02\x00\x03", 4));
    if (withLog)
        writeFile(root / "rank_0" / "mindspore.log",
                  "[ERROR] DEVICE(118114,ffff4effd1e0,python):2021-09-11-16:48:31.511.290 "
                  "[mindspore/ccsrc/runtime/device/ascend/ascend_kernel_runtime.cc:679] "
                  "DumpTaskExceptionInfo] Task fail infos task_id: 13, stream_id: 14, tid: 118198, "
                  "device_id: 0, retcode: 507011 ( model execute failed)\n"
                  "[ERROR] DEVICE(118114,ffff4effd1e0,python):2021-09-11-16:48:31.511.460 "
                  "[mindspore/ccsrc/runtime/device/ascend/ascend_kernel_runtime.cc:688] "
                  "DumpTaskExceptionInfo] Dump node (" +
                      b +
                      ") task error input/output data to: "
                      "./rank_0/node_dump trace:\n");
    return dir;
}

}  // namespace ts::test
