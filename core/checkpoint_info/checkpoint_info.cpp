#include "core/checkpoint_info/checkpoint_info.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <filesystem>
#include <fstream>

#include "core/checkpoint_info/proto_wire_reader.h"
#include "core/common/text.h"

namespace ts::checkpoint_info {
namespace {

Status readTensor(ProtoWireReader& r, ParamInfo& p) {
    while (!r.atEnd()) {
        auto tag = r.readTag();
        if (!tag) return Error{tag.error()};
        const auto [field, type] = tag.value();
        if (field == 1 && type == WireType::Varint) {
            auto v = r.readVarint();
            if (!v) return Error{v.error()};
            p.dims.push_back(static_cast<int64_t>(v.value()));
        } else if (field == 1 && type == WireType::LengthDelimited) {  // packed dims
            auto n = r.readLength();
            if (!n) return Error{n.error()};
            auto packed = r.subMessage(n.value());
            if (!packed) return Error{packed.error()};
            while (!packed->atEnd()) {
                auto v = packed->readVarint();
                if (!v) return Error{v.error()};
                p.dims.push_back(static_cast<int64_t>(v.value()));
            }
        } else if (field == 2 && type == WireType::LengthDelimited) {
            auto n = r.readLength();
            if (!n) return Error{n.error()};
            if (n.value() > 256)
                return Error{"tensor_type of " + std::to_string(n.value()) + " bytes at byte " +
                             std::to_string(r.pos())};
            auto s = r.readBytes(n.value());
            if (!s) return Error{s.error()};
            p.dtype = std::move(s.value());
        } else if (field == 3 && type == WireType::LengthDelimited) {
            auto n = r.readLength();
            if (!n) return Error{n.error()};
            p.contentBytes += static_cast<int64_t>(n.value());
            if (auto s = r.skip(n.value()); !s) return s;
        } else if (auto s = r.skipValue(type); !s) {
            return s;
        }
    }
    return Status::success();
}

Status readValue(ProtoWireReader& r, ParamInfo& p) {
    while (!r.atEnd()) {
        auto tag = r.readTag();
        if (!tag) return Error{tag.error()};
        const auto [field, type] = tag.value();
        if (field == 1 && type == WireType::LengthDelimited) {
            auto n = r.readLength();
            if (!n) return Error{n.error()};
            if (n.value() > 65536)
                return Error{"parameter name of " + std::to_string(n.value()) + " bytes at byte " +
                             std::to_string(r.pos())};
            auto s = r.readBytes(n.value());
            if (!s) return Error{s.error()};
            p.name = std::move(s.value());
        } else if (field == 2 && type == WireType::LengthDelimited) {
            auto n = r.readLength();
            if (!n) return Error{n.error()};
            auto sub = r.subMessage(n.value());
            if (!sub) return Error{sub.error()};
            if (auto s = readTensor(sub.value(), p); !s) return s;
        } else if (auto s = r.skipValue(type); !s) {
            return s;
        }
    }
    return Status::success();
}

void finishParam(ParamInfo& p, CheckpointInfo& info) {
    int64_t elements = 1;
    bool sane = true;
    for (int64_t d : p.dims) {
        if (d < 0 || (d > 0 && elements > INT64_MAX / d)) {
            sane = false;
            break;
        }
        elements *= d;
    }
    if (!sane) {
        info.warnings.push_back("'" + p.name + "': shape has a negative or overflowing dimension");
        elements = 0;
    }
    p.elements = elements;
    p.trainable = isTrainableName(p.name);
    const int size = dtypeSize(p.dtype);
    int64_t bytes = 0;
    if (size == 0) {
        info.warnings.push_back("'" + p.name + "': unknown dtype '" + p.dtype + "'");
    } else if (sane && __builtin_mul_overflow(elements, int64_t{size}, &bytes)) {
        // (found by fuzz_checkpoint: a shape whose byte size is past int64)
        info.warnings.push_back("'" + p.name + "': shape x " + p.dtype +
                                " needs more bytes than a file can hold");
    } else if (sane && p.contentBytes != bytes) {
        info.warnings.push_back("'" + p.name + "': " + std::to_string(p.contentBytes) +
                                " content bytes, shape x " + p.dtype + " needs " +
                                std::to_string(bytes));
    }
    // totals saturate rather than wrap when damaged shapes add up past int64
    auto add = [](int64_t& total, int64_t n) {
        if (__builtin_add_overflow(total, n, &total)) total = INT64_MAX;
    };
    add(info.totalElements, elements);
    if (p.trainable) add(info.trainableElements, elements);
}

}  // namespace

bool isTrainableName(std::string_view name) {
    static constexpr std::array<std::string_view, 9> kStatePrefixes = {
        "moments.", "moment1.", "moment2.",    "accum.",     "adam_m.",
        "adam_v.",  "adam_",    "beta1_power", "beta2_power"};
    static constexpr std::array<std::string_view, 11> kStateNames = {"global_step",
                                                                     "learning_rate",
                                                                     "momentum",
                                                                     "epoch",
                                                                     "step",
                                                                     "cur_epoch_num",
                                                                     "cur_step_num",
                                                                     "loss_scale",
                                                                     "scale_sense",
                                                                     "current_iterator_step",
                                                                     "last_overflow_iterator_step"};
    static constexpr std::array<std::string_view, 5> kStatSuffixes = {
        ".moving_mean", ".moving_variance", ".running_mean", ".running_var",
        ".num_batches_tracked"};
    for (auto p : kStatePrefixes)
        if (name.starts_with(p)) return false;
    for (auto n : kStateNames)
        if (name.starts_with(n) &&
            (name.size() == n.size() || name[n.size()] == '.' || name[n.size()] == '_'))
            return false;
    for (auto s : kStatSuffixes)
        if (name.ends_with(s)) return false;
    return !name.empty();
}

int dtypeSize(std::string_view dtype) {
    const std::string d = asciiLower(dtype);
    if (d == "float32" || d == "int32" || d == "uint32" || d == "float" || d == "int") return 4;
    if (d == "float16" || d == "bfloat16" || d == "int16" || d == "uint16" || d == "half") return 2;
    if (d == "float64" || d == "int64" || d == "uint64" || d == "double") return 8;
    if (d == "int8" || d == "uint8" || d == "bool") return 1;
    return 0;
}

Result<CheckpointInfo> parseCheckpoint(std::istream& in, uint64_t size) {
    CheckpointInfo info;
    info.fileBytes = size;
    if (size == 0) return Error{"not a checkpoint: the file is empty"};
    ProtoWireReader r(in, 0, size);
    while (!r.atEnd()) {
        const uint64_t at = r.pos();
        auto tag = r.readTag();
        if (!tag) return Error{"not a checkpoint: " + tag.error()};
        if (tag->field == 1 && tag->type == WireType::LengthDelimited) {
            auto n = r.readLength();
            if (!n) return Error{"damaged checkpoint: " + n.error()};
            auto sub = r.subMessage(n.value());
            if (!sub) return Error{"damaged checkpoint: " + sub.error()};
            ParamInfo p;
            if (auto s = readValue(sub.value(), p); !s)
                return Error{"damaged checkpoint: entry at byte " + std::to_string(at) + ": " +
                             s.error()};
            if (p.name.empty())
                return Error{"not a checkpoint: entry at byte " + std::to_string(at) +
                             " has no name"};
            finishParam(p, info);
            info.params.push_back(std::move(p));
        } else if (auto s = r.skipValue(tag->type); !s) {
            // Other fields (our engine keeps its train state in field 15) are skipped.
            return Error{"not a checkpoint: " + s.error()};
        }
    }
    if (info.params.empty())
        return Error{"not a checkpoint: no tensor entries (field 1) in the file"};
    return info;
}

Result<CheckpointInfo> readCheckpointInfo(const std::string& path) {
    std::error_code ec;
    if (std::filesystem::is_directory(path, ec))
        return Error{"'" + path + "' is a folder, not a checkpoint file"};
    const auto size = std::filesystem::file_size(path, ec);
    if (ec) return Error{"cannot open checkpoint '" + path + "': " + ec.message()};
    std::ifstream in(path, std::ios::binary);
    if (!in) return Error{"cannot open checkpoint '" + path + "'"};
    auto info = parseCheckpoint(in, size);
    if (!info) return Error{path + ": " + info.error()};
    info->path = path;
    return info;
}

}  // namespace ts::checkpoint_info
