// Damaged real files never crash an importer or the HDF5 reader: each corpus file is
// truncated at many offsets and has bytes flipped (fixed seed), and every variant must end in
// a report (complete / partial / failed) or a Result error, never a crash or a hang.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <random>

#include "core/common/job_control.h"
#include "core/debug/dump_scan.h"
#include "core/hdf5/h5_file.h"
#include "core/store/trace_store.h"
#include "importers/registry.h"
#include "tests/common/test_support.h"

namespace fs = std::filesystem;
using namespace ts;

namespace {

std::string readAll(const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

void writeAll(const fs::path& p, const std::string& bytes) {
    std::ofstream out(p, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

/// Truncations at `cuts` evenly spaced offsets, plus `flips` copies with 1..8 random bytes
/// overwritten, plus an empty file. Names keep the original extension (importers sniff it).
std::vector<fs::path> mangledVariants(const fs::path& original, const fs::path& dir, int cuts,
                                      int flips) {
    const std::string bytes = readAll(original);
    std::vector<fs::path> out;
    const std::string stem = original.filename().string();
    auto emit = [&](const std::string& tag, const std::string& data) {
        fs::path p = dir / (tag + "_" + stem);
        writeAll(p, data);
        out.push_back(p);
    };
    emit("empty", "");
    for (int i = 1; i <= cuts; ++i)
        emit("cut" + std::to_string(i), bytes.substr(0, bytes.size() * i / (cuts + 1)));
    std::mt19937 rng(1234);
    for (int i = 0; i < flips && !bytes.empty(); ++i) {
        std::string data = bytes;
        const int n = 1 + static_cast<int>(rng() % 8);
        for (int k = 0; k < n; ++k) data[rng() % data.size()] = static_cast<char>(rng() & 0xff);
        emit("flip" + std::to_string(i), data);
    }
    return out;
}

void importEach(const std::vector<fs::path>& files, const fs::path& dir) {
    auto store =
        store::TraceStore::open((dir / "mangled.tscope").string(), store::TraceStore::Mode::Create);
    ASSERT_TRUE(store) << store.error();
    for (const fs::path& f : files) {
        JobControl control;
        const importers::ImportReport r =
            importers::importFile(f.string(), *store.value(), control);
        EXPECT_TRUE(r.status == ts::store::SourceStatus::Complete ||
                    r.status == ts::store::SourceStatus::Partial ||
                    r.status == ts::store::SourceStatus::Failed)
            << f << ": " << ts::store::statusName(r.status);
        if (r.status == ts::store::SourceStatus::Failed) {
            EXPECT_FALSE(r.error.empty()) << f;
        }
    }
    // The session still answers after every damaged import, and no source is left
    // half-written ('importing').
    auto sources = store.value()->sources();
    ASSERT_TRUE(sources) << sources.error();
    EXPECT_LE(sources.value().size(), files.size());
    for (const auto& s : sources.value())
        EXPECT_NE(s.status, ts::store::SourceStatus::Importing) << s.path;
}

}  // namespace

TEST(MangledInputs, ChromeTracesNeverCrashTheImporter) {
    TS_REQUIRE_CORPUS();
    const fs::path dir = test::tempDir("mangled_json");
    std::vector<fs::path> all;
    for (const char* rel :
         {"real/catapult/simple_trace.json", "real/catapult/flow_simple.json",
          "real/catapult/async_begin_end.json", "real/catapult/x_event_trace.json",
          "real/ascend/trace_view.json", "real/mindspore/msprof_0_2_1.json",
          "real/hta/simple_add_trace.json.gz", "real/catapult/simple_trace_gz.gz"}) {
        auto v = mangledVariants(test::corpusFile(rel), dir, 12, 12);
        all.insert(all.end(), v.begin(), v.end());
    }
    importEach(all, dir);
}

TEST(MangledInputs, TruncatedJsonReportsWhereItWasCut) {
    TS_REQUIRE_CORPUS();
    const fs::path dir = test::tempDir("mangled_cut");
    const std::string bytes = readAll(test::corpusFile("real/catapult/x_event_trace.json"));
    const fs::path cut = dir / "half.json";
    writeAll(cut, bytes.substr(0, bytes.size() / 2));
    auto store =
        store::TraceStore::open((dir / "s.tscope").string(), store::TraceStore::Mode::Create);
    ASSERT_TRUE(store);
    JobControl control;
    const auto r = importers::importFile(cut.string(), *store.value(), control);
    EXPECT_EQ(r.status, ts::store::SourceStatus::Partial);
    EXPECT_GT(r.events, 0);
    EXPECT_NE(r.error.find("byte " + std::to_string(bytes.size() / 2)), std::string::npos)
        << "the error should name the byte offset of the cut: " << r.error;
}

TEST(MangledInputs, OtherFormatsNeverCrashTheImporters) {
    TS_REQUIRE_CORPUS();
    const fs::path dir = test::tempDir("mangled_other");
    std::vector<fs::path> all;
    for (const char* rel :
         {"real/tfevents/events.out.tfevents.1585499054.Jaakkos-Mac-mini.local.11684.5.v2",
          "real/nsys/saxpy-mpi-cuda_nsys_perlmutter0.sqlite"}) {
        auto v = mangledVariants(test::corpusFile(rel), dir, 6, 6);
        all.insert(all.end(), v.begin(), v.end());
    }
    importEach(all, dir);
}

TEST(MangledInputs, DamagedHdf5GivesErrorsNotCrashes) {
    TS_REQUIRE_CORPUS();
    const fs::path dir = test::tempDir("mangled_h5");
    for (const char* rel : {"real/hdf5/tall.h5", "real/hdf5/dset_gzip.h5", "real/hdf5/compound.h5",
                            "real/hdf5/h5ex_d_shuffle.h5"}) {
        for (const fs::path& f : mangledVariants(test::corpusFile(rel), dir, 10, 0)) {
            auto file = h5::File::open(f.string());
            if (!file) {
                EXPECT_FALSE(file.error().empty()) << f;
                continue;
            }
            auto datasets = file.value().allDatasets();
            if (!datasets) continue;
            for (const std::string& d : datasets.value()) {
                (void)file.value().datasetInfo(d);
                (void)file.value().attributes(d);
            }
            (void)debug::statsAll(file.value(), "", nullptr);
        }
    }
}
