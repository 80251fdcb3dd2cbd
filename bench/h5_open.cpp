// Opening a large HDF5 file the way the inspector does: H5Fopen, the root's links, then one
// group's links with each dataset's type and shape — nothing else is read. The file holds
// `groups` x `per` small datasets (a dump of thousands of ops) and one big float32 dataset.
// Prints the time of each stage. Usage: h5_open [groups=100] [per=100] [big_MB=1024] [dir=/tmp]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "core/hdf5/h5_file.h"
#include "core/hdf5/h5_handle.h"

namespace {
double ms(std::chrono::steady_clock::time_point a) {
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - a).count();
}
}  // namespace

int main(int argc, char** argv) {
    const int groups = argc > 1 ? std::atoi(argv[1]) : 100;
    const int per = argc > 2 ? std::atoi(argv[2]) : 100;
    const uint64_t bigMb = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 1024;
    const std::string path = std::string(argc > 4 ? argv[4] : "/tmp") + "/ts_h5_open_bench.h5";
    ts::h5::silenceHdf5Errors();
    {
        using ts::h5::H5Id;
        H5Id f(H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT));
        if (!f.valid()) return 1;
        std::vector<float> small(256, 1.0f);
        hsize_t sd = small.size();
        H5Id ss(H5Screate_simple(1, &sd, nullptr));
        for (int g = 0; g < groups; ++g) {
            H5Id grp(H5Gcreate2(f.get(), ("op" + std::to_string(g)).c_str(), H5P_DEFAULT,
                                H5P_DEFAULT, H5P_DEFAULT));
            for (int d = 0; d < per; ++d) {
                H5Id ds(H5Dcreate2(grp.get(), std::to_string(d).c_str(), H5T_IEEE_F32LE, ss.get(),
                                   H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT));
                H5Dwrite(ds.get(), H5T_NATIVE_FLOAT, H5S_ALL, H5S_ALL, H5P_DEFAULT, small.data());
            }
        }
        const uint64_t cols = 1024, rows = bigMb * 1024 * 1024 / 4 / cols;
        hsize_t dims[2] = {rows, cols};
        H5Id bs(H5Screate_simple(2, dims, nullptr));
        H5Id big(H5Dcreate2(f.get(), "big", H5T_IEEE_F32LE, bs.get(), H5P_DEFAULT, H5P_DEFAULT,
                            H5P_DEFAULT));
        std::vector<float> block(cols * 1024, 0.5f);
        for (uint64_t r = 0; r < rows; r += 1024) {
            hsize_t start[2] = {r, 0}, count[2] = {std::min<uint64_t>(1024, rows - r), cols};
            H5Sselect_hyperslab(bs.get(), H5S_SELECT_SET, start, nullptr, count, nullptr);
            hsize_t n = count[0] * cols;
            H5Id ms_(H5Screate_simple(1, &n, nullptr));
            H5Dwrite(big.get(), H5T_NATIVE_FLOAT, ms_.get(), bs.get(), H5P_DEFAULT, block.data());
        }
    }
    auto t0 = std::chrono::steady_clock::now();
    auto f = ts::h5::File::open(path);
    const double open = ms(t0);
    if (!f) {
        std::fprintf(stderr, "%s\n", f.error().c_str());
        return 1;
    }
    t0 = std::chrono::steady_clock::now();
    auto root = f->children("");
    const double rootMs = ms(t0);
    t0 = std::chrono::steady_clock::now();
    auto kids = f->children("op0");
    const double listMs = ms(t0);
    size_t described = 0;
    for (const auto& k : kids.value())
        if (f->datasetInfo(k.path)) ++described;
    const double groupMs = ms(t0);
    t0 = std::chrono::steady_clock::now();
    auto info = f->datasetInfo("big");
    const double bigMs = ms(t0);
    std::printf("file: %d groups x %d datasets + one %llu MB float32 dataset\n", groups, per,
                static_cast<unsigned long long>(bigMb));
    std::printf(
        "open %.2f ms; root listing (%zu links) %.2f ms; one group: listed in %.2f ms, listed and "
        "its %zu datasets described (dtype, shape, layout) in %.2f ms; big dataset described in "
        "%.3f ms (%s)\n",
        open, root ? root->size() : 0, rootMs, listMs, described, groupMs, bigMs,
        info ? info->dtype.c_str() : "?");
    std::remove(path.c_str());
    return 0;
}
