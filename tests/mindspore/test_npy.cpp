// NumPy's .npy format: every dtype MindSpore's dumps write (float16/32/64, ints, bool, and
// bfloat16 as ml_dtypes saves it), C and Fortran order, versions 1.0 and 2.0; files written
// by numpy itself when Debian's python3-numpy is there; bad magic, bad headers, short data.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>

#include "core/debug/msdump/npy_file.h"
#include "tests/common/mindspore_dump_fixtures.h"
#include "tests/common/test_support.h"

using namespace ts;
namespace npy = ts::debug::npy;

TEST(Npy, Float32COrder) {
    const auto dir = test::tempDir("npy_f32");
    const auto p = dir / "a.npy";
    test::writeFile(p, test::npyBytes("<f4", {2, 3}, test::f32Bytes({1, 2, NAN, 4, INFINITY, 6})));
    auto r = npy::Reader::open(p.string());
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(r.value()->header().dtype, "float32");
    EXPECT_EQ(r.value()->header().shape, (std::vector<uint64_t>{2, 3}));
    auto v = r.value()->readAll();
    ASSERT_TRUE(v.ok());
    ASSERT_EQ(v->size(), 6u);
    EXPECT_EQ((*v)[1], 2.0);
    EXPECT_TRUE(std::isnan((*v)[2]));
    EXPECT_TRUE(std::isinf((*v)[4]));
}

TEST(Npy, Float16FortranOrderIsTransposed) {
    const auto dir = test::tempDir("npy_f16");
    // 2x2 [[1, 2], [3, inf]] in Fortran order: 1, 3, 2, inf.
    const uint16_t h[] = {0x3c00, 0x4200, 0x4000, 0x7c00};
    const auto p = dir / "h.npy";
    test::writeFile(
        p, test::npyBytes("<f2", {2, 2}, std::string(reinterpret_cast<const char*>(h), 8), true));
    auto r = npy::Reader::open(p.string());
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(r.value()->header().dtype, "float16");
    EXPECT_TRUE(r.value()->header().fortranOrder);
    auto v = r.value()->readAll();
    ASSERT_TRUE(v.ok()) << v.error();
    EXPECT_EQ((*v)[0], 1.0);
    EXPECT_EQ((*v)[1], 2.0);
    EXPECT_EQ((*v)[2], 3.0);
    EXPECT_TRUE(std::isinf((*v)[3]));
}

TEST(Npy, BigEndianIntsBoolAndBfloat16) {
    const auto dir = test::tempDir("npy_types");
    const char be[] = {0,
                       0,
                       0,
                       0,
                       0,
                       0,
                       0,
                       7,
                       static_cast<char>(0xff),
                       static_cast<char>(0xff),
                       static_cast<char>(0xff),
                       static_cast<char>(0xff),
                       static_cast<char>(0xff),
                       static_cast<char>(0xff),
                       static_cast<char>(0xff),
                       static_cast<char>(0xfe)};
    test::writeFile(dir / "i.npy", test::npyBytes(">i8", {2}, std::string(be, 16)));
    auto i = npy::Reader::open((dir / "i.npy").string());
    ASSERT_TRUE(i.ok()) << i.error();
    EXPECT_EQ(i.value()->readAll().value(), (std::vector<double>{7, -2}));
    test::writeFile(dir / "b.npy", test::npyBytes("|b1", {3}, std::string("\x01\x00\x01", 3)));
    EXPECT_EQ(npy::Reader::open((dir / "b.npy").string()).value()->readAll().value(),
              (std::vector<double>{1, 0, 1}));
    // bfloat16 1.5 = 0x3fc0; ml_dtypes saves it as 2-byte void.
    const uint16_t bf[] = {0x3fc0, 0xc020};
    test::writeFile(dir / "bf.npy",
                    test::npyBytes("<V2", {2}, std::string(reinterpret_cast<const char*>(bf), 4)));
    auto b = npy::Reader::open((dir / "bf.npy").string());
    ASSERT_TRUE(b.ok()) << b.error();
    EXPECT_EQ(b.value()->header().dtype, "bfloat16");
    EXPECT_EQ(b.value()->readAll().value(), (std::vector<double>{1.5, -2.5}));
}

TEST(Npy, Version2HeaderAndScalar) {
    std::string hdr = "{'descr': '<f8', 'fortran_order': False, 'shape': (), }";
    while ((12 + hdr.size() + 1) % 64) hdr += ' ';
    hdr += '\n';
    std::string bytes("\x93NUMPY\x02\x00", 8);
    const uint32_t len = static_cast<uint32_t>(hdr.size());
    bytes.append(reinterpret_cast<const char*>(&len), 4);
    const double x = 3.25;
    bytes += hdr + std::string(reinterpret_cast<const char*>(&x), 8);
    auto h = npy::parseHeader(bytes);
    ASSERT_TRUE(h.ok()) << h.error();
    EXPECT_EQ(h->major, 2);
    EXPECT_TRUE(h->shape.empty());
    EXPECT_EQ(h->count, 1u);
}

TEST(Npy, BadFilesAreClearErrors) {
    const auto dir = test::tempDir("npy_bad");
    test::writeFile(dir / "magic.npy", "NUMPY not really");
    auto a = npy::Reader::open((dir / "magic.npy").string());
    ASSERT_FALSE(a.ok());
    EXPECT_NE(a.error().find("magic"), std::string::npos);
    // Short data: 6 float32 announced, 4 present.
    test::writeFile(dir / "short.npy", test::npyBytes("<f4", {2, 3}, test::f32Bytes({1, 2, 3, 4})));
    auto b = npy::Reader::open((dir / "short.npy").string());
    ASSERT_FALSE(b.ok());
    EXPECT_NE(b.error().find("short data"), std::string::npos) << b.error();
    EXPECT_NE(b.error().find("24 bytes"), std::string::npos) << b.error();
    // A header that is not the dict NumPy writes.
    test::writeFile(dir / "hdr.npy",
                    test::npyBytes("<f4", {2}, test::f32Bytes({1, 2})).replace(10, 1, "["));
    EXPECT_FALSE(npy::Reader::open((dir / "hdr.npy").string()).ok());
    // Unsupported dtypes are named.
    test::writeFile(dir / "c.npy", test::npyBytes("<c8", {1}, std::string(8, '\0')));
    auto c = npy::Reader::open((dir / "c.npy").string());
    ASSERT_FALSE(c.ok());
    EXPECT_NE(c.error().find("<c8"), std::string::npos) << c.error();
    // A header that claims 2^60 elements never allocates them.
    test::writeFile(dir / "huge.npy", test::npyBytes("<f4", {1ull << 30, 1ull << 30}, ""));
    EXPECT_FALSE(npy::Reader::open((dir / "huge.npy").string()).ok());
}

TEST(Npy, FilesWrittenByNumpy) {
    const auto dir = test::tempDir("npy_numpy");
    const auto r = test::runProgram(
        "/usr/bin/python3",
        {"-c",
         "import numpy as np, sys; d = sys.argv[1]\n"
         "np.save(d + '/f16.npy', np.arange(12, dtype=np.float16).reshape(3, 4) / 4)\n"
         "np.save(d + '/f32f.npy', np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, "
         "3)))\n"
         "np.save(d + '/u16.npy', np.array([1, 65535], dtype=np.uint16))\n"
         "np.save(d + '/f64be.npy', np.array([1.5, -2.0], dtype='>f8'))\n",
         dir.string()});
    if (r.exitCode != 0) GTEST_SKIP() << "python3 with numpy is not available: " << r.err;
    auto f16 = npy::Reader::open((dir / "f16.npy").string());
    ASSERT_TRUE(f16.ok()) << f16.error();
    auto v = f16.value()->readAll().value();
    ASSERT_EQ(v.size(), 12u);
    EXPECT_EQ(v[5], 1.25);
    auto ff = npy::Reader::open((dir / "f32f.npy").string());
    ASSERT_TRUE(ff.ok());
    EXPECT_TRUE(ff.value()->header().fortranOrder);
    EXPECT_EQ(ff.value()->readAll().value(), (std::vector<double>{0, 1, 2, 3, 4, 5}));
    EXPECT_EQ(npy::Reader::open((dir / "u16.npy").string()).value()->readAll().value(),
              (std::vector<double>{1, 65535}));
    EXPECT_EQ(npy::Reader::open((dir / "f64be.npy").string()).value()->readAll().value(),
              (std::vector<double>{1.5, -2.0}));
}
