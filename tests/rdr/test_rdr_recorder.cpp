// The recorder and its export: each API-driven failure kind (op exception, NaN stop,
// failed allocation) writes a complete folder naming the failing op; mode 1 vs 2; bounds;
// the reader and `trainscope-cli rdr` open what was written.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <rapidjson/document.h>

#include "core/debug/rdr/rdr_reader.h"
#include "tests/common/test_support.h"
#include "tests/rdr/rdr_test_run.h"

namespace fs = std::filesystem;
using namespace ts::rdr;

namespace {

// Checks every file is present and readable and returns the export.
RdrExport expectComplete(const fs::path& root) {
    const fs::path dir = root / "rank_0" / "rdr";
    for (const char* f :
         {kIndexFile, kGraphIrFile, kExecOrderFile, kMemoryFile, kLogFile, kRunStateFile})
        EXPECT_TRUE(fs::is_regular_file(dir / f)) << f;
    auto e = readRdrExport(root.string());
    EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error());
    if (!e.ok()) return {};
    EXPECT_TRUE(e->problems.empty()) << e->problems.front();
    EXPECT_EQ(e->files.size(), 5u);
    EXPECT_NE(e->graphIr.find("MatMul-op0"), std::string::npos);
    EXPECT_EQ(e->current.rows.size(), 3u);
    EXPECT_EQ(e->previous.rows.size(), 3u);
    EXPECT_EQ(e->current.step, 2);
    EXPECT_EQ(e->previous.step, 1);
    EXPECT_EQ(e->logLines.size(), 2u);
    EXPECT_EQ(e->runState["loss_scale"], "1024");
    EXPECT_NE(e->runConfig.find("\"lr\""), std::string::npos);
    EXPECT_EQ(e->poolPeak, 3840u);
    EXPECT_EQ(e->epoch, 0);
    EXPECT_EQ(e->step, 2);
    return std::move(e).value();
}

TEST(RdrRecorder, OpExceptionNamesTheOp) {
    const fs::path root = ts::test::tempDir("rdr_exc");
    RunningDataRecorder r;
    ts::rdr::test::recordSampleRun(r, root.string(), 1);
    ASSERT_TRUE(r.exportNow(std::string(kReasonOpException) + ": shape mismatch in Add",
                            "Default/network/fc1/Add-op1"));
    RdrExport e = expectComplete(root);
    EXPECT_EQ(e.reason, "op_exception: shape mismatch in Add");
    EXPECT_EQ(e.failingOp, "Default/network/fc1/Add-op1");
    EXPECT_EQ(e.failingSeqid, 21);
    ASSERT_EQ(e.failingRow(), 1);
    EXPECT_EQ(e.current.rows[1].op, "Add");
    EXPECT_EQ(e.current.rows[1].inputs, "[32,784]:float32 [784,10]:float32");
    EXPECT_EQ(e.current.rows[1].outputs, "[32,10]");
    EXPECT_EQ(e.signal, 0);
}

TEST(RdrRecorder, NanStopNamesLastOpByDefault) {
    const fs::path root = ts::test::tempDir("rdr_nan");
    RunningDataRecorder r;
    const std::string last = ts::rdr::test::recordSampleRun(r, root.string(), 1);
    r.setRunState(R"({"lr": 1e9})", 0, 2, std::nan(""), 1024.0);
    ASSERT_TRUE(r.onRunEnd(true, kReasonNanLoss, ""));
    RdrExport e = expectComplete(root);
    EXPECT_EQ(e.reason, "nan_loss");
    EXPECT_EQ(e.failingOp, last);
    EXPECT_EQ(e.failingRow(), 2);
    EXPECT_EQ(e.runState["loss"], "nan");
}

TEST(RdrRecorder, FailedAllocationIsInTheTable) {
    const fs::path root = ts::test::tempDir("rdr_alloc");
    RunningDataRecorder r;
    ts::rdr::test::recordSampleRun(r, root.string(), 1);
    r.recordOp(30, "Conv2D", "Default/network/conv1/Conv2D-op3", {{{32, 3, 224, 224}, "float32"}},
               {{32, 64, 112, 112}});
    r.recordAllocFailure("Default/network/conv1/Conv2D-op3:out0", uint64_t{1} << 40, 99999);
    ASSERT_TRUE(r.exportNow(kReasonAllocFailed, ""));
    auto e = readRdrExport(root.string());
    ASSERT_TRUE(e.ok()) << e.error();
    EXPECT_EQ(e->failingOp, "Default/network/conv1/Conv2D-op3");
    EXPECT_EQ(e->failingSeqid, 30);
    ASSERT_EQ(e->allocations.size(), 7u);
    EXPECT_EQ(e->allocations.back().status, "FAILED");
    EXPECT_EQ(e->allocations.back().bytes, uint64_t{1} << 40);
    EXPECT_EQ(e->allocations.front().status, "freed");
    EXPECT_GT(e->allocations.front().freeNs, e->allocations.front().allocNs);
    EXPECT_EQ(e->allocations[1].status, "live");
}

TEST(RdrReader, MemoryCurveFollowsAllocsAndFrees) {
    std::vector<RdrAllocRow> rows = {{"a", 100, 0, 10, 40, "freed"},
                                     {"b", 50, 100, 20, -1, "live"},
                                     {"c", 1000, 0, 30, -1, "FAILED"},
                                     {"d", 7, 0, 40, -1, "live"}};
    auto curve = rdrMemoryCurve(rows);
    ASSERT_EQ(curve.size(), 3u);
    EXPECT_EQ(curve[0].timeNs, 10);
    EXPECT_EQ(curve[0].bytes, 100);
    EXPECT_EQ(curve[1].bytes, 150);
    EXPECT_EQ(curve[2].timeNs, 40);
    EXPECT_EQ(curve[2].bytes, 57);
}

TEST(RdrRecorder, ModeOneSkipsNormalEndModeTwoExports) {
    const fs::path root1 = ts::test::tempDir("rdr_mode1");
    RunningDataRecorder r1;
    ts::rdr::test::recordSampleRun(r1, root1.string(), 1);
    ASSERT_TRUE(r1.onRunEnd(false, kReasonNormalEnd, ""));
    EXPECT_EQ(r1.exportCount(), 0);
    EXPECT_FALSE(fs::exists(root1 / "rank_0"));

    const fs::path root2 = ts::test::tempDir("rdr_mode2");
    RunningDataRecorder r2;
    ts::rdr::test::recordSampleRun(r2, root2.string(), 2);
    ASSERT_TRUE(r2.onRunEnd(false, kReasonNormalEnd, ""));
    EXPECT_EQ(r2.exportCount(), 1);
    RdrExport e = expectComplete(root2);
    EXPECT_EQ(e.reason, "normal_end");
    EXPECT_EQ(e.mode, 2);
}

TEST(RdrRecorder, DisabledNeverWrites) {
    const fs::path root = ts::test::tempDir("rdr_off");
    RunningDataRecorder r;
    ts::rdr::test::recordSampleRun(r, root.string(), 2);
    RdrConfig c = r.config();
    c.enable = false;
    r.configure(c);
    EXPECT_TRUE(r.onRunEnd(true, kReasonNanLoss, ""));  // nothing to do is not an error
    EXPECT_FALSE(r.exportNow(kReasonNanLoss, "").ok());
    EXPECT_FALSE(fs::exists(root / "rank_0"));
}

TEST(RdrRecorder, RecordsAreBoundedAndKeepTheNewest) {
    const fs::path root = ts::test::tempDir("rdr_bounds");
    RdrLimits lim;
    lim.opsPerStep = 4;
    lim.allocations = 3;
    lim.logLines = 2;
    lim.irBytes = 16;
    RunningDataRecorder r(lim);
    r.configure({true, 1, root.string(), 2});
    r.setGraphIr(std::string(100, 'x'));
    r.beginStep(1, 5);
    for (int i = 0; i < 10; ++i) {
        r.recordOp(i, "Op\twith\ttabs", "scope" + std::to_string(i), {}, {});
        r.recordAlloc("t" + std::to_string(i), 8, 0, i);
        r.addLogLine("line\n" + std::to_string(i));
    }
    ASSERT_TRUE(r.exportNow("bounded", ""));
    auto e = readRdrExport(root.string());
    ASSERT_TRUE(e.ok()) << e.error();
    EXPECT_EQ(e->folder, (root / "rank_2" / "rdr").string());
    EXPECT_EQ(e->rankId, 2);
    EXPECT_EQ(e->graphIr.size(), 16u);
    ASSERT_EQ(e->current.rows.size(), 4u);
    EXPECT_EQ(e->current.totalOps, 10u);
    EXPECT_EQ(e->current.rows.front().seqid, 6);
    EXPECT_EQ(e->current.rows.front().op, "Op with tabs");
    EXPECT_EQ(e->failingOp, "scope9");
    ASSERT_EQ(e->allocations.size(), 3u);
    EXPECT_EQ(e->allocations.front().tensor, "t7");
    ASSERT_EQ(e->logLines.size(), 2u);
    EXPECT_EQ(e->logLines.back(), "line 9");
}

TEST(RdrRecorder, IndexIsValidJsonWithEscapes) {
    const fs::path root = ts::test::tempDir("rdr_escape");
    RunningDataRecorder r;
    ts::rdr::test::recordSampleRun(r, root.string(), 1);
    ASSERT_TRUE(r.exportNow("op_exception: \"bad\" \\ value\n", "x"));
    std::ifstream in(root / "rank_0/rdr" / kIndexFile);
    std::string text((std::istreambuf_iterator<char>(in)), {});
    rapidjson::Document d;
    d.Parse(text.c_str());
    ASSERT_FALSE(d.HasParseError()) << text;
    EXPECT_STREQ(d["reason"].GetString(), "op_exception: \"bad\" \\ value\n");
    EXPECT_EQ(d["failing_seqid"].GetInt(), -1);
    EXPECT_EQ(std::string(d["time"].GetString()).size(), 24u);
}

TEST(RdrReader, ErrorsAndFolderDiscovery) {
    const fs::path empty = ts::test::tempDir("rdr_none");
    auto none = readRdrExport(empty.string());
    ASSERT_FALSE(none.ok());
    EXPECT_NE(none.error().find("no RDR export"), std::string::npos);
    EXPECT_FALSE(readRdrExport((empty / "missing").string()).ok());

    const fs::path root = ts::test::tempDir("rdr_find");
    RunningDataRecorder r;
    ts::rdr::test::recordSampleRun(r, root.string(), 1);
    ASSERT_TRUE(r.exportNow("x", ""));
    const fs::path dir = root / "rank_0/rdr";
    EXPECT_EQ(findRdrFolders(root.string()), std::vector<std::string>{dir.string()});
    EXPECT_EQ(findRdrFolders(dir.string()), std::vector<std::string>{dir.string()});
    EXPECT_EQ(findRdrFolders((dir / kIndexFile).string()), std::vector<std::string>{dir.string()});
    EXPECT_TRUE(findRdrFolders((dir / kLogFile).string()).empty());

    // A lost file is a problem, not a failure; a broken index is an error.
    fs::remove(dir / kMemoryFile);
    auto partial = readRdrExport(root.string());
    ASSERT_TRUE(partial.ok());
    ASSERT_EQ(partial->problems.size(), 1u);
    EXPECT_NE(partial->problems[0].find(kMemoryFile), std::string::npos);
    std::ofstream(dir / kIndexFile) << "{ broken";
    EXPECT_FALSE(readRdrExport(root.string()).ok());
}

TEST(RdrCli, PrintsSummaryJsonAndErrors) {
    const fs::path root = ts::test::tempDir("rdr_cli");
    RunningDataRecorder r;
    ts::rdr::test::recordSampleRun(r, root.string(), 1);
    ASSERT_TRUE(r.exportNow(kReasonNanLoss, ""));
    auto res = ts::test::runCli({"rdr", root.string(), "--json"});
    ASSERT_EQ(res.exitCode, 0) << res.err;
    rapidjson::Document d;
    d.Parse(res.out.c_str());
    ASSERT_TRUE(d.IsObject()) << res.out;
    EXPECT_STREQ(d["reason"].GetString(), "nan_loss");
    EXPECT_STREQ(d["failing_op"].GetString(), "Default/network/Softmax-op2");
    EXPECT_EQ(d["epoch"].GetInt(), 0);
    EXPECT_EQ(d["step"].GetInt(), 2);
    ASSERT_TRUE(d["files"].IsArray());
    EXPECT_EQ(d["files"].Size(), 5u);

    auto text = ts::test::runCli({"rdr", (root / "rank_0/rdr").string()});
    EXPECT_EQ(text.exitCode, 0);
    EXPECT_NE(text.out.find("Softmax-op2"), std::string::npos);

    auto bad = ts::test::runCli({"rdr", ts::test::tempDir("rdr_cli_none").string(), "--json"});
    EXPECT_EQ(bad.exitCode, 1);
    EXPECT_NE(bad.out.find("no RDR export"), std::string::npos) << bad.out;
}

}  // namespace

namespace {

TEST(RdrReader, MemoryCurveLiftedToThePoolsBytesInUse) {
    // Only the last allocations are kept: 1000 bytes were live before the first kept row.
    const std::vector<RdrAllocRow> rows = {{"a", 100, 64, 10, 40, "freed"},
                                           {"b", 50, 128, 20, -1, "live"}};
    const auto curve = rdrMemoryCurve(rows, 1050);
    ASSERT_FALSE(curve.empty());
    EXPECT_EQ(curve.front().bytes, 1000);
    EXPECT_EQ(curve.back().bytes, 1050);
    EXPECT_EQ(curve.back().timeNs, 40);
    int64_t peak = 0;
    for (const auto& p : curve) peak = std::max(peak, p.bytes);
    EXPECT_EQ(peak, 1150);
    // Without the pool's figure, or when the table explains it all, nothing is added.
    EXPECT_EQ(rdrMemoryCurve(rows).back().bytes, 50);
    EXPECT_EQ(rdrMemoryCurve(rows, 50).front().bytes, 100);
}

TEST(RdrRecorder, FailingOpFoundInThePreviousStepAndDetailKept) {
    const fs::path root = ts::test::tempDir("rdr_prev");
    RunningDataRecorder r;
    ts::rdr::test::recordSampleRun(r, root.string(), 1);
    r.beginStep(0, 3);
    r.recordOp(30, "Cast", "Default/network/Cast-op0", std::string_view("[32,10]:Float32"), "");
    r.setLastOpOutputs("[32,10]:Float16");
    const std::string detail = "loss is NaN at epoch 0 step 3; \"quoted\"\nsecond line";
    ASSERT_TRUE(r.exportNow(kReasonNanLoss, "Default/network/fc1/Add-op1", detail));
    auto e = readRdrExport(root.string());
    ASSERT_TRUE(e.ok()) << e.error();
    EXPECT_EQ(e->detail, detail);
    EXPECT_EQ(e->failingStep, 2);
    EXPECT_EQ(e->failingSeqid, 21);
    EXPECT_EQ(e->failingRow(), -1);
    EXPECT_EQ(e->failingPreviousRow(), 1);
    ASSERT_EQ(e->current.rows.size(), 1u);
    EXPECT_EQ(e->current.rows[0].outputs, "[32,10]:Float16");
    // The graph IR grows by appending (the engine observer appends op lines).
    r.appendGraphIr("%9(Cast-op0) = Cast(%2)\n");
    ASSERT_TRUE(r.exportNow(kReasonNanLoss, ""));
    e = readRdrExport(root.string());
    ASSERT_TRUE(e.ok());
    EXPECT_NE(e->graphIr.find("Softmax-op2\n%9(Cast-op0) = Cast(%2)\n"), std::string::npos);
    EXPECT_EQ(e->failingOp, "Default/network/Cast-op0");  // the op in flight
    EXPECT_EQ(e->failingStep, 3);
    EXPECT_EQ(e->detail, "");
}

}  // namespace
