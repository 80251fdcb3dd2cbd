#include "core/run/open_writers.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string_view>

namespace ts::run {
namespace {

bool allDigits(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s)
        if (c < '0' || c > '9') return false;
    return true;
}

/// The open flags of descriptor `fd` of `pid` (fdinfo's "flags:" line, octal), or -1.
long fdFlags(const std::string& pid, const std::string& fd) {
    std::ifstream in("/proc/" + pid + "/fdinfo/" + fd);
    std::string line;
    while (std::getline(in, line))
        if (line.rfind("flags:", 0) == 0) return std::strtol(line.c_str() + 6, nullptr, 8);
    return -1;
}

}  // namespace

bool heldOpenForWriting(const std::string& path) {
    struct stat target {};
    if (::stat(path.c_str(), &target) != 0) return false;
    DIR* proc = ::opendir("/proc");
    if (!proc) return false;
    bool held = false;
    while (!held) {
        const dirent* p = ::readdir(proc);
        if (!p) break;
        if (!allDigits(p->d_name)) continue;
        const std::string pid = p->d_name;
        const std::string fdDir = "/proc/" + pid + "/fd";
        DIR* fds = ::opendir(fdDir.c_str());
        if (!fds) continue;  // gone, or another user's
        while (const dirent* f = ::readdir(fds)) {
            if (!allDigits(f->d_name)) continue;
            // stat follows the magic link to the open file itself: same device and inode is
            // the same file whatever name it was opened by (a link, a relative path).
            struct stat st {};
            if (::stat((fdDir + "/" + f->d_name).c_str(), &st) != 0) continue;
            if (st.st_dev != target.st_dev || st.st_ino != target.st_ino) continue;
            const long flags = fdFlags(pid, f->d_name);
            if (flags >= 0 && (flags & O_ACCMODE) != O_RDONLY) {
                held = true;
                break;
            }
        }
        ::closedir(fds);
    }
    ::closedir(proc);
    return held;
}

}  // namespace ts::run
