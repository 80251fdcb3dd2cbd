#pragma once
// Internal to the trainer's .cpp files: installs a trainer's memory pool, dispatcher and AMP
// level on the calling thread for a scope; the training loop's clock.
#include <chrono>

#include "core/engine/device/device.h"
#include "core/engine/model/layers.h"
#include "core/engine/tensor/dispatcher.h"
#include "core/engine/tensor/memory_pool.h"

namespace ts::engine::detail {

/// Seconds on the steady clock.
inline double nowS() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

/// Installs the trainer's pool, dispatcher and AMP level on this thread for a scope and puts
/// back what was there before (scopes nest: run() -> prepare() / evaluate()).
class ThreadContext {
public:
    /// `devicePool`: the pool of device tensors (nullptr on the CPU).
    ThreadContext(MemoryPool& pool, Dispatcher& d, AmpLevel amp, MemoryPool* devicePool = nullptr)
        : m_amp(ampLevel()),
          m_pool(MemoryPool::install(&pool)),
          m_d(Dispatcher::install(&d)),
          m_devicePool(installDevicePool(devicePool)) {
        setAmpLevel(amp);
    }
    ~ThreadContext() {
        setAmpLevel(m_amp);
        installDevicePool(m_devicePool);
        Dispatcher::install(m_d);
        MemoryPool::install(m_pool);
    }
    ThreadContext(const ThreadContext&) = delete;
    ThreadContext& operator=(const ThreadContext&) = delete;

private:
    AmpLevel m_amp;
    MemoryPool* m_pool;
    Dispatcher* m_d;
    MemoryPool* m_devicePool;
};

}  // namespace ts::engine::detail
