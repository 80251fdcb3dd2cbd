#pragma once
// Tensor: a reference-counted handle to a dense, contiguous, row-major CPU tensor whose
// bytes come from the thread's MemoryPool. Copies of a Tensor share data (like torch.Tensor);
// clone() copies. Autograd state (requires_grad, grad, the node that made it) lives here.
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "core/engine/tensor/memory_pool.h"

namespace ts::engine {

enum class DType { Float32, Float16, Int32, Int64, UInt8 };
/// Where a tensor's bytes live. CUDA tensors come from the device's pool and are served by a
/// DeviceBackend (core/engine/device/device.h, docs/GPU.md); their data() is device memory.
enum class Device { CPU, CUDA };

size_t dtypeSize(DType t);
/// MindSpore checkpoint names: "Float32", "Float16", "Int32", "Int64", "UInt8".
const char* dtypeName(DType t);
bool dtypeFromName(const std::string& name, DType* out);

using Shape = std::vector<int64_t>;
int64_t numel(const Shape& s);
std::string shapeString(const Shape& s);

struct Node;
class Tensor;
/// Element i of a float32 device tensor, copied to the host (core/engine/device/device.cpp).
float deviceItem(const Tensor& t, int64_t i);

/// Bytes of one tensor, returned to the pool it came from.
struct Storage {
    Storage(MemoryPool& pool, size_t bytes);
    ~Storage();
    Storage(const Storage&) = delete;
    Storage& operator=(const Storage&) = delete;
    MemoryPool* pool;
    void* data;
    size_t bytes;
};

struct TensorImpl {
    Shape shape;
    DType dtype = DType::Float32;
    Device device = Device::CPU;
    std::shared_ptr<Storage> storage;
    bool requiresGrad = false;
    std::shared_ptr<TensorImpl> grad;  // accumulated gradient (leaf tensors)
    std::shared_ptr<Node> gradFn;      // the op that produced it (non-leaf)
    int outputIndex = 0;               // which output of gradFn it is (multi-output ops)
};

class Tensor {
public:
    Tensor() = default;
    explicit Tensor(std::shared_ptr<TensorImpl> impl) : m_impl(std::move(impl)) {}

    /// Uninitialised tensor from the current pool.
    static Tensor empty(const Shape& shape, DType dtype = DType::Float32);
    static Tensor zeros(const Shape& shape, DType dtype = DType::Float32);
    static Tensor full(const Shape& shape, float value);
    static Tensor fromVector(const Shape& shape, const std::vector<float>& values);
    static Tensor scalar(float v) { return full({}, v); }

    bool defined() const { return m_impl != nullptr; }
    const Shape& shape() const { return m_impl->shape; }
    int64_t dim(int i) const { return m_impl->shape[static_cast<size_t>(i)]; }
    int rank() const { return static_cast<int>(m_impl->shape.size()); }
    int64_t numel() const { return engine::numel(m_impl->shape); }
    DType dtype() const { return m_impl->dtype; }
    Device device() const { return m_impl->device; }
    size_t nbytes() const { return static_cast<size_t>(numel()) * dtypeSize(dtype()); }

    void* raw() const { return m_impl->storage ? m_impl->storage->data : nullptr; }
    float* f32() const { return static_cast<float*>(raw()); }
    int32_t* i32() const { return static_cast<int32_t*>(raw()); }
    template <class T>
    T* data() const {
        return static_cast<T*>(raw());
    }
    /// Value i of a float32 tensor (read back from the device for a device tensor).
    float item(int64_t i = 0) const {
        return device() == Device::CPU ? f32()[i] : deviceItem(*this, i);
    }

    Tensor clone() const;
    /// Same data, new shape (numel must agree); shares storage, no autograd link.
    Tensor view(const Shape& shape) const;
    /// Element-wise conversion (float32 <-> float16, ints -> float32, float32 -> int32).
    Tensor to(DType dtype) const;

    bool requiresGrad() const { return m_impl->requiresGrad; }
    Tensor& setRequiresGrad(bool on) {
        m_impl->requiresGrad = on;
        return *this;
    }
    /// Accumulated gradient (undefined until a backward pass reached it).
    Tensor grad() const { return Tensor(m_impl->grad); }
    void setGrad(const Tensor& g) { m_impl->grad = g.m_impl; }
    void zeroGrad() { m_impl->grad.reset(); }
    const std::shared_ptr<Node>& gradFn() const { return m_impl->gradFn; }
    void setGradFn(std::shared_ptr<Node> n, int outputIndex = 0) {
        m_impl->gradFn = std::move(n);
        m_impl->outputIndex = outputIndex;
    }
    int outputIndex() const { return m_impl->outputIndex; }

    /// Runs reverse-mode autodiff from this scalar (gradient seed = `seed`, default 1).
    void backward(float seed = 1.0f) const;

    TensorImpl* impl() const { return m_impl.get(); }
    const std::shared_ptr<TensorImpl>& shared() const { return m_impl; }

private:
    std::shared_ptr<TensorImpl> m_impl;
};

/// IEEE half <-> float conversions (round to nearest even).
uint16_t floatToHalf(float f);
float halfToFloat(uint16_t h);

}  // namespace ts::engine
