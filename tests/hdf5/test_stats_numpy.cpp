// `trainscope-cli dump stats --json` on every HDF5 file of the corpus against statistics
// numpy computes here, independently (h5py reads, numpy reduces in float64 over finite
// values, population std). Non-numeric datasets must come back with an "error" while the
// others still come. Skips when python3 lacks h5py/numpy.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <cmath>
#include <cstdlib>
#include <fstream>

#include "tests/common/test_support.h"

namespace {

namespace fs = std::filesystem;

std::string python() {
    for (const char* cand : {"/usr/bin/python3", "python3"})
        if (std::system((std::string(cand) + " -c 'import h5py, numpy' >/dev/null 2>&1").c_str()) ==
            0)
            return cand;
    return {};
}

const char* kScript = R"(import sys, json, h5py, numpy as np
out = {}
with h5py.File(sys.argv[1], 'r') as f:
    def visit(name, obj):
        if not isinstance(obj, h5py.Dataset):
            return
        dt = obj.dtype
        if dt.kind not in 'fiub':
            out[name] = {'numeric': False}
            return
        x = obj[()]
        x = np.asarray(x).astype(np.float64).ravel()
        fin = np.isfinite(x)
        y = x[fin]
        r = {'numeric': True, 'count': int(x.size), 'nan': int(np.isnan(x).sum()),
             'posinf': int(np.isposinf(x).sum()), 'neginf': int(np.isneginf(x).sum()),
             'zeros': int((y == 0).sum())}
        if y.size:
            r.update(min=float(y.min()), max=float(y.max()), mean=float(y.mean()), std=float(y.std()))
        out[name] = r
    f.visititems(visit)
json.dump(out, sys.stdout)
)";

rapidjson::Document parseReport(const std::string& s) {
    rapidjson::Document d;
    d.Parse(s.c_str());
    return d;
}

void near(double got, double want, const std::string& what) {
    EXPECT_NEAR(got, want, 1e-6 * std::max(1.0, std::fabs(want))) << what;
}

TEST(DumpStatsCli, EveryCorpusFileAgreesWithNumpy) {
    TS_REQUIRE_CORPUS();
    const std::string py = python();
    if (py.empty()) GTEST_SKIP() << "python3 with h5py and numpy not available";
    const fs::path dir = ts::test::tempDir("statsnumpy");
    std::ofstream(dir / "stats.py") << kScript;
    std::vector<fs::path> files;
    for (const char* sub : {"generated/hdf5", "real/hdf5"})
        for (const auto& e : fs::directory_iterator(ts::test::corpusFile(sub)))
            if (e.path().extension() == ".h5") files.push_back(e.path());
    ASSERT_GE(files.size(), 15u);
    int datasets = 0;
    for (const auto& file : files) {
        auto r = ts::test::runCli({"dump", "stats", file.string(), "--json"});
        if (file.filename() == "notahdf5file.h5") {
            EXPECT_EQ(r.exitCode, 1);
            EXPECT_TRUE(parseReport(r.out).HasMember("error"));
            continue;
        }
        ASSERT_EQ(r.exitCode, 0) << file << r.err;
        auto ours = parseReport(r.out);
        ASSERT_TRUE(ours.IsObject() && ours.HasMember("datasets")) << file;
        const std::string cmd = py + " " + (dir / "stats.py").string() + " " + file.string() +
                                " > " + (dir / "np.json").string();
        ASSERT_EQ(std::system(cmd.c_str()), 0) << file;
        std::ifstream in(dir / "np.json");
        std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        auto np = parseReport(text);
        ASSERT_TRUE(np.IsObject()) << file;
        ASSERT_EQ(ours["datasets"].Size(), np.MemberCount()) << file;
        for (const auto& d : ours["datasets"].GetArray()) {
            const std::string path = d["path"].GetString();
            ASSERT_NE(path[0], '/') << path;
            ASSERT_TRUE(np.HasMember(path.c_str())) << file << ": " << path;
            const auto& t = np[path.c_str()];
            const std::string what = file.filename().string() + ":" + path;
            if (!t["numeric"].GetBool()) {
                EXPECT_TRUE(d.HasMember("error")) << what;
                continue;
            }
            ASSERT_FALSE(d.HasMember("error")) << what << ": " << d["error"].GetString();
            EXPECT_EQ(d["count"].GetUint64(), t["count"].GetUint64()) << what;
            for (const char* k : {"nan", "posinf", "neginf", "zeros"})
                EXPECT_EQ(d[k].GetUint64(), t[k].GetUint64()) << what << " " << k;
            if (t.HasMember("min")) {
                for (const char* k : {"min", "max", "mean", "std"})
                    near(d[k].GetDouble(), t[k].GetDouble(), what + " " + k);
            } else {
                EXPECT_TRUE(d["min"].IsNull()) << what;
            }
            ++datasets;
        }
    }
    EXPECT_GT(datasets, 80);
}

}  // namespace
