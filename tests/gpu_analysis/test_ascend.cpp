// Ascend's and MindSpore's profiler folders: the real kernel_details.csv (AI Core / AI Vector
// figures) and trace_view.json of torch_npu, MindSpore 1.x's profiler tables, and the tables
// no real file of the corpus holds, written here in their writers' layouts (ascend_samples.h);
// a whole ASCEND_PROFILER_OUTPUT folder imported at once, and msprof-analyze's cluster outputs
// into the cluster analysis.
#include <gtest/gtest.h>

#include <cmath>
#include <fstream>
#include <map>

#include "core/analysis/cluster/cluster_analysis.h"
#include "core/analysis/gpu/ascend_tables.h"
#include "core/analysis/gpu/kernel_table.h"
#include "core/analysis/profile/profile_report.h"
#include "importers/ascend/ascend_files.h"
#include "importers/batch_import.h"
#include "importers/common/csv_table.h"
#include "tests/gpu_analysis/ascend_samples.h"
#include "tests/gpu_analysis/gpu_fixture.h"

using namespace ts::analysis::gpu;
namespace fs = std::filesystem;
namespace asc = ts::importers::ascend;

namespace {

void write(const fs::path& p, const std::string& text) {
    fs::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
}

/// A torch_npu profiler folder: <name>_ascend_pt/ASCEND_PROFILER_OUTPUT with the real
/// kernel_details.csv and trace_view.json and the written tables.
fs::path makeAscendFolder() {
    const fs::path root = ts::test::tempDir("ascend_pt") / "host_1234_20250109_ascend_pt";
    const fs::path out = root / "ASCEND_PROFILER_OUTPUT";
    fs::create_directories(out);
    fs::copy_file(ts::test::corpusFile("real/ascend/kernel_details.csv"),
                  out / "kernel_details.csv");
    fs::copy_file(ts::test::corpusFile("real/ascend/trace_view.json"), out / "trace_view.json");
    write(out / "step_trace_time.csv", ts::test::ascend::kStepTraceTime);
    write(out / "op_statistic.csv", ts::test::ascend::kOpStatistic);
    write(out / "npu_module_mem.csv", ts::test::ascend::kNpuModuleMem);
    write(out / "communication.json", ts::test::ascend::kCommunication);
    write(out / "communication_matrix.json", ts::test::ascend::kCommunicationMatrix);
    write(root / "profiler_info.json", "{}");  // not ours: left alone
    return root;
}

std::unique_ptr<ts::store::TraceStore> importFolder(const fs::path& folder,
                                                    ts::importers::BatchImport* out) {
    auto s = ts::store::TraceStore::open((folder.parent_path() / "s.tscope").string(),
                                         ts::store::TraceStore::Mode::Create);
    EXPECT_TRUE(s.ok());
    ts::JobControl jc;
    *out = ts::importers::importFiles({folder.string()}, *s.value(), jc);
    return std::move(s.value());
}

}  // namespace

TEST(AscendFiles, RecognisesTheFoldersAndTheirFiles) {
    using asc::AscendFile;
    EXPECT_EQ(asc::ascendFileKind("kernel_details.csv"), AscendFile::KernelDetails);
    EXPECT_EQ(asc::ascendFileKind("/x/ASCEND_PROFILER_OUTPUT/communication_matrix.json"),
              AscendFile::CommunicationMatrix);
    EXPECT_EQ(asc::ascendFileKind("ascend_pytorch_profiler_0.db"), AscendFile::ProfilerDb);
    EXPECT_EQ(asc::ascendFileKind("aicore_intermediate_1_detail.csv"), AscendFile::MsAicoreDetail);
    EXPECT_EQ(asc::ascendFileKind("ascend_timeline_display_1.json"), AscendFile::MsTimeline);
    EXPECT_EQ(asc::ascendFileKind("cluster_step_trace_time.csv"), AscendFile::ClusterStepTraceTime);
    EXPECT_EQ(asc::ascendFileKind("notes.csv"), AscendFile::Unknown);
    EXPECT_EQ(asc::ascendCsvKindByHeader(
                  "Step Id,Model ID,Task ID,Stream ID,Name,Type,OP State,Accelerator Core,"
                  "Start Time(us),Duration(us)"),
              AscendFile::KernelDetails);
    EXPECT_EQ(asc::ascendCsvKindByHeader("OP Type,Core Type,Count,Total Time(us),Min Time(us)"),
              AscendFile::OpStatistic);
    TS_REQUIRE_CORPUS();
    const fs::path root = makeAscendFolder();
    EXPECT_TRUE(asc::isAscendProfilerFolder(root.string()));
    const auto files = asc::ascendProfilerFiles(root.string());
    ASSERT_EQ(files.size(), 7u);
    EXPECT_EQ(fs::path(files[0]).filename(), "trace_view.json");     // traces first
    EXPECT_EQ(fs::path(files[1]).filename(), "kernel_details.csv");  // then kernels
    EXPECT_FALSE(asc::isAscendProfilerFolder(ts::test::tempDir("empty").string()));
    // MindSpore 1.x's profiler folder (the corpus's own).
    EXPECT_TRUE(asc::isAscendProfilerFolder(ts::test::corpusFile("real/mindspore").string()));
}

TEST(AscendImport, RealKernelDetailsIntoTheKernelTableWithAiCoreFigures) {
    TS_REQUIRE_CORPUS();
    const fs::path file = ts::test::corpusFile("real/ascend/kernel_details.csv");
    auto& store = ts::test::importedSession(file);
    auto sources = store.sources();
    ASSERT_TRUE(sources.ok());
    ASSERT_EQ(sources.value().size(), 1u);
    EXPECT_EQ(sources.value()[0].kind, "ascend_profiler");
    // Every row of the file, read apart here.
    auto lines = ts::importers::csv::readLines(file.string());
    ASSERT_TRUE(lines.ok());
    const auto header = ts::splitCsvLine(lines.value().front());
    const int nameCol = ts::importers::csv::exactColumn(header, "Name"),
              durCol = ts::importers::csv::column(header, "Duration("),
              macCol = ts::importers::csv::exactColumn(header, "aic_mac_ratio"),
              mte2Col = ts::importers::csv::exactColumn(header, "aic_mte2_ratio"),
              coreCol = ts::importers::csv::exactColumn(header, "Accelerator Core");
    ASSERT_GE(macCol, 0);
    std::map<std::string, std::pair<double, double>> macByName;  // sum of ratio x dur, dur
    std::map<std::string, std::pair<double, double>> mte2ByName;
    std::map<std::string, std::string> core;
    std::map<std::string, int64_t> calls;
    for (size_t i = 1; i < lines.value().size(); ++i) {
        const ts::importers::csv::Row r{ts::splitCsvLine(lines.value()[i])};
        const std::string& n = r.text(nameCol);
        const double d = std::max(0.001, *r.get(durCol));
        macByName[n].first += r.get(macCol).value_or(0) * d;
        macByName[n].second += d;
        mte2ByName[n].first += r.get(mte2Col).value_or(0) * d;
        mte2ByName[n].second += d;
        core[n] = r.text(coreCol);
        ++calls[n];
    }
    const GpuTrace g = ts::test::loadTrace(file);
    EXPECT_EQ(g.vendor, Vendor::Ascend);
    ASSERT_EQ(g.activities.size(), lines.value().size() - 1);
    const KernelTable t = buildKernelTable(g);
    EXPECT_TRUE(t.hasPipeline);
    ASSERT_FALSE(t.pipelineColumns.empty());
    EXPECT_NE(std::find(t.pipelineColumns.begin(), t.pipelineColumns.end(), "aic_mac_ratio"),
              t.pipelineColumns.end());
    ASSERT_EQ(t.rows.size(), macByName.size());
    for (const KernelRow& row : t.rows) {
        SCOPED_TRACE(row.name);
        EXPECT_EQ(row.calls, calls[row.name]);
        EXPECT_EQ(row.acceleratorCore, core[row.name]);
        const double mac = macByName[row.name].first / macByName[row.name].second;
        const double mte2 = mte2ByName[row.name].first / mte2ByName[row.name].second;
        ASSERT_TRUE(row.pipeline.count("aic_mac_ratio"));
        EXPECT_NEAR(row.pipeline.at("aic_mac_ratio"), mac, 1e-3);
        if (row.acceleratorCore == "AI_CORE" && (mac > 0 || mte2 > 0)) {
            EXPECT_FALSE(row.bound.empty());
        }
        // Ascend's own Input Shapes, without torch_npu's inner quotes ("""81920,4096;...""").
        ASSERT_FALSE(row.inputShapes.empty());
        EXPECT_NE(row.inputShapes.front(), '"') << row.inputShapes;
    }
    // The CSV export carries the Ascend columns.
    const std::string csv = kernelTableCsv(t);
    EXPECT_NE(csv.find(",accelerator core,block dim,bound,"), std::string::npos);
    EXPECT_NE(csv.find("aic_mac_ratio"), std::string::npos);
}

TEST(AscendImport, RealTraceViewIsAnAscendDeviceTrace) {
    TS_REQUIRE_CORPUS();
    const GpuTrace g = ts::test::loadTrace(ts::test::corpusFile("real/ascend/trace_view.json"));
    EXPECT_EQ(g.vendor, Vendor::Ascend);
    EXPECT_FALSE(g.activities.empty());
    auto& store = ts::test::importedSession(ts::test::corpusFile("real/ascend/trace_view.json"));
    auto r = ts::analysis::analyzeProfile(store, std::nullopt, std::nullopt);
    ASSERT_TRUE(r.ok()) << r.error();
    EXPECT_EQ(r.value().device, "ascend");
    for (const auto& f : r.value().advice) EXPECT_EQ(f.device, "ascend") << f.title;
}

TEST(AscendImport, AProfilerFolderAtOnce) {
    TS_REQUIRE_CORPUS();
    const fs::path root = makeAscendFolder();
    ts::importers::BatchImport batch;
    auto store = importFolder(root, &batch);
    ASSERT_EQ(batch.reports.size(), 7u);
    for (const auto& rep : batch.reports)
        EXPECT_EQ(rep.status, ts::store::SourceStatus::Complete) << rep.path << ": " << rep.error;
    // Every file of the folder has a fate: the seven read, the profiler's own metadata and
    // its SQLite export skipped with the reason.
    write(root / "ASCEND_PROFILER_OUTPUT" / "ascend_pytorch_profiler_0.db", "SQLite format 3");
    auto other = ts::store::TraceStore::open((root.parent_path() / "again.tscope").string(),
                                             ts::store::TraceStore::Mode::Create);
    ASSERT_TRUE(other.ok());
    ts::JobControl jc;
    const auto again = ts::importers::importFiles({root.string()}, *other.value(), jc);
    std::map<std::string, ts::importers::FileFate> fates;
    for (const auto& f : again.files) fates[fs::path(f.path).filename().string()] = f;
    ASSERT_EQ(again.files.size(), 9u);
    EXPECT_EQ(fates["trace_view.json"].fate, ts::importers::Fate::Imported);
    EXPECT_EQ(fates["kernel_details.csv"].fate, ts::importers::Fate::Imported);
    EXPECT_EQ(fates["profiler_info.json"].fate, ts::importers::Fate::Skipped);
    EXPECT_NE(fates["profiler_info.json"].detail.find("profiler's own"), std::string::npos);
    EXPECT_EQ(fates["ascend_pytorch_profiler_0.db"].fate, ts::importers::Fate::Skipped);
    EXPECT_NE(fates["ascend_pytorch_profiler_0.db"].detail.find("SQLite export"),
              std::string::npos);
    auto tablesR = loadAscendTables(*store);
    ASSERT_TRUE(tablesR.ok()) << tablesR.error();
    const AscendTables& t = tablesR.value();
    // step_trace_time.csv, as written.
    const auto steps = ascendSteps(t, false);
    ASSERT_EQ(steps.size(), 2u);
    EXPECT_EQ(steps[0].step, "1");
    EXPECT_DOUBLE_EQ(steps[0].computing, 8000.5);
    EXPECT_DOUBLE_EQ(steps[0].commNotOverlapped, 1200.25);
    EXPECT_DOUBLE_EQ(steps[0].communication, 1500.25);  // the column itself, not a prefix match
    EXPECT_DOUBLE_EQ(steps[0].free, 450.75);
    EXPECT_DOUBLE_EQ(steps[1].total(), 7900 + 1000 + 400);
    // op_statistic.csv kept whole.
    const AscendTable* ops = t.table("op_statistic");
    ASSERT_NE(ops, nullptr);
    ASSERT_EQ(ops->text.size(), 2u);
    EXPECT_EQ(ops->text[0][0], "MatMulV2");
    EXPECT_DOUBLE_EQ(*ops->numbers[0][static_cast<size_t>(ops->column("Total Time("))], 7464.2);
    // communication.json: the file's own "Total Op Info" is left out, ratios recomputed.
    ASSERT_EQ(t.ops.size(), 3u);
    const auto comm = summarizeAscendComm(t, false);
    ASSERT_EQ(comm.size(), 2u);
    const AscendCommSummary& ar = comm[0];  // the all-reduce: 4 ms elapse, the most
    EXPECT_EQ(ar.opType, "hcom_allReduce");
    EXPECT_EQ(ar.calls, 2);
    EXPECT_DOUBLE_EQ(ar.elapseMs, 4.0);
    EXPECT_DOUBLE_EQ(ar.waitMs, 1.0);
    EXPECT_DOUBLE_EQ(ar.waitRatio, 1.0 / (1.0 + 2.5));  // wait / (wait + transit)
    EXPECT_DOUBLE_EQ(ar.syncRatio, 0.25 / (0.25 + 2.5));
    ASSERT_TRUE(ar.links.count("HCCS"));
    EXPECT_DOUBLE_EQ(ar.links.at("HCCS").sizeMb, 40.0);
    EXPECT_DOUBLE_EQ(ar.links.at("HCCS").bandwidthGBs, 40.0 / 2.5);
    EXPECT_EQ(comm[1].opType, "hcom_send");
    // communication_matrix.json: links summed per (src, dst).
    const auto m = ascendMatrix(t, false);
    ASSERT_EQ(m.size(), 2u);
    EXPECT_EQ(m[0].src, "0");
    EXPECT_EQ(m[0].dst, "1");
    EXPECT_DOUBLE_EQ(m[0].sizeMb, 20.0);
    EXPECT_DOUBLE_EQ(m[0].bandwidthGBs, 20.0 / 1.0);
    EXPECT_EQ(m[0].transport, "HCCS");
    // analyze --json carries it all, and the advice names the NPU.
    const auto r =
        ts::test::runCli({"analyze", (root.parent_path() / "s.tscope").string(), "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    rapidjson::Document doc;
    ASSERT_FALSE(doc.Parse(r.out.c_str()).HasParseError());
    EXPECT_STREQ(doc["device"].GetString(), "ascend");
    ASSERT_TRUE(doc["ascend"].IsObject());
    EXPECT_EQ(doc["ascend"]["steps"].Size(), 2u);
    EXPECT_EQ(doc["ascend"]["communication"].Size(), 2u);
    EXPECT_EQ(doc["ascend"]["matrix"].Size(), 2u);
}

TEST(AscendImport, MindSpore1xProfilerTables) {
    TS_REQUIRE_CORPUS();
    struct Case {
        const char* file;
        const char* table;
    };
    for (const Case c : {Case{"aicore_intermediate_1_detail.csv", "aicore_intermediate_detail"},
                         Case{"aicore_intermediate_1_type.csv", "aicore_intermediate_type"},
                         Case{"framework_raw_0.csv", "framework_raw"}, Case{"flops_0.txt", "flops"},
                         Case{"minddata_pipeline_raw_0.csv", "minddata_pipeline_raw"}}) {
        SCOPED_TRACE(c.file);
        const fs::path file = ts::test::corpusFile(std::string("real/mindspore/") + c.file);
        auto lines = ts::importers::csv::readLines(file.string());
        ASSERT_TRUE(lines.ok());
        auto& store = ts::test::importedSession(file);
        auto t = loadAscendTables(store);
        ASSERT_TRUE(t.ok());
        const AscendTable* tab = t.value().table(c.table);
        ASSERT_NE(tab, nullptr);
        EXPECT_EQ(tab->text.size(), lines.value().size() - 1);
        EXPECT_EQ(tab->header, ts::splitCsvLine(lines.value().front()));
    }
}

TEST(AscendImport, ClusterOutputsOfMsprofAnalyzeIntoTheClusterAnalysis) {
    const fs::path dir = ts::test::tempDir("msprof_cluster") / "cluster_analysis_output";
    write(dir / "cluster_step_trace_time.csv", ts::test::ascend::kClusterStepTraceTime);
    write(dir / "cluster_communication.json", ts::test::ascend::kClusterCommunication);
    write(dir / "cluster_communication_matrix.json", ts::test::ascend::kCommunicationMatrix);
    const auto r = ts::test::runCli({"cluster", dir.string(), "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    rapidjson::Document doc;
    ASSERT_FALSE(doc.Parse(r.out.c_str()).HasParseError()) << r.out;
    ASSERT_EQ(doc["ranks"].Size(), 2u);  // the stage row is not a rank
    const auto& r0 = doc["ranks"][0];
    EXPECT_EQ(r0["rank"].GetInt64(), 0);
    EXPECT_EQ(r0["steps"].GetInt64(), 2);
    EXPECT_STREQ(r0["rank_from"].GetString(), "cluster_step_trace_time.csv");
    // Step = Computing + Communication(Not Overlapped) + Free; per-step means in ms.
    EXPECT_NEAR(r0["step_ms_mean"].GetDouble(),
                ((8000 + 1000 + 500) + (8100 + 900 + 400)) / 2.0 / 1000.0, 1e-3);
    EXPECT_NEAR(r0["compute_ms"].GetDouble(), (8000 + 8100) / 2.0 / 1000.0, 1e-3);
    EXPECT_NEAR(r0["comm_ms"].GetDouble(), (1500 + 1300) / 2.0 / 1000.0, 1e-3);
    EXPECT_NEAR(r0["idle_ms"].GetDouble(), (500 + 400) / 2.0 / 1000.0, 1e-3);
    // Rank 1 computes longer and waits less: the others wait for it.
    EXPECT_EQ(doc["slowest_rank"].GetInt64(), 1);
    // The cluster's communication per rank, through the session's tables.
    auto t = ts::store::TraceStore::open((dir.parent_path() / "s.tscope").string(),
                                         ts::store::TraceStore::Mode::Create);
    ASSERT_TRUE(t.ok());
    ts::JobControl jc;
    const auto batch = ts::importers::importFiles({dir.string()}, *t.value(), jc);
    ASSERT_EQ(batch.reports.size(), 3u);
    auto tables = loadAscendTables(*t.value());
    ASSERT_TRUE(tables.ok());
    ASSERT_EQ(tables.value().ops.size(), 2u);
    EXPECT_EQ(tables.value().ops[0].rank, 0);
    EXPECT_EQ(tables.value().ops[0].group, "7364519842012773316");
    const auto comm = summarizeAscendComm(tables.value(), true);
    ASSERT_EQ(comm.size(), 1u);
    EXPECT_DOUBLE_EQ(comm[0].waitMs, 1.6);
}

TEST(AscendImport, BrokenTablesFailWithAClearError) {
    const fs::path dir = ts::test::tempDir("ascend_bad");
    write(dir / "communication.json", "{\"step1\": [1, 2");
    write(dir / "kernel_details.csv", "Name,Type,Accelerator Core\nx,y,AI_CORE\n");
    write(dir / "step_trace_time.csv", "Step,Computing,Communication(Not Overlapped)\n");
    auto s = ts::store::TraceStore::open((dir / "s.tscope").string(),
                                         ts::store::TraceStore::Mode::Create);
    ASSERT_TRUE(s.ok());
    ts::JobControl jc;
    for (const char* f : {"communication.json", "kernel_details.csv", "step_trace_time.csv"}) {
        const auto rep = ts::importers::importFile((dir / f).string(), *s.value(), jc);
        EXPECT_EQ(rep.status, ts::store::SourceStatus::Failed) << f;
        EXPECT_FALSE(rep.error.empty()) << f;
    }
    // The session stays readable.
    auto t = loadAscendTables(*s.value());
    EXPECT_TRUE(t.ok());
    EXPECT_TRUE(t.value().empty());
}
