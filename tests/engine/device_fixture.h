#pragma once
// Device tests run twice: on the CPU emulation of the device backend (always: the device
// path of the engine on this machine) and on the real CUDA backend, which skips, saying why,
// where there is no GPU (GTEST_SKIP "no CUDA device: ..."). Each test gets its own device
// pool, so tensors of one backend never reach the other.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "core/engine/device/device.h"

namespace ts::test {

inline engine::DeviceBackend* emulatedDevice() {
    static std::unique_ptr<engine::DeviceBackend> b = engine::makeEmulatedBackend();
    return b.get();
}

class DeviceTest : public ::testing::TestWithParam<std::string> {
protected:
    void SetUp() override {
        if (GetParam() == "emulated") {
            engine::setCudaBackendForTesting(emulatedDevice());
        } else {
            engine::setCudaBackendForTesting(nullptr);
            if (auto b = engine::cudaBackend(); !b) GTEST_SKIP() << b.error();
        }
        m_pool = engine::makeDevicePool(engine::Device::CUDA);
        m_prev = engine::installDevicePool(m_pool.get());
    }
    void TearDown() override {
        engine::installDevicePool(m_prev);
        m_pool.reset();
        engine::setCudaBackendForTesting(nullptr);
    }
    engine::MemoryPool& pool() { return *m_pool; }

private:
    std::unique_ptr<engine::MemoryPool> m_pool;
    engine::MemoryPool* m_prev = nullptr;
};

inline std::string deviceParamName(const ::testing::TestParamInfo<std::string>& p) {
    return p.param;
}

}  // namespace ts::test

#define TS_DEVICE_TESTS(Suite)                                                       \
    INSTANTIATE_TEST_SUITE_P(Backends, Suite, ::testing::Values("emulated", "cuda"), \
                             ::ts::test::deviceParamName)
