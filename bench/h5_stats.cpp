// HDF5 statistics throughput: one streaming pass (min/max/mean/std/NaN/Inf/zeros) over a
// cached, uncompressed float32 dataset, compared with h5py + numpy on the same file
// (bench/peer_h5_stats.py) in the same run.
// Usage: h5_stats [MB=1024] [dir=/tmp]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/debug/dataset_stats.h"
#include "core/debug/dump_writer.h"
#include "core/hdf5/h5_read.h"

namespace {

double seconds(std::chrono::steady_clock::time_point a) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count();
}

bool writeFile(const std::string& path, uint64_t n) {
    ts::h5::silenceHdf5Errors();
    ts::h5::H5Id f(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
    if (!f.valid()) return false;
    const uint64_t cols = 1024, rows = n / cols;
    hsize_t dims[2] = {rows, cols};
    ts::h5::H5Id space(H5Screate_simple(2, dims, nullptr));
    ts::h5::H5Id d(H5Dcreate2(f.get(), "x", H5T_IEEE_F32LE, space.get(), H5P_DEFAULT, H5P_DEFAULT,
                              H5P_DEFAULT));
    std::vector<float> buf(cols * 1024);
    uint32_t s = 12345;
    for (uint64_t r = 0; r < rows; r += 1024) {
        const uint64_t nr = std::min<uint64_t>(1024, rows - r);
        for (auto& v : buf) {
            s = s * 1664525u + 1013904223u;
            v = static_cast<float>(s >> 8) / 16777216.0f * 2.0f - 1.0f;
        }
        hsize_t start[2] = {r, 0}, count[2] = {nr, cols};
        H5Sselect_hyperslab(space.get(), H5S_SELECT_SET, start, nullptr, count, nullptr);
        hsize_t mn = nr * cols;
        ts::h5::H5Id ms(H5Screate_simple(1, &mn, nullptr));
        if (H5Dwrite(d.get(), H5T_NATIVE_FLOAT, ms.get(), space.get(), H5P_DEFAULT, buf.data()) < 0)
            return false;
    }
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    const uint64_t mb = argc > 1 ? std::strtoull(argv[1], nullptr, 10) : 1024;
    const std::string dir = argc > 2 ? argv[2] : "/tmp";
    const std::string path = dir + "/ts_h5_stats_bench.h5";
    const uint64_t n = mb * 1024 * 1024 / 4;
    if (!writeFile(path, n)) {
        std::fprintf(stderr, "cannot write %s\n", path.c_str());
        return 1;
    }
    auto file = ts::h5::File::open(path);
    if (!file) {
        std::fprintf(stderr, "%s\n", file.error().c_str());
        return 1;
    }
    (void)ts::debug::datasetStats(file.value(), "x");  // warm the page cache
    double best = 1e30;
    ts::debug::TensorStats st;
    for (int i = 0; i < 3; ++i) {
        auto t0 = std::chrono::steady_clock::now();
        auto s = ts::debug::datasetStats(file.value(), "x");
        const double t = seconds(t0);
        if (!s) {
            std::fprintf(stderr, "%s\n", s.error().c_str());
            return 1;
        }
        st = s.value();
        best = std::min(best, t);
    }
    const double bytes = static_cast<double>(n) * 4;
    std::printf("trainscope h5 stats: %.0f MB float32 in %.3f s = %.2f GB/s (mean=%.6f std=%.6f)\n",
                bytes / 1e6, best, bytes / best / 1e9, st.mean, st.std);
    std::fflush(stdout);
    // Peer: h5py + numpy on the same file, in this run.
    const char* src = std::getenv("TS_BENCH_PEER");
    std::string peer = src ? src : std::string(TRAINSCOPE_SOURCE_DIR) + "/bench/peer_h5_stats.py";
    std::string py = "python3";
    if (std::system("python3 -c 'import h5py' >/dev/null 2>&1") != 0) py = "/usr/bin/python3";
    const std::string cmd = py + " " + peer + " " + path;
    std::FILE* p = popen(cmd.c_str(), "r");
    double peerSec = 0;
    char line[512];
    while (p && std::fgets(line, sizeof line, p)) {
        std::fputs(line, stdout);
        std::sscanf(line, "h5py+numpy seconds: %lf", &peerSec);
    }
    if (p) pclose(p);
    if (peerSec > 0)
        std::printf("speedup vs h5py+numpy: %.2fx\n", peerSec / best);
    else
        std::printf("peer did not run (needs python3 with h5py and numpy)\n");
    std::remove(path.c_str());
    return 0;
}
