#include "core/common/cuda_paths.h"

#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <vector>

#include "core/common/data_paths.h"

namespace ts {
namespace fs = std::filesystem;

bool cuptiCollectorBuilt() {
#ifdef TRAINSCOPE_HAVE_CUDA
    return true;
#else
    return false;
#endif
}

bool cudaBackendBuilt() {
#ifdef TRAINSCOPE_HAVE_CUDA_BACKEND
    return true;
#else
    return false;
#endif
}

std::string findGpuLibrary(const std::string& file) {
    std::vector<fs::path> candidates;
    if (const char* dir = std::getenv("TRAINSCOPE_GPU_LIB_DIR"); dir && *dir)
        candidates.push_back(fs::path(dir) / file);
    if (const std::string exe = executableDir(); !exe.empty()) {
        candidates.push_back(fs::path(exe) / ".." / "lib" / "trainscope" / file);
#ifdef TRAINSCOPE_INSTALL_LIBDIR
        candidates.push_back(fs::path(exe) / ".." / TRAINSCOPE_INSTALL_LIBDIR / "trainscope" /
                             file);
#endif
    }
#ifdef TRAINSCOPE_GPU_LIB_DIR
    candidates.push_back(fs::path(TRAINSCOPE_GPU_LIB_DIR) / file);
#endif
    for (const fs::path& p : candidates) {
        std::error_code ec;
        if (fs::is_regular_file(p, ec)) return fs::weakly_canonical(p, ec).string();
    }
    return {};
}

namespace {
Result<std::string> library(const std::string& file, bool built, const char* what) {
    if (!built)
        return Error{std::string(what) +
                     " was not built: this build found no CUDA 13 toolkit with CUPTI (see "
                     "docs/GPU.md)"};
    std::string path = findGpuLibrary(file);
    if (path.empty())
        return Error{std::string(what) + " (" + file +
                     ") was built but is not installed beside this program: install it with "
                     "`cmake --install build --component cuda`, or set TRAINSCOPE_GPU_LIB_DIR"};
    return path;
}
}  // namespace

Result<std::string> cuptiCollectorPath() {
    return library("libtrainscope_cupti.so", cuptiCollectorBuilt(), "the CUPTI collector");
}

Result<std::string> cudaBackendPath() {
    return library("libtrainscope_cuda.so", cudaBackendBuilt(), "the engine's CUDA backend");
}

Status cudaDriverAvailable() {
    void* h = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL);
    if (!h) {
        const char* why = dlerror();
        return Error{std::string("no CUDA driver: libcuda.so.1 cannot be loaded (") +
                     (why ? why : "unknown reason") +
                     "); this needs a machine with an NVIDIA GPU and its driver"};
    }
    dlclose(h);
    return {};
}

Result<std::string> cuptiForRecording() {
    auto lib = cuptiCollectorPath();
    if (!lib) return lib;
    if (auto d = cudaDriverAvailable(); !d) return Error{d.error()};
    return lib;
}

}  // namespace ts
