// trainscope-cli export-onnx CKPT --model NAME -o model.onnx [--opset N] [--batch N]
// [--json]: a trained checkpoint as an ONNX model (ONNX's onnx.proto, opset 13 by default),
// traced from the engine's forward pass in evaluation mode (core/export/onnx).
#include <cstdio>

#include "app/cli/command.h"
#include "core/export/onnx/onnx_export.h"

namespace ts::cli {
namespace {

std::string dims(const std::vector<int64_t>& d, bool dynamic) {
    std::string s = "[";
    for (size_t i = 0; i < d.size(); ++i)
        s += (i ? ", " : "") +
             (i == 0 && dynamic ? std::string("batch_size") : std::to_string(d[i]));
    return s + "]";
}

int runExportOnnx(const Args& args) {
    const auto out = args.value("output");
    if (!out) throw CliError{"name the ONNX file to write: -o model.onnx", 2};
    onnx_export::ExportOptions o;
    o.opset = static_cast<int>(intOption(args, "opset", o.opset, {.exitCode = 2}));
    if (args.has("batch")) {
        o.batch = intOption(args, "batch", o.batch, {.exitCode = 2});
        o.dynamicBatch = false;
    }
    auto r = onnx_export::exportCheckpoint(args.positional[0], args.valueOr("model", ""), *out, o);
    if (!r) throw CliError{r.error()};
    const auto& rep = r.value();
    if (args.json) {
        rapidjson::StringBuffer buf;
        JsonWriter w(buf);
        w.StartObject();
        kv(w, "path", rep.path);
        kv(w, "model", rep.model);
        kv(w, "opset", static_cast<int64_t>(rep.opset));
        kv(w, "bytes", rep.bytes);
        kv(w, "nodes", rep.nodes);
        kv(w, "initializers", rep.initializers);
        kv(w, "parameters", rep.parameters);
        kv(w, "input", dims(rep.inputShape, o.dynamicBatch));
        kv(w, "output", dims(rep.outputShape, o.dynamicBatch));
        w.Key("op_types");
        w.StartArray();
        for (const auto& t : rep.opTypes)
            w.String(t.c_str(), static_cast<rapidjson::SizeType>(t.size()));
        w.EndArray();
        w.EndObject();
        printJson(buf);
        return 0;
    }
    std::string types;
    for (const auto& t : rep.opTypes) types += (types.empty() ? "" : ", ") + t;
    std::printf("%s: %s, opset %d, %lld nodes, %lld parameters, %lld bytes\n", rep.path.c_str(),
                rep.model.c_str(), rep.opset, static_cast<long long>(rep.nodes),
                static_cast<long long>(rep.parameters), static_cast<long long>(rep.bytes));
    std::printf("input %s -> output %s\nops: %s\n", dims(rep.inputShape, o.dynamicBatch).c_str(),
                dims(rep.outputShape, o.dynamicBatch).c_str(), types.c_str());
    return 0;
}

TS_CLI_COMMAND("export-onnx",
               "write a trained checkpoint as an ONNX model (opset 13; evaluation mode)",
               "CKPT --model mlp|lenet5|resnet8|shufflenetv2 -o MODEL.onnx [--opset N] "
               "[--batch N] [--json]",
               {{"model", true, "the checkpoint's model (default: the one its train state names)"},
                {"output", true, "the ONNX file to write (also -o)"},
                {"opset", true, "ONNX opset version, 13 (default) to 17"},
                {"batch", true, "a fixed batch size instead of the symbolic batch_size dimension"}},
               &runExportOnnx, 1, 1);

}  // namespace
}  // namespace ts::cli
