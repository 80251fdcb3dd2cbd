// A - B of two dumped tensors, for the Compare view's A−B panel (issue 26, item 18).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "core/debug/dump_writer.h"
#include "core/debug/tensor_difference.h"
#include "tests/common/test_support.h"

namespace {

std::string writeDump(const std::filesystem::path& path, const std::vector<float>& v) {
    ts::debug::DumpWriter w;
    EXPECT_TRUE(w.open(path.string()).ok());
    ts::debug::DumpTensorAttrs at{"Linear", "model/fc", 1, 1700000000.5, 0};
    EXPECT_TRUE(w.writeTensor("fc", 0, "output", 0, ts::debug::DumpDType::F32,
                              {static_cast<int64_t>(v.size())}, v.data(), at)
                    .ok());
    EXPECT_TRUE(w.close().ok());
    return path.string();
}

TEST(TensorDifference, WhereAAndBDifferMost) {
    const auto dir = ts::test::tempDir("tensordiff");
    std::vector<float> a(10000, 1.0f), b(10000, 1.0f);
    a[4567] = 1.5f;  // the spike
    a[10] = 0.75f;
    b[20] = std::numeric_limits<float>::quiet_NaN();
    const std::string fa = writeDump(dir / "a.h5", a), fb = writeDump(dir / "b.h5", b);
    const std::string path = "fc/0/output/0";  // <op>/<seqid>/<io>/<slot>
    auto d = ts::debug::tensorDifference(fa, path, fb, path, 100);
    ASSERT_TRUE(d.ok()) << d.error();
    EXPECT_EQ(d->count, 10000u);
    EXPECT_EQ(d->nonFinite, 1u);
    EXPECT_DOUBLE_EQ(d->maxAbs, 0.5);
    EXPECT_EQ(d->maxAt, 4567u);
    EXPECT_DOUBLE_EQ(d->aAtMax, 1.5);
    EXPECT_DOUBLE_EQ(d->bAtMax, 1.0);
    ASSERT_EQ(d->series.size(), 100u);
    EXPECT_EQ(d->bucketSize, 100u);
    EXPECT_DOUBLE_EQ(d->series[45], 0.5);  // the spike survives the downsampling
    EXPECT_DOUBLE_EQ(d->series[0], -0.25);
    EXPECT_NEAR(d->mean, (0.5 - 0.25) / 9999.0, 1e-12);
    // Different sizes: an error, not a comparison.
    const std::string fc = writeDump(dir / "c.h5", std::vector<float>(5, 1.0f));
    EXPECT_FALSE(ts::debug::tensorDifference(fa, path, fc, path).ok());
}

}  // namespace
