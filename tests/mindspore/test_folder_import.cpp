// `trainscope-cli import DIR`: a folder of everything MindSpore and PyTorch users have on
// disk imports as one session, and every file is reported with its fate — imported,
// partial, failed, skipped with the reason, or included in a dump or RDR export.
#include <gtest/gtest.h>

#include <rapidjson/document.h>

#include <map>

#include "core/store/trace_store.h"
#include "importers/batch_import.h"
#include "tests/common/mindspore_dump_fixtures.h"
#include "tests/common/summary_fixtures.h"
#include "tests/common/test_support.h"

using namespace ts;
namespace fs = std::filesystem;

namespace {

/// summary_dir/run_{1,2,3} with summary + lineage, a TensorBoard run, a dump tree, an RDR
/// export, a trace, a log, and files no importer reads.
fs::path makeWorkspace(const std::string& tag) {
    const auto root = test::tempDir(tag);
    for (int r = 1; r <= 3; ++r) {
        const auto run = root / "summary_dir" / ("run_" + std::to_string(r));
        test::writeMindSporeSummary(run / "events.summary.1700000000.host_MS", 20, 0.5f * r);
        test::writeMindSporeLineage(run / "events.summary.1700000000.host_lineage", 0.01f * r,
                                    32 * r, 0.9f + 0.02f * r, r == 2 ? "Adam" : "Momentum");
    }
    std::string tb = test::frameRecord(test::tbVersion());
    for (int s = 0; s < 5; ++s)
        tb += test::frameRecord(test::tbScalar(s, "Loss/train", 1.0f / (s + 1)));
    test::writeBytes(root / "tb" / "events.out.tfevents.1700000000.host.1.0", tb);
    test::writeMindSporeDump(root / "dump", 0, "LeNet", 0, 1, test::lenetOps());
    test::writeFile(root / "dump" / "rank_0" / "LeNet" / "0" / "1" /
                        "MatMul.Default_fc2_MatMul-op9.2.7.1700000000009999",
                    "device bytes");
    test::writeMindSporeRdr(root / "rdr");
    test::writeFile(root / "trace.json",
                    R"([{"ph":"X","name":"step","pid":1,"tid":1,"ts":0,"dur":5}])");
    test::writeFile(root / "train.log",
                    "[INFO] ME(1,1,python):2024-01-01-10:00:00.000.000 [train.py:1] start\n"
                    "[WARNING] ME(1,1,python):2024-01-01-10:00:01.000.000 [train.py:2] slow\n");
    test::writeFile(root / "notes.xyz", std::string("\x01\x02\x03 binary", 10));
    test::writeFile(root / ".hidden", "x");
    test::writeFile(root / "stray.npy", test::npyBytes("<f4", {1}, test::f32Bytes({1})));
    return root;
}

}  // namespace

TEST(FolderImport, EveryFileHasAFate) {
    const auto root = makeWorkspace("folder_import");
    auto s = store::TraceStore::open((root / "s.tscope").string(), store::TraceStore::Mode::Create);
    ASSERT_TRUE(s.ok());
    JobControl jc;
    // The session file itself lives in the folder: it is found too (and not imported).
    const importers::BatchImport f = importers::importFiles({root.string()}, *s.value(), jc);
    std::map<std::string, importers::FileFate> byName;
    for (const auto& x : f.files) byName[fs::relative(x.path, root).string()] = x;
    auto fateOf = [&](const std::string& rel) {
        auto it = byName.find(rel);
        return it == byName.end() ? std::string("(not listed)")
                                  : std::string(importers::fateName(it->second.fate));
    };
    EXPECT_EQ(fateOf("summary_dir/run_1/events.summary.1700000000.host_MS"), "imported");
    EXPECT_EQ(fateOf("summary_dir/run_2/events.summary.1700000000.host_lineage"), "imported");
    EXPECT_EQ(fateOf("tb/events.out.tfevents.1700000000.host.1.0"), "imported");
    EXPECT_EQ(fateOf("trace.json"), "imported");
    EXPECT_EQ(fateOf("train.log"), "imported");
    EXPECT_EQ(fateOf("dump/rank_0/LeNet/0/1/statistic.csv"), "partial");  // the bin file
    EXPECT_EQ(fateOf("dump/rank_0/LeNet/0/1/MatMul.Default_fc2_MatMul-op9.2.7.1700000000009999"),
              "skipped");
    EXPECT_EQ(fateOf("dump/rank_0/execution_order/ms_execution_order_graph_0.csv"), "included");
    EXPECT_EQ(fateOf("rdr/rank_0/rdr/KERNEL_mem_address_list_20210911164831.txt"), "imported");
    EXPECT_EQ(fateOf("notes.xyz"), "skipped");
    EXPECT_EQ(fateOf(".hidden"), "skipped");
    EXPECT_EQ(fateOf("stray.npy"), "skipped");
    EXPECT_NE(byName["stray.npy"].detail.find("outside a MindSpore dump"), std::string::npos);
    // Nothing is left out: every regular file under the root has a line.
    size_t files = 0;
    for (const auto& e : fs::recursive_directory_iterator(root)) files += e.is_regular_file();
    EXPECT_GE(f.files.size(), files - 3);

    store::TraceStore& st = *s.value();
    // summary_dir of three runs (+ the TensorBoard run): one run per folder, lineage joined.
    EXPECT_EQ(st.db().queryInt("SELECT count(*) FROM runs").value(), 4);
    EXPECT_EQ(
        st.db().queryInt("SELECT count(*) FROM runs WHERE name = 'summary_dir/run_2'").value(), 1);
    EXPECT_EQ(
        st.db()
            .queryInt("SELECT count(DISTINCT run_id) FROM run_params WHERE key='learning_rate'")
            .value(),
        3);
    EXPECT_EQ(st.db()
                  .queryInt("SELECT count(*) FROM rdr_records WHERE failing_op LIKE '%Add-op8'")
                  .value(),
              1);
    EXPECT_EQ(st.db().queryInt("SELECT count(*) FROM dump_files").value(), 1);
    EXPECT_EQ(
        st.db().queryInt("SELECT count(*) FROM sources WHERE kind = 'mindspore_dump'").value(), 1);
}

TEST(FolderImport, CliReportsEveryFileAsJson) {
    const auto root = makeWorkspace("folder_import_cli");
    const auto session = (test::tempDir("folder_import_cli_s") / "s.tscope").string();
    const auto r = test::runCli({"import", root.string(), "-o", session, "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    rapidjson::Document d;
    d.Parse(r.out.c_str());
    ASSERT_TRUE(d.IsObject()) << r.out;
    ASSERT_TRUE(d.HasMember("files"));
    ASSERT_TRUE(d.HasMember("counts"));
    EXPECT_GE(d["counts"]["imported"].GetInt64(), 10);
    EXPECT_GE(d["counts"]["skipped"].GetInt64(), 4);
    bool sawLineage = false;
    for (const auto& s : d["sources"].GetArray())
        sawLineage |= std::string(s["path"].GetString()).find("_lineage") != std::string::npos;
    EXPECT_TRUE(sawLineage);
    const auto text = test::runCli({"import", root.string(), "-o", session + "2"});
    EXPECT_NE(text.out.find("files by fate:"), std::string::npos) << text.out;
    EXPECT_NE(text.out.find("skipped  -  " + (root / "notes.xyz").string() +
                            "  (no importer reads this file (.xyz))"),
              std::string::npos)
        << text.out;
}

TEST(FolderImport, CancelLeavesTheSessionAsItWas) {
    const auto root = makeWorkspace("folder_import_cancel");
    auto s = store::TraceStore::open((test::tempDir("folder_cancel_s") / "s.tscope").string(),
                                     store::TraceStore::Mode::Create);
    ASSERT_TRUE(s.ok());
    JobControl jc;
    jc.cancel();
    const auto f = importers::importFiles({root.string()}, *s.value(), jc);
    EXPECT_TRUE(f.cancelled);
    EXPECT_EQ(s.value()->db().queryInt("SELECT count(*) FROM sources").value(), 0);
    EXPECT_EQ(s.value()->db().queryInt("SELECT count(*) FROM runs").value(), 0);
    EXPECT_EQ(s.value()->db().queryInt("SELECT count(*) FROM dump_files").value(), 0);
    EXPECT_EQ(s.value()->db().queryInt("SELECT count(*) FROM rdr_records").value(), 0);
}
