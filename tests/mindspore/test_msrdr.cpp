// MindSpore's own RDR exports read as MindSpore writes them: every file classified (none
// dropped), the execution order, stream order, memory addresses and task list parsed, the
// failing op named by MindSpore's task-failure log lines and found in the execution order;
// the CLI's `rdr DIR` on such a folder; the studio's own format still wins where it is.
#include <gtest/gtest.h>

#include <rapidjson/document.h>

#include "core/debug/rdr/ms_rdr_reader.h"
#include "core/debug/rdr/rdr_reader.h"
#include "tests/common/mindspore_dump_fixtures.h"
#include "tests/common/test_support.h"

using namespace ts;

TEST(MsRdr, EveryFileReadAndTheFailingOpMarked) {
    const auto root = test::tempDir("msrdr_full");
    const auto dir = test::writeMindSporeRdr(root);
    EXPECT_TRUE(rdr::isMsRdrFolder(dir.string()));
    EXPECT_TRUE(rdr::findRdrFolders(root.string()).empty());  // not the studio's format
    auto found = rdr::findMsRdrFolders(root.string());
    ASSERT_EQ(found.size(), 1u);
    auto e = rdr::readMsRdrExport(root.string());
    ASSERT_TRUE(e.ok()) << e.error();
    EXPECT_EQ(e->rank, 0);
    ASSERT_EQ(e->files.size(), 7u);
    std::map<std::string, int> kinds;
    for (const auto& f : e->files) ++kinds[rdr::msRdrKindName(f.kind)];
    EXPECT_EQ(kinds["graph_ir"], 1);
    EXPECT_EQ(kinds["exec_order"], 1);
    EXPECT_EQ(kinds["stream_exec_order"], 1);
    EXPECT_EQ(kinds["mem_address"], 1);
    EXPECT_EQ(kinds["task_info"], 1);
    EXPECT_EQ(kinds["somas"], 1);
    EXPECT_EQ(kinds["other"], 1);  // listed, not dropped
    const auto& ir = *std::find_if(e->files.begin(), e->files.end(),
                                   [](const auto& f) { return f.kind == rdr::MsRdrKind::GraphIr; });
    EXPECT_EQ(ir.module, "PIPELINE");
    EXPECT_EQ(ir.tag, "hwopt_d_before_graph_0");
    EXPECT_EQ(ir.timestamp, "20210911164831");
    ASSERT_EQ(e->execOrders.size(), 1u);
    const auto& o = e->execOrders[0];
    EXPECT_EQ(o.declaredSize, 3);
    ASSERT_EQ(o.ops.size(), 3u);
    EXPECT_EQ(o.ops[1].fullName, "Default/network-WithLossCell/_backbone-Net/Add-op8");
    EXPECT_EQ(o.graphId, 0);
    ASSERT_EQ(e->streamOrder.size(), 2u);
    EXPECT_EQ(e->streamOrder[1].streamId, 1);
    EXPECT_EQ(e->streamOrder[1].activeStreamIds, "2,3");
    ASSERT_EQ(e->memory.size(), 2u);
    EXPECT_EQ(e->memory[1].workspaces.size(), 1u);
    EXPECT_EQ(e->memory[0].outputs[0].size, 602112u);
    ASSERT_EQ(e->tasks.size(), 2u);
    EXPECT_EQ(e->tasks[1].streamId, 1);
    EXPECT_EQ(e->tasks[1].workspaces.size(), 1u);
    // The log beside the export names the failing op; it is row 1 of the execution order.
    ASSERT_GE(e->failures.size(), 2u);
    EXPECT_EQ(e->failures[0].taskId, 13);
    EXPECT_EQ(e->failures[0].streamId, 14);
    EXPECT_EQ(e->failures[1].op, "Default/network-WithLossCell/_backbone-Net/Add-op8");
    EXPECT_EQ(e->failingIndex(0), 1);
}

TEST(MsRdr, WithoutALogNoOpIsNamed) {
    const auto root = test::tempDir("msrdr_nolog");
    test::writeMindSporeRdr(root, false);
    auto e = rdr::readMsRdrExport(root.string());
    ASSERT_TRUE(e.ok());
    EXPECT_TRUE(e->failures.empty());
    EXPECT_EQ(e->failingIndex(0), -1);
}

TEST(MsRdr, DamagedFilesAreProblemsNotFailures) {
    const auto root = test::tempDir("msrdr_bad");
    const auto dir = test::writeMindSporeRdr(root, false);
    test::writeFile(dir / "KERNEL_stream_exec_order_20210911164831.json", "[{\"index\": 0, ");
    auto e = rdr::readMsRdrExport(root.string());
    ASSERT_TRUE(e.ok());
    ASSERT_FALSE(e->problems.empty());
    EXPECT_NE(e->problems[0].find("not JSON"), std::string::npos) << e->problems[0];
    EXPECT_TRUE(e->streamOrder.empty());
}

TEST(MsRdr, CliReadsMindSporesFolder) {
    const auto root = test::tempDir("msrdr_cli");
    test::writeMindSporeRdr(root);
    const auto r = test::runCli({"rdr", root.string(), "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    rapidjson::Document d;
    d.Parse(r.out.c_str());
    ASSERT_TRUE(d.IsObject()) << r.out;
    EXPECT_STREQ(d["format"].GetString(), "mindspore-rdr");
    EXPECT_STREQ(d["failing_op"].GetString(), "Default/network-WithLossCell/_backbone-Net/Add-op8");
    EXPECT_EQ(d["files"].Size(), 7u);
    EXPECT_EQ(d["execution_orders"][0]["failing_index"].GetInt64(), 1);
    const auto text = test::runCli({"rdr", root.string()});
    EXPECT_NE(text.out.find("failing op  Default/network-WithLossCell/_backbone-Net/Add-op8"),
              std::string::npos)
        << text.out;
}
