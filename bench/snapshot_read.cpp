// Reading a big PyTorch CUDA memory snapshot: time and peak memory (RSS) of TrainScope's
// streaming reader (core/memory: read + timeline + answers, what `trainscope-cli memory`
// does) against Python's pickle.load of the same file (the object tree memory_viz and any
// script start from), each in a child process of its own so each peak RSS is its own.
// The file: tests/memory/make_snapshot.py --stream (the layout PyTorch 2.11 writes: every
// allocation its own list of shared frame dicts, ~40 frames deep), written once and kept.
// Usage: snapshot_read [MB=1024] [dir=/tmp]
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "core/memory/snapshot_reader.h"
#include "core/memory/snapshot_report.h"

namespace fs = std::filesystem;

namespace {

constexpr const char* kPython = "/usr/bin/python3";

struct Measure {
    double seconds = 0;
    double peakMb = 0;
    int status = -1;
};

/// Runs `child` in a forked process; its wall time and peak RSS.
template <class F>
Measure inChild(F child) {
    const auto t0 = std::chrono::steady_clock::now();
    const pid_t pid = ::fork();
    if (pid == 0) _exit(child());
    int status = 0;
    rusage ru{};
    ::wait4(pid, &status, 0, &ru);
    Measure m;
    m.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    m.peakMb = static_cast<double>(ru.ru_maxrss) / 1024.0;
    m.status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return m;
}

}  // namespace

int main(int argc, char** argv) {
    const long mb = argc > 1 ? std::atol(argv[1]) : 1024;
    const std::string dir = argc > 2 ? argv[2] : "/tmp";
    const std::string path = dir + "/ts_snapshot_bench_" + std::to_string(mb) + "MB.pickle";
    const std::string gen =
        (fs::path(TRAINSCOPE_SOURCE_DIR) / "tests" / "memory" / "make_snapshot.py").string();
    if (!fs::exists(path)) {
        std::printf("writing %s (%ld MB) with %s ...\n", path.c_str(), mb, gen.c_str());
        std::fflush(stdout);
        const std::string cmd = std::string(kPython) + " '" + gen + "' '" + path +
                                "' --stream --target-bytes " + std::to_string(mb) + "e6";
        if (std::system(cmd.c_str()) != 0) {
            std::fprintf(stderr, "cannot write the snapshot\n");
            return 1;
        }
    }
    const double fileMb = static_cast<double>(fs::file_size(path)) / 1e6;
    // Warm the page cache so both readers start from the same place.
    (void)inChild([&] { return std::system(("cat '" + path + "' > /dev/null").c_str()); });

    size_t events = 0;
    const Measure ours = inChild([&] {
        auto s = ts::memory::readSnapshot(path);
        if (!s) {
            std::fprintf(stderr, "%s\n", s.error().c_str());
            return 1;
        }
        const auto r = ts::memory::analyzeSnapshot(s.value());
        std::printf(
            "trainscope: %zu events, %zu segments, peak %s, %zu leak(s); memo %zu entries\n",
            s->eventCount(), s->segments.size(),
            ts::memory::sizeText(r.devices.empty() ? 0 : r.devices[0].timeline.peakBytes).c_str(),
            r.devices.empty() ? size_t{0} : r.devices[0].leaks.size(), s->memoEntries);
        std::fflush(stdout);
        return 0;
    });
    (void)events;
    const Measure python = inChild([&] {
        execl(kPython, kPython, "-c",
              "import pickle,sys; d=pickle.load(open(sys.argv[1],'rb')); "
              "print('python: %d events' % sum(len(t) for t in d['device_traces']))",
              path.c_str(), static_cast<char*>(nullptr));
        return 127;
    });
    std::printf("snapshot %.0f MB: trainscope read + analysis %.2f s, peak RSS %.0f MB (exit %d)\n",
                fileMb, ours.seconds, ours.peakMb, ours.status);
    std::printf("snapshot %.0f MB: python pickle.load     %.2f s, peak RSS %.0f MB (exit %d)\n",
                fileMb, python.seconds, python.peakMb, python.status);
    return ours.status == 0 ? 0 : 1;
}
