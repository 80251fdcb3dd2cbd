#include "core/engine/train/checkpoint.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/common/file_io.h"
#include "core/engine/device/device.h"
#include "core/engine/train/proto_wire.h"
#include "core/log/logger.h"

namespace ts::engine {

namespace {

std::string encodeTensor(const Tensor& tensor) {
    const Tensor t = toHost(tensor);  // a device tensor's bytes are read back first
    std::string out;
    for (int64_t d : t.shape()) wire::fieldVarint(out, 1, static_cast<uint64_t>(d));
    wire::fieldBytes(out, 2, dtypeName(t.dtype()));
    wire::fieldBytes(out, 3, std::string_view(static_cast<const char*>(t.raw()), t.nbytes()));
    return out;
}

std::string encodeState(const TrainState& s) {
    std::string out;
    wire::fieldVarint(out, 1, static_cast<uint64_t>(s.epoch));
    wire::fieldVarint(out, 2, static_cast<uint64_t>(s.step));
    wire::fieldBytes(out, 3, s.optimizer);
    wire::fieldDouble(out, 4, s.lossScale);
    wire::fieldVarint(out, 5, static_cast<uint64_t>(s.optimizerUpdates));
    wire::fieldBytes(out, 6, s.configJson);
    wire::fieldVarint(out, 7, static_cast<uint64_t>(s.goodSteps));
    return out;
}

Result<Tensor> decodeTensor(std::string_view bytes, const std::string& tag) {
    wire::Reader r(bytes);
    Shape dims;
    std::string type;
    std::string_view content;
    uint32_t f;
    int t;
    while (r.next(f, t)) {
        uint64_t v;
        std::string_view s;
        if (f == 1 && t == 0 && r.readVarint(v)) {
            dims.push_back(static_cast<int64_t>(v));
        } else if (f == 1 && t == 2 && r.readBytes(s)) {  // packed dims
            wire::Reader p(s);
            while (!p.atEnd() && p.readVarint(v)) dims.push_back(static_cast<int64_t>(v));
        } else if (f == 2 && t == 2 && r.readBytes(s)) {
            type = std::string(s);
        } else if (f == 3 && t == 2 && r.readBytes(s)) {
            content = s;
        } else if (!r.skip(t)) {
            break;
        }
    }
    if (!r.ok()) return Error{"tensor '" + tag + "': malformed TensorProto"};
    DType dt;
    if (!dtypeFromName(type, &dt))
        return Error{"tensor '" + tag + "': unsupported tensor_type '" + type + "'"};
    for (int64_t d : dims)
        if (d < 0 || d > (int64_t(1) << 40)) return Error{"tensor '" + tag + "': bad dimension"};
    const int64_t n = numel(dims);
    if (static_cast<uint64_t>(n) * dtypeSize(dt) != content.size())
        return Error{"tensor '" + tag + "': " + std::to_string(content.size()) +
                     " bytes of data for shape " + shapeString(dims) + " " + type};
    Tensor out = Tensor::empty(dims, dt);
    if (!content.empty()) std::memcpy(out.raw(), content.data(), content.size());
    return out;
}

Tensor scalarTensor(int64_t v, DType dt) {
    Tensor t = Tensor::empty({1}, dt);
    if (dt == DType::Int32)
        t.i32()[0] = static_cast<int32_t>(v);
    else
        t.data<int64_t>()[0] = v;
    return t;
}

}  // namespace

Result<std::string> encodeCheckpoint(const CheckpointFile& ckpt) {
    std::string out;
    for (const auto& [tag, t] : ckpt.values) {
        std::string value;
        wire::fieldBytes(value, 1, tag);
        wire::fieldBytes(value, 2, encodeTensor(t));
        wire::fieldBytes(out, 1, value);
    }
    if (ckpt.hasTrainState) wire::fieldBytes(out, 15, encodeState(ckpt.state));
    return out;
}

Result<CheckpointFile> decodeCheckpoint(std::string_view bytes) {
    CheckpointFile ckpt;
    wire::Reader r(bytes);
    uint32_t f;
    int t;
    while (r.next(f, t)) {
        std::string_view s;
        if (f == 1 && t == 2 && r.readBytes(s)) {
            wire::Reader v(s);
            std::string tag;
            std::string_view tensorBytes;
            bool haveTensor = false;
            uint32_t vf;
            int vt;
            while (v.next(vf, vt)) {
                std::string_view b;
                if (vf == 1 && vt == 2 && v.readBytes(b)) {
                    tag = std::string(b);
                } else if (vf == 2 && vt == 2 && v.readBytes(b)) {
                    tensorBytes = b;
                    haveTensor = true;
                } else if (!v.skip(vt)) {
                    break;
                }
            }
            if (!v.ok()) return Error{"malformed checkpoint value after '" + tag + "'"};
            if (!haveTensor) continue;
            auto tensor = decodeTensor(tensorBytes, tag);
            if (!tensor) return Error{tensor.error()};
            ckpt.values.emplace_back(tag, tensor.value());
        } else if (f == 15 && t == 2 && r.readBytes(s)) {
            wire::Reader st(s);
            uint32_t sf;
            int stt;
            ckpt.hasTrainState = true;
            while (st.next(sf, stt)) {
                uint64_t v = 0;
                std::string_view b;
                if (stt == 0 && st.readVarint(v)) {
                    if (sf == 1) ckpt.state.epoch = static_cast<int>(v);
                    if (sf == 2) ckpt.state.step = static_cast<int64_t>(v);
                    if (sf == 5) ckpt.state.optimizerUpdates = static_cast<int64_t>(v);
                    if (sf == 7) ckpt.state.goodSteps = static_cast<int64_t>(v);
                } else if (stt == 2 && st.readBytes(b)) {
                    if (sf == 3) ckpt.state.optimizer = std::string(b);
                    if (sf == 6) ckpt.state.configJson = std::string(b);
                } else if (stt == 1 && sf == 4) {
                    st.readFixed(&ckpt.state.lossScale, 8);
                } else if (!st.skip(stt)) {
                    break;
                }
            }
            if (!st.ok()) return Error{"malformed train_state in checkpoint"};
        } else if (!r.skip(t)) {
            break;
        }
    }
    if (!r.ok()) return Error{"not a checkpoint: malformed protobuf data"};
    return ckpt;
}

Status writeCheckpoint(const std::string& path, const CheckpointFile& ckpt) {
    auto bytes = encodeCheckpoint(ckpt);
    if (!bytes) return Error{bytes.error()};
    if (auto s = writeFileAtomically(path, bytes.value()); !s) return s;
    TS_LOG(CHECKPOINT, INFO) << "saved " << ckpt.values.size() << " tensors to " << path;
    return Status::success();
}

Result<CheckpointFile> readCheckpoint(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) return Error{"cannot open checkpoint " + path};
    std::stringstream ss;
    ss << in.rdbuf();
    auto ck = decodeCheckpoint(ss.str());
    if (!ck) return Error{path + ": " + ck.error()};
    return ck;
}

CheckpointFile makeCheckpoint(const Cell& net, const Optimizer* opt, const TrainState& state) {
    CheckpointFile ck;
    for (const auto& p : net.parameters()) ck.values.emplace_back(p.name, p.tensor);
    if (opt)
        for (const auto& [tag, t] : opt->state()) ck.values.emplace_back(tag, t);
    ck.values.emplace_back("epoch_num", scalarTensor(state.epoch, DType::Int32));
    ck.values.emplace_back("step_num", scalarTensor(state.step, DType::Int32));
    ck.values.emplace_back("global_step", scalarTensor(state.step, DType::Int64));
    ck.hasTrainState = true;
    ck.state = state;
    return ck;
}

Result<LoadReport> loadCheckpoint(const std::string& path, Cell& net, Optimizer* opt) {
    auto ck = readCheckpoint(path);
    if (!ck) return Error{ck.error()};
    LoadReport rep;
    std::map<std::string, Tensor> byTag;
    for (const auto& [tag, t] : ck.value().values) byTag[tag] = t;
    for (auto& p : net.parameters()) {
        auto it = byTag.find(p.name);
        if (it == byTag.end()) {
            rep.warnings.push_back(p.name + ": not in the checkpoint, keeps its initial value");
            continue;
        }
        if (it->second.shape() != p.tensor.shape() || it->second.dtype() != p.tensor.dtype()) {
            rep.warnings.push_back(p.name + ": " + dtypeName(it->second.dtype()) +
                                   shapeString(it->second.shape()) + " in the checkpoint, " +
                                   dtypeName(p.tensor.dtype()) + shapeString(p.tensor.shape()) +
                                   " in the network; not loaded");
            byTag.erase(it);
            continue;
        }
        if (onDevice(p.tensor))  // a device parameter takes a device copy, in place
            p.tensor.impl()->storage = toDevice(it->second, p.tensor.device()).impl()->storage;
        else
            std::memcpy(p.tensor.raw(), it->second.raw(), p.tensor.nbytes());
        ++rep.loaded;
        byTag.erase(it);
    }
    int optUsed = 0;
    if (opt) optUsed = opt->loadState(byTag);
    for (const auto& [tag, t] : byTag) {
        const bool known = tag == "epoch_num" || tag == "step_num" || tag == "global_step" ||
                           tag.rfind("moments.", 0) == 0 || tag.rfind("moment1.", 0) == 0 ||
                           tag.rfind("moment2.", 0) == 0 || tag.rfind("adam_m.", 0) == 0 ||
                           tag.rfind("adam_v.", 0) == 0;
        if (!known)
            rep.warnings.push_back(
                tag + ": in the checkpoint but not a parameter of the network; ignored");
    }
    (void)optUsed;
    TS_LOG(CHECKPOINT, INFO) << "loaded " << rep.loaded << " parameters from " << path;
    for (const auto& w : rep.warnings) TS_LOG(CHECKPOINT, WARNING) << path << ": " << w;
    rep.hasTrainState = ck.value().hasTrainState;
    rep.state = ck.value().state;
    if (opt && rep.hasTrainState) opt->setUpdates(rep.state.optimizerUpdates);
    return rep;
}

}  // namespace ts::engine
