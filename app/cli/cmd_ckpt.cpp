// trainscope-cli ckpt FILE [--json]: the tensors of a MindSpore-style protobuf checkpoint
// (name, shape, dtype, element count) and its parameter counts, total and trainable
// (see core/checkpoint_info/checkpoint_info.h for the rule).
#include <cstdio>
#include <iostream>

#include "app/cli/command.h"
#include "core/checkpoint_info/checkpoint_info.h"

namespace ts::cli {
namespace {

std::string shapeText(const std::vector<int64_t>& dims) {
    std::string s = "[";
    for (size_t i = 0; i < dims.size(); ++i) s += (i ? ", " : "") + std::to_string(dims[i]);
    return s + "]";
}

int runCkpt(const Args& args) {
    auto info = checkpoint_info::readCheckpointInfo(args.positional[0]);
    if (!info) throw CliError{info.error()};
    const auto& ck = info.value();
    if (args.json) {
        rapidjson::StringBuffer buf;
        JsonWriter w(buf);
        w.StartObject();
        kv(w, "path", ck.path);
        kv(w, "file_bytes", static_cast<int64_t>(ck.fileBytes));
        kv(w, "tensors", static_cast<int64_t>(ck.params.size()));
        kv(w, "total_params", ck.totalElements);
        kv(w, "trainable_params", ck.trainableElements);
        w.Key("params");
        w.StartArray();
        for (const auto& p : ck.params) {
            w.StartObject();
            kv(w, "name", p.name);
            w.Key("shape");
            w.StartArray();
            for (int64_t d : p.dims) w.Int64(d);
            w.EndArray();
            kv(w, "dtype", p.dtype);
            kv(w, "count", p.elements);
            kv(w, "bytes", p.contentBytes);
            w.Key("trainable");
            w.Bool(p.trainable);
            w.EndObject();
        }
        w.EndArray();
        w.Key("warnings");
        w.StartArray();
        for (const auto& m : ck.warnings)
            w.String(m.c_str(), static_cast<rapidjson::SizeType>(m.size()));
        w.EndArray();
        w.EndObject();
        printJson(buf);
        return 0;
    }
    std::printf("%-48s %-20s %-9s %12s  %s\n", "name", "shape", "dtype", "count", "trainable");
    for (const auto& p : ck.params)
        std::printf("%-48s %-20s %-9s %12lld  %s\n", p.name.c_str(), shapeText(p.dims).c_str(),
                    p.dtype.c_str(), static_cast<long long>(p.elements),
                    p.trainable ? "yes" : "no");
    std::printf("%zu tensors, %lld parameters, %lld trainable\n", ck.params.size(),
                static_cast<long long>(ck.totalElements),
                static_cast<long long>(ck.trainableElements));
    for (const auto& m : ck.warnings) std::fprintf(stderr, "warning: %s\n", m.c_str());
    return 0;
}

TS_CLI_COMMAND("ckpt", "list the parameters, shapes, dtypes and counts of a checkpoint (*.ckpt)",
               "FILE [--json]", {}, &runCkpt, 1, 1);

}  // namespace
}  // namespace ts::cli
