#pragma once
// Engine tensors on an accelerator (Device::CUDA, docs/GPU.md): the backend that serves them,
// the device memory pool they come from, and the copies between host and device.
//
// The backend is found on first use: libtrainscope_cuda.so (core/engine/cuda, built with the
// CUDA toolkit) loaded with dlopen, so nothing else links the CUDA runtime and a machine
// without a GPU or driver gets "no CUDA device: <why>" instead of a crash. With
// TRAINSCOPE_DEVICE_EMULATION=1 a CPU emulation of the backend serves Device::CUDA instead
// (device_emulation.cpp: the same element math as the CUDA kernels, on host memory) — how
// the device path of every op, the trainer and the observers is tested without a GPU.
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/common/result.h"
#include "core/engine/device/device_backend.h"
#include "core/engine/tensor/memory_pool.h"
#include "core/engine/tensor/tensor.h"

namespace ts::engine {

/// "cpu" | "cuda".
const char* deviceName(Device d);
std::optional<Device> parseDevice(std::string_view name);

/// The backend of Device::CUDA, loaded on first call (later calls return the same answer).
/// Error: "no CUDA device: <reason>" (not built, library missing, no driver, no device).
Result<DeviceBackend*> cudaBackend();
/// The backend a device tensor's op uses; throws std::runtime_error (the error above) when
/// there is none, which an op running on a device tensor cannot meet in practice.
DeviceBackend& backendOf(Device d);
/// Tests: serve Device::CUDA with `b` (nullptr: back to loading the real backend). Not
/// thread-safe; call before any device tensor exists.
void setCudaBackendForTesting(DeviceBackend* b);
/// The CPU emulation of a device backend (also what TRAINSCOPE_DEVICE_EMULATION=1 loads).
std::unique_ptr<DeviceBackend> makeEmulatedBackend();

/// A pool of `d`'s memory (the MemoryPool class: same reuse, limit and figures as the host's).
std::unique_ptr<MemoryPool> makeDevicePool(Device d, bool reuse = true);
/// The calling thread's pool for `d` (installDevicePool()ed, else a per-thread default).
MemoryPool& devicePool(Device d);
/// Makes `pool` the calling thread's pool for device tensors (nullptr: the default); returns
/// the one installed before.
MemoryPool* installDevicePool(MemoryPool* pool);

inline bool onDevice(const Tensor& t) {
    return t.defined() && t.device() != Device::CPU;
}

/// An uninitialised / zeroed tensor on `d` (the host pool for Device::CPU).
Tensor emptyOn(Device d, const Shape& shape, DType dtype = DType::Float32);
Tensor zerosOn(Device d, const Shape& shape, DType dtype = DType::Float32);
/// A float32 tensor of `value` on `d` (filled by a kernel on a device: no copy, no wait).
Tensor fullOn(Device d, const Shape& shape, float value);
/// A copy of `t` on `d`; `t` itself when it is there already.
Tensor toDevice(const Tensor& t, Device d);
/// A host copy of a device tensor; `t` itself for a host tensor (observers that read data).
Tensor toHost(const Tensor& t);
/// A copy on the same device (Tensor::clone() of a device tensor).
Tensor deviceClone(const Tensor& t);
/// Moves `t`'s bytes to `d` in place: every handle of the tensor (a parameter in its cell,
/// the optimizer's list) sees the device copy. Gradients are dropped.
void moveTo(Tensor& t, Device d);

/// x *= s over a float32 tensor on any device.
void scaleInPlace(const Tensor& t, float s);
/// Sum of squares and NaN/Inf count of a float32 tensor on any device.
double sumOfSquares(const Tensor& t);
int64_t nonFiniteCount(const Tensor& t);

/// Throws std::invalid_argument naming `op` when the defined tensors are not all on one
/// device; returns that device.
Device commonDevice(std::string_view op, std::initializer_list<const Tensor*> tensors);

}  // namespace ts::engine
