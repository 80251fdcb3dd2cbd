// DumpWriter output is read back by our reader and by h5py; dump.json parsing.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <limits>

#include "core/debug/dataset_stats.h"
#include "core/debug/dump_config.h"
#include "core/debug/dump_scan.h"
#include "core/debug/dump_writer.h"
#include "core/debug/tensor_compare.h"
#include "core/debug/tensor_stats.h"
#include "core/hdf5/h5_read.h"
#include "tests/common/test_support.h"

namespace {

using ts::debug::DumpDType;

std::string writeSample(const std::filesystem::path& dir) {
    const auto path = (dir / "sample.h5").string();
    ts::debug::DumpWriter w;
    EXPECT_TRUE(w.open(path).ok());
    std::vector<float> x = {1.f, -2.f, 3.f, 0.f, 5.f, 6.f};
    std::vector<float> y = {1.f, 0.f, 3.f, std::numeric_limits<float>::quiet_NaN(), 5.f, 6.f};
    const uint16_t half[3] = {0x3c00, 0x7c00, 0xc000};  // 1, +inf, -2
    const int64_t ids[2] = {7, 9};
    ts::debug::DumpTensorAttrs at{"Linear", "model/fc", 3, 1700000000.5, 0};
    EXPECT_TRUE(w.writeTensor("fc", 0, "input", 0, DumpDType::F32, {2, 3}, x.data(), at).ok());
    at.globalSeq = 1;
    EXPECT_TRUE(w.writeTensor("fc", 0, "output", 0, DumpDType::F32, {2, 3}, y.data(), at).ok());
    at = {"Cast", "model/cast", 3, 1700000001.0, 2};
    EXPECT_TRUE(w.writeTensor("cast", 0, "output", 0, DumpDType::F16, {3}, half, at).ok());
    at.globalSeq = 3;
    EXPECT_TRUE(w.writeTensor("cast", 0, "input", 1, DumpDType::I64, {2}, ids, at).ok());
    EXPECT_FALSE(
        w.writeTensor("cast", 0, "output", 0, DumpDType::F16, {3}, half, at).ok());  // duplicate
    EXPECT_FALSE(w.writeTensor("a/b", 0, "output", 0, DumpDType::F32, {1}, x.data(), at).ok());
    EXPECT_FALSE(w.writeTensor("fc", 0, "grad", 0, DumpDType::F32, {1}, x.data(), at).ok());
    EXPECT_EQ(w.bytesWritten(), 24u + 24u + 6u + 16u);
    EXPECT_TRUE(w.close().ok());
    return path;
}

TEST(DumpWriter, ReadBackBySequenceWithStats) {
    auto dir = ts::test::tempDir("dumpwriter");
    const auto path = writeSample(dir);
    auto f = ts::h5::File::open(path);
    ASSERT_TRUE(f.ok()) << f.error();
    ts::debug::OrderSource o;
    auto ts_ = ts::debug::orderedTensors(f.value(), &o);
    ASSERT_TRUE(ts_.ok());
    EXPECT_EQ(o, ts::debug::OrderSource::Sequence);
    ASSERT_EQ(ts_->size(), 4u);
    EXPECT_EQ((*ts_)[0].path, "fc/0/input/0");
    EXPECT_EQ((*ts_)[1].path, "fc/0/output/0");
    EXPECT_EQ((*ts_)[2].path, "cast/0/output/0");
    EXPECT_EQ((*ts_)[3].path, "cast/0/input/1");
    auto info = f->datasetInfo("cast/0/output/0");
    ASSERT_TRUE(info.ok());
    EXPECT_EQ(info->dtype, "float16");
    auto s = ts::debug::datasetStats(f.value(), "cast/0/output/0");
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(s->posinf, 1u);
    EXPECT_DOUBLE_EQ(s->min, -2.0);
    auto rep = ts::debug::scanOverflow(f.value());
    ASSERT_TRUE(rep.ok());
    ASSERT_EQ(rep->findings.size(), 2u);
    EXPECT_EQ(rep->findings[0].tensor.path, "fc/0/output/0");
    auto attrs = f->attributes("fc/0/input/0");
    ASSERT_TRUE(attrs.ok());
    bool sawScope = false;
    for (const auto& a : attrs.value())
        if (a.name == "scope") sawScope = a.value == "\"model/fc\"";
    EXPECT_TRUE(sawScope);
}

TEST(DumpWriter, H5pyReadsTheDump) {
    // The first python3 with h5py: PATH's, else the system one (pyenv shims may lack it).
    std::string py;
    for (const char* cand : {"python3", "/usr/bin/python3"}) {
        if (std::system((std::string(cand) + " -c 'import h5py, numpy' >/dev/null 2>&1").c_str()) ==
            0) {
            py = cand;
            break;
        }
    }
    if (py.empty()) GTEST_SKIP() << "python3 with h5py and numpy not available";
    auto dir = ts::test::tempDir("dumpwriter_py");
    const auto path = writeSample(dir);
    const auto script = dir / "check.py";
    {
        std::FILE* fp = std::fopen(script.c_str(), "w");
        ASSERT_NE(fp, nullptr);
        std::fputs(
            "import sys, h5py, numpy as np\n"
            "f = h5py.File(sys.argv[1], 'r')\n"
            "x = f['fc/0/input/0']\n"
            "assert x.dtype == np.float32 and x.shape == (2, 3), (x.dtype, x.shape)\n"
            "assert x[1, 2] == 6.0\n"
            "assert x.attrs['op_type'] == 'Linear' and x.attrs['scope'] == 'model/fc'\n"
            "assert int(x.attrs['step']) == 3 and list(x.attrs['shape']) == [2, 3]\n"
            "h = f['cast/0/output/0']\n"
            "assert h.dtype == np.float16, h.dtype\n"
            "v = h[()]\n"
            "assert v[0] == 1.0 and np.isposinf(v[1]) and v[2] == -2.0, v\n"
            "assert int(f['fc/0'].attrs['global_seq']) == 0\n"
            "assert list(f['cast/0/input/1'][()]) == [7, 9]\n"
            "assert np.isnan(f['fc/0/output/0'][1, 0])\n"
            "print('ok')\n",
            fp);
        std::fclose(fp);
    }
    const std::string cmd =
        py + " " + script.string() + " " + path + " > " + (dir / "out.txt").string() + " 2>&1";
    const int rc = std::system(cmd.c_str());
    std::ifstream in(dir / "out.txt");
    std::string out((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    EXPECT_EQ(rc, 0) << out;
    EXPECT_NE(out.find("ok"), std::string::npos) << out;
}

TEST(DumpConfig, ParsesSeedFields) {
    auto c = ts::debug::parseDumpConfig(
        R"({"dump": {"dump_list": [], "dump_path": "/tmp/d", "dump_mode": "output", "dump_op_switch": "on",
            "steps": "0-2,5", "op_filter": "^conv", "file_per": "run", "check_overflow": true}})");
    ASSERT_TRUE(c.ok()) << c.error();
    EXPECT_EQ(c->dumpPath, "/tmp/d");
    EXPECT_EQ(c->mode, ts::debug::DumpMode::Output);
    EXPECT_FALSE(c->wantsInputs());
    EXPECT_EQ(c->steps, (std::set<int64_t>{0, 1, 2, 5}));
    EXPECT_TRUE(c->wantsOp("conv1", "Conv2d", 1));
    EXPECT_FALSE(c->wantsOp("fc", "Linear", 1));
    EXPECT_FALSE(c->wantsOp("conv1", "Conv2d", 3));
    EXPECT_TRUE(c->checkOverflow);
    EXPECT_EQ(c->fileForStep(2), "/tmp/d/dump.h5");
    auto d = ts::debug::parseDumpConfig(
        R"({"dump_path": "out", "dump_list": ["Linear"], "steps": [4]})");
    ASSERT_TRUE(d.ok());
    EXPECT_EQ(d->mode, ts::debug::DumpMode::All);
    EXPECT_TRUE(d->wantsOp("fc", "Linear", 4));
    EXPECT_FALSE(d->wantsOp("conv", "Conv2d", 4));
    EXPECT_EQ(d->fileForStep(4), "out/step_4.h5");
    auto off = ts::debug::parseDumpConfig(R"({"dump_op_switch": "off"})");
    ASSERT_TRUE(off.ok());
    EXPECT_FALSE(off->wantsOp("x", "X", 0));
    EXPECT_FALSE(ts::debug::parseDumpConfig(R"({"dump_mode": "both"})").ok());
    EXPECT_FALSE(ts::debug::parseDumpConfig(R"({"op_filter": "(("})").ok());
    EXPECT_FALSE(ts::debug::parseDumpConfig("{nope").ok());
    EXPECT_FALSE(ts::debug::loadDumpConfig("/nonexistent/dump.json").ok());
}

TEST(TensorStats, BlockMergeMatchesDirect) {
    std::vector<double> v;
    for (int i = 0; i < 1000; ++i) v.push_back(std::sin(i) * 100 + 1e6);
    v[10] = std::numeric_limits<double>::quiet_NaN();
    v[20] = -std::numeric_limits<double>::infinity();
    v[30] = 0;
    ts::debug::StatsAccumulator one, blocks;
    one.add(v.data(), v.size());
    for (size_t i = 0; i < v.size(); i += 7)
        blocks.add(v.data() + i, std::min<size_t>(7, v.size() - i));
    auto a = one.result(), b = blocks.result();
    EXPECT_EQ(a.nan, 1u);
    EXPECT_EQ(a.neginf, 1u);
    EXPECT_EQ(a.zeros, 1u);
    EXPECT_EQ(a.finite, 998u);
    EXPECT_NEAR(a.mean, b.mean, 1e-6);
    EXPECT_NEAR(a.std, b.std, 1e-9 * a.std);
    EXPECT_EQ(a.min, 0.0);
    ts::debug::Histogram h(-1, 1, 4, false);
    const double hv[] = {-1, -0.4, 0.1, 0.9, 1, 2, std::nan("")};
    h.add(hv, 7);
    EXPECT_EQ(h.counts(), (std::vector<uint64_t>{1, 1, 1, 2}));
    EXPECT_EQ(h.overflow, 1u);
}

TEST(TensorCompare, NonFiniteAgreementAndFigures) {
    const double inf = std::numeric_limits<double>::infinity(), nan = std::nan("");
    const double a[] = {1, 2, nan, inf, 3, nan};
    const double b[] = {1, 2.5, nan, inf, 3, 4};
    ts::debug::CompareAccumulator acc;
    acc.add(a, b, 6);
    auto f = acc.result();
    EXPECT_EQ(f.finitePairs, 3u);
    EXPECT_EQ(f.nonfiniteMismatch, 1u);
    EXPECT_DOUBLE_EQ(f.maxAbs, 0.5);
    EXPECT_DOUBLE_EQ(f.maxRel, 0.2);
    EXPECT_NEAR(f.meanAbs, 0.5 / 3, 1e-12);
    EXPECT_NEAR(f.rmse, std::sqrt(0.25 / 3), 1e-12);
    EXPECT_LT(f.cosine, 1.0);
}

}  // namespace
