#include "core/common/data_paths.h"

#include <cstdlib>
#include <filesystem>
#include <system_error>
#include <vector>

namespace ts {
namespace fs = std::filesystem;

std::string executableDir() {
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return {};
    return exe.parent_path().string();
}

std::string findDataPath(const std::string& relative, const char* envVar) {
    if (envVar && *envVar) {
        if (const char* v = std::getenv(envVar); v && *v) {
            std::error_code ec;
            return fs::exists(v, ec) ? std::string(v) : std::string();
        }
    }
    std::vector<fs::path> candidates;
    if (const std::string dir = executableDir(); !dir.empty())
        candidates.push_back(fs::path(dir) / ".." / "share" / "trainscope" / relative);
#ifdef TRAINSCOPE_BINARY_DIR
    candidates.push_back(fs::path(TRAINSCOPE_BINARY_DIR) / "resources" / relative);
#endif
#ifdef TRAINSCOPE_SOURCE_DIR
    candidates.push_back(fs::path(TRAINSCOPE_SOURCE_DIR) / "resources" / relative);
#endif
    for (const fs::path& p : candidates) {
        std::error_code ec;
        if (fs::exists(p, ec)) return fs::weakly_canonical(p, ec).string();
    }
    return {};
}

std::string siblingProgram(const std::string& name) {
    std::error_code ec;
    if (const std::string dir = executableDir(); !dir.empty())
        if (fs::path p = fs::path(dir) / name; fs::exists(p, ec)) return p.string();
#ifdef TRAINSCOPE_BINARY_DIR
    if (fs::path p = fs::path(TRAINSCOPE_BINARY_DIR) / "app" / name; fs::exists(p, ec))
        return p.string();
#endif
    return name;
}

std::string pythonHooksDir() {
    return findDataPath("python", "TRAINSCOPE_PYTHON_DIR");
}

}  // namespace ts
