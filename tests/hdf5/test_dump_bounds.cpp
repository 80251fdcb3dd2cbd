// `dump stats|overflow|compare` are bounded by what a file stores and stop on Ctrl-C (issue
// 25, case 6: a 4.7 KB file declaring ~1e16 elements of a chunked dataset with no storage
// ran past 120 s). The files are made with HDF5's C API: one whose chunks were never
// written, and one of 8 GiB of compressed zeros (a real, long read) for the interrupt.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <hdf5.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>
#include <zlib.h>

#include <chrono>
#include <filesystem>
#include <thread>
#include <vector>

#include "tests/common/test_support.h"

namespace fs = std::filesystem;

namespace {

// A float dataset of `elements` in chunks of `chunk` elements, deflate-compressed; when
// `fillZeros`, every chunk is written (raw, one compressed chunk of zeros copied), else none.
void makeFile(const fs::path& path, hsize_t elements, hsize_t chunk, bool fillZeros) {
    const hid_t f = H5Fcreate(path.c_str(), H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    ASSERT_GE(f, 0);
    const hsize_t unlimited = H5S_UNLIMITED;
    const hid_t space = H5Screate_simple(1, &elements, &unlimited);
    const hid_t dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_chunk(dcpl, 1, &chunk);
    H5Pset_deflate(dcpl, 1);
    const hid_t d = H5Dcreate2(f, "big", H5T_NATIVE_FLOAT, space, H5P_DEFAULT, dcpl, H5P_DEFAULT);
    ASSERT_GE(d, 0);
    if (fillZeros) {
        const std::vector<float> zeros(chunk, 0.f);
        uLongf size = compressBound(chunk * sizeof(float));
        std::vector<Bytef> packed(size);
        ASSERT_EQ(compress2(packed.data(), &size, reinterpret_cast<const Bytef*>(zeros.data()),
                            chunk * sizeof(float), 1),
                  Z_OK);
        for (hsize_t at = 0; at < elements; at += chunk)
            ASSERT_GE(H5Dwrite_chunk(d, H5P_DEFAULT, 0, &at, size, packed.data()), 0);
    }
    H5Dclose(d);
    H5Pclose(dcpl);
    H5Sclose(space);
    H5Fclose(f);
}

// The CLI under a 60 s watchdog (timeout(1) exits 124 when it fires).
ts::test::CommandResult dump(const std::vector<std::string>& args) {
    std::vector<std::string> all = {"60", ts::test::cliPath(), "dump"};
    all.insert(all.end(), args.begin(), args.end());
    return ts::test::runProgram("/usr/bin/timeout", all);
}

}  // namespace

TEST(DumpBounds, ADatasetDeclaringFarMoreThanItStoresIsRefusedWithItsSize) {
    const fs::path dir = ts::test::tempDir("dump_bounds");
    const fs::path file = dir / "declares.h5";
    makeFile(file, hsize_t{10'000'000'000'000'000}, 1 << 16, false);
    ASSERT_LT(fs::file_size(file), 64u * 1024);
    for (const auto& args : {std::vector<std::string>{"stats", file.string(), "--json"},
                             {"overflow", file.string(), "--json"},
                             {"compare", file.string(), file.string(), "--json"}}) {
        auto r = dump(args);
        EXPECT_NE(r.exitCode, 124) << args[0] << " ran until the watchdog";
        EXPECT_NE(r.out.find("declares 10000000000000000 elements"), std::string::npos)
            << args[0] << ": " << r.out << r.err;
    }
}

TEST(DumpBounds, CtrlCStopsALongScanWithExit130) {
    const fs::path dir = ts::test::tempDir("dump_interrupt");
    const fs::path file = dir / "zeros.h5";
    makeFile(file, hsize_t{1} << 31, hsize_t{1} << 20, true);  // 8 GiB of float zeros
    int out[2];
    ASSERT_EQ(::pipe(out), 0);
    const std::string cli = ts::test::cliPath();
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
        ::dup2(out[1], 1);
        ::execl(cli.c_str(), cli.c_str(), "dump", "stats", file.c_str(), "--json",
                static_cast<char*>(nullptr));
        ::_exit(127);
    }
    ::close(out[1]);
    std::this_thread::sleep_for(std::chrono::milliseconds(500));
    ASSERT_EQ(::kill(pid, SIGINT), 0);
    int status = 0;
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (::waitpid(pid, &status, WNOHANG) == 0) {
        if (std::chrono::steady_clock::now() > deadline) {
            ::kill(pid, SIGKILL);
            ::waitpid(pid, &status, 0);
            FAIL() << "dump stats did not stop on SIGINT";
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    std::string text;
    char buf[4096];
    for (ssize_t n; (n = ::read(out[0], buf, sizeof buf)) > 0;) text.append(buf, n);
    ::close(out[0]);
    ASSERT_TRUE(WIFEXITED(status)) << "killed by signal " << WTERMSIG(status);
    EXPECT_EQ(WEXITSTATUS(status), 130) << text;
    EXPECT_NE(text.find("interrupted"), std::string::npos) << text;
}
