#pragma once
// Checkpoint bytes for the tests, written by the real protobuf library through a
// descriptor built at run time (MindSpore's checkpoint.proto, proto2, no generated code),
// so the hand-written wire reader is checked against an independent encoder.
#include <google/protobuf/descriptor.h>
#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/dynamic_message.h>

#include <cstdint>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

namespace ts::test {

struct CkptTensor {
    std::string name;
    std::vector<int64_t> dims;
    std::string dtype;
    size_t contentBytes;
};

inline std::string protobufCheckpoint(const std::vector<CkptTensor>& tensors) {
    using namespace google::protobuf;
    FileDescriptorProto f;
    f.set_name("ckpt_test.proto");
    f.set_package("t");
    auto field = [](DescriptorProto* m, const char* name, int number,
                    FieldDescriptorProto::Label label, FieldDescriptorProto::Type type,
                    const char* typeName = nullptr) {
        auto* fd = m->add_field();
        fd->set_name(name);
        fd->set_number(number);
        fd->set_label(label);
        fd->set_type(type);
        if (typeName) fd->set_type_name(typeName);
    };
    auto* tp = f.add_message_type();
    tp->set_name("TensorProto");
    field(tp, "dims", 1, FieldDescriptorProto::LABEL_REPEATED, FieldDescriptorProto::TYPE_INT64);
    field(tp, "tensor_type", 2, FieldDescriptorProto::LABEL_REQUIRED,
          FieldDescriptorProto::TYPE_STRING);
    field(tp, "tensor_content", 3, FieldDescriptorProto::LABEL_REQUIRED,
          FieldDescriptorProto::TYPE_BYTES);
    auto* ck = f.add_message_type();
    ck->set_name("Checkpoint");
    auto* value = ck->add_nested_type();
    value->set_name("Value");
    field(value, "tag", 1, FieldDescriptorProto::LABEL_REQUIRED, FieldDescriptorProto::TYPE_STRING);
    field(value, "tensor", 2, FieldDescriptorProto::LABEL_REQUIRED,
          FieldDescriptorProto::TYPE_MESSAGE, ".t.TensorProto");
    field(ck, "value", 1, FieldDescriptorProto::LABEL_REPEATED, FieldDescriptorProto::TYPE_MESSAGE,
          ".t.Checkpoint.Value");

    DescriptorPool pool;
    if (!pool.BuildFile(f)) return {};
    DynamicMessageFactory factory(&pool);
    const Descriptor* ckd = pool.FindMessageTypeByName("t.Checkpoint");
    const Descriptor* vd = pool.FindMessageTypeByName("t.Checkpoint.Value");
    const Descriptor* td = pool.FindMessageTypeByName("t.TensorProto");
    std::unique_ptr<Message> msg(factory.GetPrototype(ckd)->New());
    for (const auto& t : tensors) {
        Message* v = msg->GetReflection()->AddMessage(msg.get(), ckd->FindFieldByName("value"));
        v->GetReflection()->SetString(v, vd->FindFieldByName("tag"), t.name);
        Message* tensor = v->GetReflection()->MutableMessage(v, vd->FindFieldByName("tensor"));
        const Reflection* tr = tensor->GetReflection();
        for (int64_t d : t.dims) tr->AddInt64(tensor, td->FindFieldByName("dims"), d);
        tr->SetString(tensor, td->FindFieldByName("tensor_type"), t.dtype);
        tr->SetString(tensor, td->FindFieldByName("tensor_content"),
                      std::string(t.contentBytes, '\x01'));
    }
    std::string out;
    msg->SerializeToString(&out);
    return out;
}

/// LeNet-5 as MindSpore saves it with a Momentum optimizer (sizes of real layers).
inline std::vector<CkptTensor> lenetTensors() {
    return {
        {"conv1.weight", {6, 1, 5, 5}, "Float32", 600},
        {"conv2.weight", {16, 6, 5, 5}, "Float32", 9600},
        {"fc1.weight", {120, 400}, "Float32", 192000},
        {"fc1.bias", {120}, "Float32", 480},
        {"fc2.weight", {84, 120}, "Float32", 40320},
        {"fc2.bias", {84}, "Float32", 336},
        {"fc3.weight", {10, 84}, "Float32", 3360},
        {"fc3.bias", {10}, "Float32", 40},
        {"moments.conv1.weight", {6, 1, 5, 5}, "Float32", 600},
        {"learning_rate", {}, "Float32", 4},
        {"momentum", {}, "Float32", 4},
        {"global_step", {1}, "Int32", 4},
    };
}

inline void writeFile(const std::string& path, const std::string& bytes) {
    std::ofstream(path, std::ios::binary)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace ts::test
