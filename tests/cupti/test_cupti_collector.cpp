// libtrainscope_cupti.so on a machine without a GPU: it loads (it links libcupti, which
// needs no driver to load), exports only its C interface and the injection entry point,
// finds CUPTI's NVTX entry through its dependencies (NVTX_INJECTION64_PATH may name it), and
// starting it without a driver fails with a message instead of crashing.
#include <dlfcn.h>
#include <gtest/gtest.h>

#include "core/common/cuda_paths.h"
#include "tests/common/test_support.h"

namespace ts::test {
namespace {

struct Library {
    void* handle = nullptr;
    std::string error;
    explicit Library(const std::string& path) {
        handle = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
        if (!handle) error = dlerror();
    }
    ~Library() {
        if (handle) dlclose(handle);
    }
};

TEST(CuptiCollector, LoadsAndExportsItsEntryPoints) {
    auto path = cuptiCollectorPath();
    ASSERT_TRUE(path.ok()) << path.error();
    Library lib(path.value());
    ASSERT_NE(lib.handle, nullptr) << lib.error;
    EXPECT_NE(dlsym(lib.handle, "InitializeInjection"), nullptr);
    EXPECT_NE(dlsym(lib.handle, "trainscope_cupti_start"), nullptr);
    EXPECT_NE(dlsym(lib.handle, "trainscope_cupti_stop"), nullptr);
    // NVTX looks InitializeInjectionNvtx2 up in the library NVTX_INJECTION64_PATH names:
    // libcupti's, reached through this library's dependencies.
    EXPECT_NE(dlsym(lib.handle, "InitializeInjectionNvtx2"), nullptr);
    // Nothing of TrainScope's C++ leaks out (hidden visibility).
    EXPECT_EQ(dlsym(lib.handle, "_ZN2ts8profiler3gpu14ActivityWriter5closeEv"), nullptr);
}

TEST(CuptiCollector, StartingWithoutADriverSaysWhy) {
    if (cudaDriverAvailable())
        GTEST_SKIP() << "a CUDA driver is present: the no-driver path cannot be checked here";
    auto path = cuptiCollectorPath();
    ASSERT_TRUE(path.ok()) << path.error();
    Library lib(path.value());
    ASSERT_NE(lib.handle, nullptr) << lib.error;
    using Start = int (*)(const char*, char*, size_t);
    using Stop = int (*)(char*, size_t);
    auto start = reinterpret_cast<Start>(dlsym(lib.handle, "trainscope_cupti_start"));
    auto stop = reinterpret_cast<Stop>(dlsym(lib.handle, "trainscope_cupti_stop"));
    ASSERT_NE(start, nullptr);
    char error[512] = {};
    const std::string out = (tempDir("cupti_nodriver") / "cuda.tscupti").string();
    EXPECT_NE(start(out.c_str(), error, sizeof error), 0);
    EXPECT_GT(std::string(error).size(), 10u) << error;
    std::cerr << "trainscope_cupti_start without a driver: " << error << "\n";
    EXPECT_NE(stop(error, sizeof error), 0);  // nothing to stop
    EXPECT_NE(start(nullptr, error, sizeof error), 0);
}

}  // namespace
}  // namespace ts::test
