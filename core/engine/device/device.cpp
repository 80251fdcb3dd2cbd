#include "core/engine/device/device.h"

#include <dlfcn.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <stdexcept>

#include "core/common/cuda_paths.h"

namespace ts::engine {

const char* deviceName(Device d) {
    return d == Device::CUDA ? "cuda" : "cpu";
}

std::optional<Device> parseDevice(std::string_view name) {
    if (name == "cpu") return Device::CPU;
    if (name == "cuda" || name == "gpu") return Device::CUDA;
    return std::nullopt;
}

namespace {

/// The answer of the first cudaBackend() call, kept for the process (the library is never
/// unloaded: device memory may be freed until exit).
struct Loaded {
    std::unique_ptr<DeviceBackend> owned;
    std::string error;
};

Loaded loadCudaBackend() {
    Loaded l;
    if (const char* e = std::getenv("TRAINSCOPE_DEVICE_EMULATION"); e && std::string(e) == "1") {
        l.owned = makeEmulatedBackend();
        return l;
    }
    auto path = cudaBackendPath();
    if (!path) {
        l.error = "no CUDA device: " + path.error();
        return l;
    }
    // Without the driver the runtime would only say "driver version is insufficient".
    if (auto d = cudaDriverAvailable(); !d) {
        l.error = "no CUDA device: " + d.error();
        return l;
    }
    void* h = dlopen(path->c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char* why = dlerror();
        l.error = std::string("no CUDA device: ") + path.value() + " cannot be loaded (" +
                  (why ? why : "unknown reason") + ")";
        return l;
    }
    using Create = DeviceBackend* (*)(char* error, size_t size);
    auto create = reinterpret_cast<Create>(dlsym(h, "trainscope_cuda_backend_create"));
    if (!create) {
        l.error = "no CUDA device: " + path.value() + " is not TrainScope's CUDA backend";
        return l;
    }
    char error[512] = {};
    DeviceBackend* b = create(error, sizeof error);
    if (!b) {
        l.error = std::string("no CUDA device: ") + error;
        return l;
    }
    l.owned.reset(b);
    return l;
}

DeviceBackend* g_testBackend = nullptr;
thread_local MemoryPool* t_devicePool = nullptr;

void* deviceAllocate(size_t bytes, void* backend) {
    return static_cast<DeviceBackend*>(backend)->allocate(bytes);
}
void deviceRelease(void* p, void* backend) {
    static_cast<DeviceBackend*>(backend)->release(p);
}

void copyBytes(void* dst, Device to, const void* src, Device from, size_t bytes) {
    if (bytes == 0) return;
    if (to == Device::CPU && from == Device::CPU) {
        std::memcpy(dst, src, bytes);
        return;
    }
    const DeviceBackend::Copy kind = from == Device::CPU ? DeviceBackend::Copy::HostToDevice
                                     : to == Device::CPU ? DeviceBackend::Copy::DeviceToHost
                                                         : DeviceBackend::Copy::DeviceToDevice;
    backendOf(to == Device::CPU ? from : to).copy(dst, src, bytes, kind);
}

}  // namespace

Result<DeviceBackend*> cudaBackend() {
    if (g_testBackend) return g_testBackend;
    static Loaded loaded = loadCudaBackend();
    if (!loaded.owned) return Error{loaded.error};
    return loaded.owned.get();
}

DeviceBackend& backendOf(Device d) {
    if (d != Device::CUDA) throw std::logic_error("backendOf: the CPU has no device backend");
    auto b = cudaBackend();
    if (!b) throw std::runtime_error(b.error());
    return *b.value();
}

void setCudaBackendForTesting(DeviceBackend* b) {
    g_testBackend = b;
}

std::unique_ptr<MemoryPool> makeDevicePool(Device d, bool reuse) {
    if (d == Device::CPU) return std::make_unique<MemoryPool>(reuse);
    BlockSource src;
    src.allocate = &deviceAllocate;
    src.release = &deviceRelease;
    src.context = &backendOf(d);
    return std::make_unique<MemoryPool>(reuse, src);
}

MemoryPool& devicePool(Device d) {
    if (d == Device::CPU) return MemoryPool::current();
    if (t_devicePool) return *t_devicePool;
    // Leaked on purpose, as MemoryPool::current()'s: tensors may outlive the thread's exit.
    thread_local MemoryPool* fallback = makeDevicePool(d).release();
    return *fallback;
}

MemoryPool* installDevicePool(MemoryPool* pool) {
    MemoryPool* prev = t_devicePool;
    t_devicePool = pool;
    return prev;
}

Tensor emptyOn(Device d, const Shape& shape, DType dtype) {
    if (d == Device::CPU) return Tensor::empty(shape, dtype);
    auto impl = std::make_shared<TensorImpl>();
    impl->shape = shape;
    impl->dtype = dtype;
    impl->device = d;
    impl->storage = std::make_shared<Storage>(devicePool(d),
                                              static_cast<size_t>(numel(shape)) * dtypeSize(dtype));
    return Tensor(std::move(impl));
}

Tensor zerosOn(Device d, const Shape& shape, DType dtype) {
    if (d == Device::CPU) return Tensor::zeros(shape, dtype);
    Tensor t = emptyOn(d, shape, dtype);
    backendOf(d).zero(t.raw(), t.nbytes());
    return t;
}

Tensor fullOn(Device d, const Shape& shape, float value) {
    if (d == Device::CPU) return Tensor::full(shape, value);
    Tensor t = emptyOn(d, shape);
    backendOf(d).fill(t.f32(), value, t.numel());
    return t;
}

Tensor toDevice(const Tensor& t, Device d) {
    if (!t.defined() || t.device() == d) return t;
    Tensor out = emptyOn(d, t.shape(), t.dtype());
    copyBytes(out.raw(), d, t.raw(), t.device(), t.nbytes());
    return out;
}

Tensor toHost(const Tensor& t) {
    return toDevice(t, Device::CPU);
}

Tensor deviceClone(const Tensor& t) {
    Tensor out = emptyOn(t.device(), t.shape(), t.dtype());
    copyBytes(out.raw(), t.device(), t.raw(), t.device(), t.nbytes());
    return out;
}

void moveTo(Tensor& t, Device d) {
    if (!t.defined() || t.device() == d) return;
    Tensor moved = toDevice(t, d);
    t.impl()->storage = moved.impl()->storage;
    t.impl()->device = d;
    t.impl()->grad.reset();
}

float deviceItem(const Tensor& t, int64_t i) {
    float v = 0;
    copyBytes(&v, Device::CPU, static_cast<const float*>(t.raw()) + i, t.device(), sizeof v);
    return v;
}

void scaleInPlace(const Tensor& t, float s) {
    if (onDevice(t)) {
        backendOf(t.device()).unary(kernels::Unary::Scale, t.f32(), t.f32(), t.numel(), s);
        return;
    }
    float* p = t.f32();
    for (int64_t i = 0, n = t.numel(); i < n; ++i) p[i] *= s;
}

double sumOfSquares(const Tensor& t) {
    if (onDevice(t)) return backendOf(t.device()).sumSquares(t.f32(), t.numel());
    double sq = 0;
    const float* p = t.f32();
    for (int64_t i = 0, n = t.numel(); i < n; ++i) sq += static_cast<double>(p[i]) * p[i];
    return sq;
}

int64_t nonFiniteCount(const Tensor& t) {
    if (onDevice(t) && t.dtype() == DType::Float32)
        return backendOf(t.device()).countNonFinite(t.f32(), t.numel());
    Tensor h = toHost(t);
    if (h.dtype() != DType::Float32) h = h.to(DType::Float32);
    int64_t bad = 0;
    const float* p = h.f32();
    for (int64_t i = 0, n = h.numel(); i < n; ++i) bad += std::isfinite(p[i]) ? 0 : 1;
    return bad;
}

Device commonDevice(std::string_view op, std::initializer_list<const Tensor*> tensors) {
    std::optional<Device> d;
    for (const Tensor* t : tensors) {
        if (!t || !t->defined()) continue;
        if (!d) d = t->device();
        if (*d != t->device())
            throw std::invalid_argument(std::string(op) + ": tensors on " + deviceName(*d) +
                                        " and " + deviceName(t->device()) +
                                        " (move them to one device first)");
    }
    return d.value_or(Device::CPU);
}

}  // namespace ts::engine
