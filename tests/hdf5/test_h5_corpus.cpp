// Every corpus HDF5 file opens (or fails cleanly); stats match numpy truth.json.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/debug/dataset_stats.h"
#include "core/debug/dump_scan.h"
#include "core/hdf5/h5_read.h"
#include "tests/common/test_support.h"

namespace {

using ts::test::corpusFile;

rapidjson::Document loadTruth() {
    std::ifstream in(corpusFile("generated/hdf5/truth.json"));
    std::stringstream ss;
    ss << in.rdbuf();
    rapidjson::Document d;
    d.Parse(ss.str().c_str());
    return d;
}

void expectRel(double got, double want, const std::string& what) {
    const double tol = 1e-6 * std::max(1.0, std::fabs(want));
    EXPECT_NEAR(got, want, tol) << what;
}

TEST(H5Corpus, EveryRealFileOpensOrFailsClearly) {
    TS_REQUIRE_CORPUS();
    int opened = 0;
    for (const auto& e : std::filesystem::directory_iterator(corpusFile("real/hdf5"))) {
        if (e.path().extension() != ".h5") continue;
        auto f = ts::h5::File::open(e.path().string());
        if (e.path().filename() == "notahdf5file.h5") {
            ASSERT_FALSE(f.ok());
            EXPECT_NE(f.error().find("not an HDF5 file"), std::string::npos) << f.error();
            continue;
        }
        ASSERT_TRUE(f.ok()) << e.path() << ": " << f.error();
        ++opened;
        auto all = f->allDatasets();
        ASSERT_TRUE(all.ok()) << all.error();
        for (const auto& p : all.value()) {
            auto info = f->datasetInfo(p);
            ASSERT_TRUE(info.ok()) << p << ": " << info.error();
            EXPECT_FALSE(info->dtype.empty());
            auto attrs = f->attributes(p);
            EXPECT_TRUE(attrs.ok()) << p;
            if (info->numeric()) {
                auto s =
                    ts::debug::datasetStats(f.value(),
                                            p);  // may fail (e.g. missing filter) but never crash
                if (s) {
                    EXPECT_EQ(s->count, info->count) << p;
                }
            }
        }
    }
    EXPECT_GE(opened, 10);
}

TEST(H5Corpus, TypesAreDescribed) {
    TS_REQUIRE_CORPUS();
    auto f = ts::h5::File::open(corpusFile("real/hdf5/compound.h5").string());
    ASSERT_TRUE(f.ok());
    auto all = f->allDatasets();
    ASSERT_TRUE(all.ok() && !all->empty());
    auto info = f->datasetInfo(all->front());
    ASSERT_TRUE(info.ok());
    EXPECT_EQ(info->dtype, "compound");
    EXPECT_FALSE(info->typeDetail.empty());
    auto g = ts::h5::File::open(corpusFile("generated/hdf5/features.h5").string());
    ASSERT_TRUE(g.ok());
    auto gz = g->datasetInfo("chunked_gzip");
    ASSERT_TRUE(gz.ok());
    EXPECT_EQ(gz->layout, "chunked");
    EXPECT_EQ(gz->chunks, (std::vector<uint64_t>{128, 128}));
    ASSERT_EQ(gz->filters.size(), 2u);
    EXPECT_EQ(gz->filters[0], "shuffle");
    EXPECT_EQ(gz->filters[1], "gzip(4)");
    auto f16 = g->datasetInfo("f16_vals");
    ASSERT_TRUE(f16.ok());
    EXPECT_EQ(f16->dtype, "float16");
}

TEST(H5Corpus, StatsMatchNumpyTruth) {
    TS_REQUIRE_CORPUS();
    auto truth = loadTruth();
    ASSERT_TRUE(truth.IsObject());
    int checked = 0;
    for (const char* name : {"dump_gpu.h5", "dump_npu.h5", "features.h5"}) {
        auto f = ts::h5::File::open(corpusFile(std::string("generated/hdf5/") + name).string());
        ASSERT_TRUE(f.ok()) << f.error();
        for (auto it = truth[name].MemberBegin(); it != truth[name].MemberEnd(); ++it) {
            const std::string path = it->name.GetString();
            const auto& t = it->value;
            if (!t.IsObject() || !t.HasMember("nan")) continue;  // links, non-float entries
            auto s = ts::debug::datasetStats(f.value(), path);
            ASSERT_TRUE(s.ok()) << path << ": " << s.error();
            EXPECT_EQ(s->count, t["count"].GetUint64()) << path;
            EXPECT_EQ(s->nan, t["nan"].GetUint64()) << path;
            EXPECT_EQ(s->posinf, t["posinf"].GetUint64()) << path;
            EXPECT_EQ(s->neginf, t["neginf"].GetUint64()) << path;
            if (t.HasMember("min")) {
                expectRel(s->min, t["min"].GetDouble(), path + " min");
                expectRel(s->max, t["max"].GetDouble(), path + " max");
                expectRel(s->mean, t["mean"].GetDouble(), path + " mean");
                expectRel(s->std, t["std"].GetDouble(), path + " std");
            }
            ++checked;
        }
    }
    EXPECT_GT(checked, 60);
}

TEST(H5Corpus, HyperslabReadsValues) {
    TS_REQUIRE_CORPUS();
    auto f = ts::h5::File::open(corpusFile("generated/hdf5/dump_gpu.h5").string());
    ASSERT_TRUE(f.ok());
    auto v = ts::h5::readHyperslab(f.value(), "Linear/0/output/0", {2, 0}, {1, 10});
    ASSERT_TRUE(v.ok()) << v.error();
    ASSERT_EQ(v->size(), 10u);
    EXPECT_TRUE(std::isinf((*v)[7]) && (*v)[7] > 0);  // planted +inf at [2, 7]
    EXPECT_FALSE(ts::h5::readHyperslab(f.value(), "Linear/0/output/0", {8, 0}, {1, 10}).ok());
}

TEST(H5Damaged, TruncatedAndGarbageFilesGiveErrors) {
    TS_REQUIRE_CORPUS();
    auto dir = ts::test::tempDir("h5damaged");
    std::ifstream in(corpusFile("generated/hdf5/dump_gpu.h5"), std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    for (size_t cut : {size_t{100}, size_t{4000}, bytes.size() / 2, bytes.size() - 100}) {
        auto p = dir / ("cut_" + std::to_string(cut) + ".h5");
        std::ofstream(p, std::ios::binary).write(bytes.data(), static_cast<std::streamsize>(cut));
        auto f = ts::h5::File::open(p.string());
        if (!f) continue;  // clear error at open
        auto all = f->allDatasets();
        if (!all) continue;
        for (const auto& path : all.value()) (void)ts::debug::datasetStats(f.value(), path);
    }
    auto empty = dir / "empty.h5";
    std::ofstream(empty).close();
    EXPECT_FALSE(ts::h5::File::open(empty.string()).ok());
    EXPECT_FALSE(ts::h5::File::open((dir / "missing.h5").string()).ok());
}

}  // namespace
