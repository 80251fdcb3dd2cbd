// Values of any HDF5 type as text (the inspector's table) and strided numeric reads.
#include <gtest/gtest.h>

#include <cmath>

#include "core/hdf5/h5_read.h"
#include "core/hdf5/h5_text.h"
#include "tests/common/test_support.h"

namespace {

using ts::test::corpusFile;

ts::h5::File open(const std::string& rel) {
    auto f = ts::h5::File::open(corpusFile(rel).string());
    EXPECT_TRUE(f.ok()) << rel << ": " << (f.ok() ? "" : f.error());
    return std::move(f.value());
}

std::vector<std::string> all(const ts::h5::File& f, const std::string& path) {
    auto info = f.datasetInfo(path);
    EXPECT_TRUE(info.ok()) << path;
    std::vector<uint64_t> start(info->shape.size(), 0),
        count(info->shape.begin(), info->shape.end());
    auto v = ts::h5::readHyperslabText(f, path, start, count);
    EXPECT_TRUE(v.ok()) << path << ": " << (v.ok() ? "" : v.error());
    return v.ok() ? v.value() : std::vector<std::string>{};
}

TEST(H5Text, EveryTypeOfTheCorpusRenders) {
    TS_REQUIRE_CORPUS();
    auto g = open("generated/hdf5/features.h5");
    EXPECT_EQ(all(g, "compound"),
              (std::vector<std::string>{"{name: \"conv1\", value: 1.5, count: 3}",
                                        "{name: \"fc\", value: -2, count: 7}"}));
    auto s = all(g, "strings/vlen_utf8");
    ASSERT_GE(s.size(), 4u);
    EXPECT_EQ(s[0], "conv1.weight");
    EXPECT_EQ(s[1], "\xe5\xb1\x82\xe5\xbd\x92\xe4\xb8\x80\xe5\x8c\x96");  // 层归一化
    EXPECT_EQ(s[2], "");
    EXPECT_EQ(s[3].size(), 300u);
    EXPECT_EQ(all(g, "strings/fixed_ascii"), (std::vector<std::string>{"relu", "gelu", "softmax"}));
    auto ids = all(g, "int64_ids");
    ASSERT_GE(ids.size(), 2u);
    EXPECT_EQ(ids[0], "9223372036854775807");  // exact, not through a double
    EXPECT_EQ(ids[1], "-9223372036854775808");
    auto b = all(g, "bool_mask");
    ASSERT_EQ(b.size(), 64u);
    EXPECT_EQ(b[0], "False");
    EXPECT_EQ(b[2], "True");
    EXPECT_EQ(all(g, "scalar_f64"), (std::vector<std::string>{"3.14159265358979"}));
    EXPECT_TRUE(all(g, "empty_f32").empty());
    auto f16 = all(g, "f16_vals");
    ASSERT_EQ(f16.size(), 4096u);
    EXPECT_EQ(f16[10], "inf");
    EXPECT_EQ(f16[20], "-inf");
    EXPECT_EQ(f16[30], "nan");
    auto be = all(g, "big_endian_f32");
    ASSERT_EQ(be.size(), 100u);
    EXPECT_EQ(be[7], "1");  // i/7 for i = 7

    auto c = open("real/hdf5/compound.h5");
    auto rows = all(c, "dset");
    ASSERT_EQ(rows.size(), 72u);
    EXPECT_EQ(rows[0].rfind("{date: ", 0), 0u) << rows[0];
    EXPECT_NE(rows[0].find("time: \"13:53\""), std::string::npos) << rows[0];
    EXPECT_NE(rows[0].find("pressure: 29.88"), std::string::npos) << rows[0];
    EXPECT_EQ(all(open("real/hdf5/scalar.h5"), "0ds"), (std::vector<std::string>{"hello"}));
    EXPECT_EQ(all(open("real/hdf5/zerodim.h5"), "dset"), (std::vector<std::string>{"42"}));
    EXPECT_EQ(all(open("real/hdf5/fixed_string_dset.h5"), "DS1"),
              (std::vector<std::string>{"Parting", "is such", "sweet", "sorrow."}));
    auto e = all(open("real/hdf5/enum_dset.h5"), "DS1");
    ASSERT_EQ(e.size(), 28u);
    EXPECT_FALSE(e[8].empty());
    EXPECT_NE(e[8], "?");
    auto t = open("real/hdf5/types_dset.h5");
    auto paths = t.allDatasets();
    ASSERT_TRUE(paths.ok());
    for (const auto& p : paths.value()) EXPECT_EQ(all(t, p)[9], "9") << p;
}

TEST(H5Text, SlicesAndBadSelections) {
    TS_REQUIRE_CORPUS();
    auto g = open("generated/hdf5/features.h5");
    // Row 1 of matrix_f64 [300, 200], every 50th column, as text and as doubles.
    auto txt = ts::h5::readHyperslabText(g, "matrix_f64", {1, 0}, {1, 4}, {1, 50});
    ASSERT_TRUE(txt.ok()) << txt.error();
    auto num = ts::h5::readHyperslab(g, "matrix_f64", {1, 0}, {1, 4}, {1, 50});
    ASSERT_TRUE(num.ok()) << num.error();
    ASSERT_EQ(txt->size(), 4u);
    ASSERT_EQ(num->size(), 4u);
    for (size_t i = 0; i < 4; ++i)
        EXPECT_NEAR(std::stod((*txt)[i]), (*num)[i], 1e-12 * std::fabs((*num)[i]) + 1e-300);
    auto col = ts::h5::readHyperslab(g, "matrix_f64", {1, 150}, {1, 1});
    ASSERT_TRUE(col.ok());
    EXPECT_DOUBLE_EQ(col->at(0), num->at(3));
    EXPECT_FALSE(
        ts::h5::readHyperslabText(g, "matrix_f64", {0, 0}, {1, 5}, {1, 50}).ok());  // past the end
    EXPECT_FALSE(ts::h5::readHyperslabText(g, "matrix_f64", {0}, {1}).ok());        // wrong rank
    EXPECT_FALSE(ts::h5::readHyperslabText(g, "no/such", {}, {}).ok());
}

}  // namespace
