// MindSpore dump folders as MindSpore writes them: the rank/net/graph/iteration levels, .npy
// names of MindSpore 1.x and 2.x, statistic.csv (with and without tensors), mapping.csv for
// long names, async "bin" files listed as skipped, execution order giving full names; NaN/Inf
// found per tensor; comparisons MindSpore vs MindSpore and MindSpore vs the studio's HDF5 dump.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/debug/dump_source.h"
#include "core/debug/dump_writer.h"
#include "core/debug/msdump/ms_dump.h"
#include "tests/common/mindspore_dump_fixtures.h"
#include "tests/common/test_support.h"

using namespace ts;
namespace ms = ts::debug::msdump;
namespace fs = std::filesystem;

TEST(MsDump, FileNamesOfBothVersions) {
    auto a =
        ms::parseFileName("Conv2d.Conv2D-op12.0.0.1623124369613540.output.0.DefaultFormat.npy");
    ASSERT_TRUE(a);
    EXPECT_EQ(a->opType, "Conv2d");
    EXPECT_EQ(a->opName, "Conv2D-op12");
    EXPECT_EQ(a->io, "output");
    EXPECT_EQ(a->slot, 0);
    EXPECT_EQ(a->format, "DefaultFormat");
    EXPECT_EQ(a->dtype, "");
    auto b = ms::parseFileName(
        "Sub.Default_network-WithLossCell__backbone-Net_Sub-op0.3.7.1733905446819790.input.1."
        "DefaultFormat.float32.npy");
    ASSERT_TRUE(b);
    EXPECT_EQ(b->opName, "Default_network-WithLossCell__backbone-Net_Sub-op0");
    EXPECT_EQ(b->taskId, 3);
    EXPECT_EQ(b->streamId, 7);
    EXPECT_EQ(b->slot, 1);
    EXPECT_EQ(b->dtype, "float32");
    auto c = ms::parseFileName("Parameter.data-1.0.0.1623124369613540.output.0.DefaultFormat.npy");
    ASSERT_TRUE(c);
    EXPECT_EQ(c->opType, "Parameter");
    EXPECT_EQ(c->opName, "data-1");
    auto bin = ms::parseFileName(
        "Conv2D.Default_network-WithLossCell__backbone-AlexNet_conv3-Conv2d_Conv2D-op12.2.7."
        "161243956333802");
    ASSERT_TRUE(bin);
    EXPECT_FALSE(bin->npy);
    EXPECT_EQ(bin->timestamp, 161243956333802u);
    EXPECT_FALSE(ms::parseFileName("statistic.csv"));
    EXPECT_FALSE(ms::parseFileName("notes.txt"));
}

TEST(MsDump, IterationInExecutionOrderWithFullNames) {
    const auto root = test::tempDir("msdump_iter");
    const auto dir = test::writeMindSporeDump(root, 0, "LeNet", 0, 3, test::lenetOps());
    // An async device-format file and a renamed long name beside the tensors.
    test::writeFile(dir / "MatMul.Default_fc2_MatMul-op9.2.7.1700000000009999", "device bytes");
    const std::string longName =
        "Cast.Default_Cast-op77.0.0.1700000000003999.output.0.DefaultFormat.float32.npy";
    test::writeFile(dir / "123456", test::npyBytes("<f4", {2}, test::f32Bytes({1, 2})));
    test::writeFile(dir / "mapping.csv", "123456," + longName + "\n");
    auto tree = ms::scanTree(root.string());
    ASSERT_TRUE(tree.ok()) << tree.error();
    ASSERT_EQ(tree->iterations.size(), 1u);
    EXPECT_EQ(tree->iterations[0].net, "LeNet");
    EXPECT_EQ(tree->iterations[0].iteration, 3);
    ASSERT_EQ(tree->executionOrderFiles.size(), 1u);
    auto order = ms::readExecutionOrder(tree->executionOrderFiles.begin()->second);
    ASSERT_TRUE(order.ok());
    ASSERT_EQ(order->size(), 4u);
    auto it = ms::readIteration(dir.string(), order.value());
    ASSERT_TRUE(it.ok()) << it.error();
    ASSERT_EQ(it->tensors.size(), 9u);  // 8 of LeNet's ops + the renamed Cast output
    EXPECT_EQ(it->tensors[0].fullName,
              "Default/network-WithLossCell/_backbone-LeNet5/conv1-Conv2d/Conv2D-op0");
    EXPECT_EQ(it->tensors[0].name.io, "input");
    EXPECT_EQ(it->tensors[1].name.io, "output");
    EXPECT_TRUE(it->tensors[0].stats.has_value());  // joined with its statistic.csv row
    EXPECT_EQ(it->tensors[0].path(), "Conv2D/0/input/0");
    bool cast = false;
    for (const auto& t : it->tensors)
        cast |= t.name.opType == "Cast" && fs::path(t.file).filename() == "123456";
    EXPECT_TRUE(cast);
    ASSERT_EQ(it->skipped.size(), 1u);
    EXPECT_NE(it->skipped[0].reason.find("msaccucmp"), std::string::npos);
    EXPECT_FALSE(it->statisticsOnly);
}

TEST(MsDump, StatisticsOnlyDumpAndNaNFromStatistics) {
    const auto root = test::tempDir("msdump_stats");
    const auto dir =
        test::writeMindSporeDump(root, 0, "Net", 1, 0, test::lenetOps(1.0f, true), true, true);
    auto it = ms::readIteration(dir.string());
    ASSERT_TRUE(it.ok()) << it.error();
    EXPECT_TRUE(it->statisticsOnly);
    ASSERT_EQ(it->tensors.size(), 8u);
    int first = -1;
    for (size_t i = 0; i < it->tensors.size(); ++i) {
        auto nf = ms::nonFiniteOf(it->tensors[i]);
        ASSERT_TRUE(nf.ok());
        EXPECT_TRUE(nf->known);
        if (nf->nan && first < 0) first = static_cast<int>(i);
    }
    ASSERT_GE(first, 0);
    EXPECT_EQ(it->tensors[static_cast<size_t>(first)].name.opType, "ReLU");
    EXPECT_EQ(it->tensors[static_cast<size_t>(first)].name.io, "output");
}

TEST(MsDump, NaNFromTheNpyFiles) {
    const auto root = test::tempDir("msdump_nan");
    const auto dir =
        test::writeMindSporeDump(root, 0, "Net", 0, 1, test::lenetOps(1.0f, true), false);
    auto it = ms::readIteration(dir.string());
    ASSERT_TRUE(it.ok());
    std::vector<std::string> hits;
    for (const auto& t : it->tensors) {
        auto nf = ms::nonFiniteOf(t);
        ASSERT_TRUE(nf.ok()) << nf.error();
        EXPECT_FALSE(nf->fromStatistics);
        if (nf->nan) hits.push_back(t.path());
    }
    // ReLU's output and MatMul's input (the same tensor) hold the NaN.
    EXPECT_EQ(hits, (std::vector<std::string>{"ReLU/0/output/0", "MatMul/0/input/0"}));
}

TEST(MsDump, CompareTwoIterationsFindsTheRootCause) {
    const auto root = test::tempDir("msdump_cmp");
    const auto a = test::writeMindSporeDump(root / "a", 0, "Net", 0, 1, test::lenetOps(1.5f));
    const auto b = test::writeMindSporeDump(root / "b", 0, "Net", 0, 1, test::lenetOps(1.0f));
    debug::CompareThresholds t;
    auto rep = debug::compareAnyDumps(a.string(), b.string(), t, {});
    ASSERT_TRUE(rep.ok()) << rep.error();
    EXPECT_EQ(rep->pairs.size(), 8u);
    EXPECT_TRUE(rep->unmatchedA.empty());
    // The cosine rule is blind to a scale; a max relative error is not.
    EXPECT_FALSE(rep->firstDivergent);
    debug::CompareThresholds strict;
    strict.maxRel = 0.01;
    auto rep2 = debug::compareAnyDumps(a.string(), b.string(), strict, {});
    ASSERT_TRUE(rep2.ok());
    ASSERT_TRUE(rep2->firstDivergent);
    EXPECT_EQ(rep2->pairs[*rep2->firstDivergent].tensor.path, "MatMul/0/output/0");
    ASSERT_TRUE(rep2->rootCause.unit);
    EXPECT_EQ(rep2->unitNamesA[*rep2->rootCause.unit], "MatMul/0");
    // A tree with several iterations must be named more precisely.
    test::writeMindSporeDump(root / "a", 0, "Net", 0, 2, test::lenetOps(1.0f));
    auto many = debug::compareAnyDumps((root / "a").string(), b.string(), t, {});
    ASSERT_FALSE(many.ok());
    EXPECT_NE(many.error().find("2 MindSpore dump iterations"), std::string::npos) << many.error();
}

TEST(MsDump, CompareAgainstTheStudiosHdf5DumpByScope) {
    const auto root = test::tempDir("msdump_h5");
    const auto ms = test::writeMindSporeDump(root / "ms", 0, "Net", 0, 1, test::lenetOps(1.0f));
    // The same ops as the engine dumps them: other op names (Conv2d, MatMul+BiasAdd), scopes.
    const std::string h5path = (root / "engine.h5").string();
    {
        debug::DumpWriter w;
        ASSERT_TRUE(w.open(h5path).ok());
        int64_t seq = 0;
        for (const auto& op : test::lenetOps(1.0f)) {
            debug::DumpTensorAttrs at;
            at.opType = op.type == "Conv2D" ? "Conv2d" : op.type;
            at.scope = op.fullName;
            at.globalSeq = seq++;
            const std::vector<int64_t> shape(op.shape.begin(), op.shape.end());
            for (size_t i = 0; i < op.inputs.size(); ++i)
                ASSERT_TRUE(w.writeTensor(at.opType, 0, "input", static_cast<int>(i),
                                          debug::DumpDType::F32, shape, op.inputs[i].data(), at)
                                .ok());
            for (size_t i = 0; i < op.outputs.size(); ++i)
                ASSERT_TRUE(w.writeTensor(at.opType, 0, "output", static_cast<int>(i),
                                          debug::DumpDType::F32, shape, op.outputs[i].data(), at)
                                .ok());
        }
        ASSERT_TRUE(w.close().ok());
    }
    debug::CompareThresholds t;
    // By path, Conv2D/0 and Conv2d/0 do not meet.
    auto byPath = debug::compareAnyDumps(ms.string(), h5path, t, {});
    ASSERT_TRUE(byPath.ok()) << byPath.error();
    EXPECT_EQ(byPath->pairs.size(), 6u);
    EXPECT_EQ(byPath->unmatchedA.size(), 2u);
    // Aligned by the layer their scopes name, everything pairs and agrees.
    debug::DumpPairOptions how;
    how.aligned = true;
    how.align.key = debug::DumpKey::Scope;
    auto aligned = debug::compareAnyDumps(ms.string(), h5path, t, how);
    ASSERT_TRUE(aligned.ok()) << aligned.error();
    EXPECT_GE(aligned->pairs.size(), 6u);
    for (const auto& p : aligned->pairs)
        EXPECT_TRUE(p.pass) << p.tensor.path << " vs " << p.pathB << ": " << p.error;
    for (const auto& p : aligned->pairs) EXPECT_NEAR(p.figures.cosine, 1.0, 1e-9) << p.tensor.path;
}

TEST(MsDump, StatisticsOnlyTensorsCannotBeCompared) {
    const auto root = test::tempDir("msdump_stats_cmp");
    const auto a =
        test::writeMindSporeDump(root / "a", 0, "Net", 0, 1, test::lenetOps(), true, true);
    const auto b = test::writeMindSporeDump(root / "b", 0, "Net", 0, 1, test::lenetOps());
    auto rep = debug::compareAnyDumps(a.string(), b.string(), {}, {});
    ASSERT_TRUE(rep.ok());
    ASSERT_FALSE(rep->pairs.empty());
    EXPECT_NE(rep->pairs[0].error.find("statistics only"), std::string::npos);
}

TEST(MsDump, StatisticCsvParsing) {
    std::vector<std::string> problems;
    auto rows = ms::parseStatisticCsv(
        "Op Type,Op Name,Task ID,Stream ID,Timestamp,IO,Slot,Data Size,Data Type,Shape,Max Value,"
        "Min Value,L2Norm Value\n"
        "Sub,Default_Sub-op0,0,0,1733905446819790,input,0,4,float32,\"()\",3,3,3,\n"
        "Add,Default/Add-op0,0,0,1733905446822806,output,0,16,float32,\"(2,2)\",nan,-inf,inf\n"
        "broken,line\n",
        &problems);
    ASSERT_TRUE(rows.ok()) << rows.error();
    ASSERT_EQ(rows->size(), 2u);
    EXPECT_EQ((*rows)[0].shape, "()");
    EXPECT_EQ((*rows)[1].shape, "(2,2)");
    EXPECT_TRUE(std::isnan(*(*rows)[1].max));
    EXPECT_TRUE(std::isinf(*(*rows)[1].min));
    EXPECT_EQ(problems.size(), 1u);
    EXPECT_FALSE(ms::parseStatisticCsv("not,a,header\n1,2,3\n").ok());
}
