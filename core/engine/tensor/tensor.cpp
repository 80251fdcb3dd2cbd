#include "core/engine/tensor/tensor.h"

#include <cstring>
#include <new>
#include <stdexcept>

#include "core/engine/device/device.h"
#include "core/engine/device/device_kernels.h"

namespace ts::engine {

size_t dtypeSize(DType t) {
    switch (t) {
        case DType::Float32:
            return 4;
        case DType::Float16:
            return 2;
        case DType::Int32:
            return 4;
        case DType::Int64:
            return 8;
        case DType::UInt8:
            return 1;
    }
    return 4;
}

const char* dtypeName(DType t) {
    switch (t) {
        case DType::Float32:
            return "Float32";
        case DType::Float16:
            return "Float16";
        case DType::Int32:
            return "Int32";
        case DType::Int64:
            return "Int64";
        case DType::UInt8:
            return "UInt8";
    }
    return "?";
}

bool dtypeFromName(const std::string& name, DType* out) {
    static const std::pair<const char*, DType> table[] = {{"Float32", DType::Float32},
                                                          {"Float16", DType::Float16},
                                                          {"Int32", DType::Int32},
                                                          {"Int64", DType::Int64},
                                                          {"UInt8", DType::UInt8}};
    for (const auto& [n, t] : table)
        if (name == n) {
            *out = t;
            return true;
        }
    return false;
}

int64_t numel(const Shape& s) {
    int64_t n = 1;
    for (int64_t d : s) n *= d;
    return n;
}

std::string shapeString(const Shape& s) {
    std::string out = "[";
    for (size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
    return out + "]";
}

Storage::Storage(MemoryPool& p, size_t n) : pool(&p), data(p.allocate(n)), bytes(n) {
    if (!data) throw std::bad_alloc();
}
Storage::~Storage() {
    pool->release(data, bytes);
}

Tensor Tensor::empty(const Shape& shape, DType dtype) {
    auto impl = std::make_shared<TensorImpl>();
    impl->shape = shape;
    impl->dtype = dtype;
    impl->storage = std::make_shared<Storage>(
        MemoryPool::current(), static_cast<size_t>(engine::numel(shape)) * dtypeSize(dtype));
    return Tensor(std::move(impl));
}

Tensor Tensor::zeros(const Shape& shape, DType dtype) {
    Tensor t = empty(shape, dtype);
    std::memset(t.raw(), 0, t.nbytes());
    return t;
}

Tensor Tensor::full(const Shape& shape, float value) {
    Tensor t = empty(shape);
    float* p = t.f32();
    for (int64_t i = 0, n = t.numel(); i < n; ++i) p[i] = value;
    return t;
}

Tensor Tensor::fromVector(const Shape& shape, const std::vector<float>& values) {
    Tensor t = empty(shape);
    if (static_cast<int64_t>(values.size()) != t.numel())
        throw std::invalid_argument("fromVector: " + std::to_string(values.size()) +
                                    " values for shape " + shapeString(shape));
    std::memcpy(t.raw(), values.data(), t.nbytes());
    return t;
}

Tensor Tensor::clone() const {
    if (device() != Device::CPU) return deviceClone(*this);
    Tensor t = empty(shape(), dtype());
    std::memcpy(t.raw(), raw(), nbytes());
    return t;
}

Tensor Tensor::view(const Shape& s) const {
    if (engine::numel(s) != numel())
        throw std::invalid_argument("view: cannot reshape " + shapeString(shape()) + " to " +
                                    shapeString(s));
    auto impl = std::make_shared<TensorImpl>();
    impl->shape = s;
    impl->dtype = dtype();
    impl->device = device();
    impl->storage = m_impl->storage;
    return Tensor(std::move(impl));
}

namespace {
template <class S>
void toFloat(const S* in, float* out, int64_t n) {
    for (int64_t i = 0; i < n; ++i) out[i] = static_cast<float>(in[i]);
}
}  // namespace

Tensor Tensor::to(DType target) const {
    if (target == dtype()) return clone();
    if (device() != Device::CPU) return toDevice(toHost(*this).to(target), device());
    Tensor out = empty(shape(), target);
    const int64_t n = numel();
    if (target == DType::Float32) {
        float* o = out.f32();
        switch (dtype()) {
            case DType::Float16: {
                const auto* h = data<uint16_t>();
                for (int64_t i = 0; i < n; ++i) o[i] = halfToFloat(h[i]);
                break;
            }
            case DType::Int32:
                toFloat(data<int32_t>(), o, n);
                break;
            case DType::Int64:
                toFloat(data<int64_t>(), o, n);
                break;
            case DType::UInt8:
                toFloat(data<uint8_t>(), o, n);
                break;
            case DType::Float32:
                break;
        }
        return out;
    }
    if (dtype() != DType::Float32) return to(DType::Float32).to(target);
    const float* in = f32();
    switch (target) {
        case DType::Float16: {
            auto* h = out.data<uint16_t>();
            for (int64_t i = 0; i < n; ++i) h[i] = floatToHalf(in[i]);
            break;
        }
        case DType::Int32:
            for (int64_t i = 0; i < n; ++i) out.i32()[i] = static_cast<int32_t>(in[i]);
            break;
        case DType::Int64:
            for (int64_t i = 0; i < n; ++i) out.data<int64_t>()[i] = static_cast<int64_t>(in[i]);
            break;
        case DType::UInt8:
            for (int64_t i = 0; i < n; ++i) out.data<uint8_t>()[i] = static_cast<uint8_t>(in[i]);
            break;
        case DType::Float32:
            break;
    }
    return out;
}

uint16_t floatToHalf(float f) {
    return kernels::toHalf(f);  // the same rounding on the host and in the CUDA kernels
}

float halfToFloat(uint16_t h) {
    return kernels::fromHalf(h);
}

}  // namespace ts::engine
