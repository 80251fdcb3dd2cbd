// Memory in a session: the real PyTorch 2.11 Kineto trace (profile_memory=True) and the
// memory snapshot of the same process imported side by side — the snapshot aligned onto the
// trace's time by Kineto's baseTimeNanoseconds, the trace's live blocks at the peak named by
// op (no unnamed entries), memory by op and per device; Ascend's memory tables; the memory
// of two profiles side by side; and `trainscope-cli memory` on snapshots and sessions.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <filesystem>
#include <fstream>

#include "core/analysis/diff/memory_diff.h"
#include "core/analysis/profile/memory_analysis.h"
#include "core/analysis/profile/profile_data.h"
#include "core/analysis/profile/profile_report.h"
#include "core/common/csv.h"
#include "core/memory/op_memory.h"
#include "core/store/trace_store.h"
#include "importers/ascend_memory/ascend_memory_importer.h"
#include "importers/common/csv_table.h"
#include "importers/registry.h"
#include "tests/common/test_support.h"

namespace fs = std::filesystem;
using namespace ts;

namespace {

fs::path dataFile(const char* name) {
    return fs::path(TRAINSCOPE_SOURCE_DIR) / "tests" / "data" / "torch_memory" / name;
}

importers::ImportReport importInto(store::TraceStore& s, const fs::path& file) {
    JobControl jc;
    return importers::importFile(file.string(), s, jc);
}

rapidjson::Document parse(const std::string& text) {
    rapidjson::Document d;
    d.Parse(text.c_str());
    EXPECT_FALSE(d.HasParseError()) << text.substr(0, 400);
    return d;
}

struct Session {
    fs::path path;
    std::unique_ptr<store::TraceStore> store;
    int64_t kineto = 0, snapshot = 0;
};

/// The Kineto trace, then the snapshot of the same run, in one session.
Session trainSession(const char* tag) {
    Session s;
    s.path = test::tempDir(tag) / "s.tscope";
    auto st = store::TraceStore::open(s.path.string(), store::TraceStore::Mode::Create);
    EXPECT_TRUE(st.ok());
    s.store = std::move(st.value());
    const auto k = importInto(*s.store, dataFile("train_kineto.json.gz"));
    EXPECT_EQ(k.status, ts::store::SourceStatus::Complete) << k.error;
    s.kineto = k.sourceId;
    const auto m = importInto(*s.store, dataFile("train_snapshot.pickle"));
    EXPECT_EQ(m.kind, "torch_memory_snapshot");
    EXPECT_EQ(m.status, ts::store::SourceStatus::Complete) << m.error;
    s.snapshot = m.sourceId;
    return s;
}

}  // namespace

TEST(MemoryImport, SnapshotSitsBesideItsKinetoTrace) {
    Session s = trainSession("mem-import");
    auto srcs = s.store->sources();
    ASSERT_TRUE(srcs.ok());
    int64_t kMin = 0, kMax = 0, mMin = 0, mMax = 0;
    std::string stats;
    for (const auto& x : srcs.value()) {
        if (x.id == s.kineto) kMin = *x.tsMin, kMax = *x.tsMax;
        if (x.id == s.snapshot) {
            mMin = *x.tsMin;
            mMax = *x.tsMax;
            stats = x.stats;
        }
    }
    // Aligned by baseTimeNanoseconds: the trace (the 8 profiled steps) lies inside the snapshot
    // (history from the model's creation on), and the last allocator event of each — the same
    // free, seen by both — fall within 10 µs of each other.
    EXPECT_NE(stats.find("Kineto's baseTimeNanoseconds of source " + std::to_string(s.kineto)),
              std::string::npos)
        << stats;
    EXPECT_LT(mMin, kMin);
    EXPECT_GT(kMax, mMax);
    auto q = s.store->db().prepare(
        "SELECT max(i.ts) FROM instants i JOIN tracks t ON t.id = i.track_id JOIN strings n ON "
        "n.id = i.name_id WHERE t.source_id = ? AND n.str = '[memory]'");
    q.bind(1, s.kineto);
    ASSERT_TRUE(q.step());
    EXPECT_LT(std::llabs(mMax - q.int64(0)), 10'000) << mMax << " vs " << q.int64(0);
    // The snapshot's memory in the session: its peak is the timeline's.
    auto m = analysis::analyzeMemory(*s.store, s.snapshot, 10);
    ASSERT_TRUE(m.ok()) << m.error();
    EXPECT_EQ(m->origin, "counters");
    EXPECT_DOUBLE_EQ(m->peakBytes, 198642832.0);
    EXPECT_EQ(m->liveAtPeakCount, 57);
    bool leakNamed = false;
    for (const auto& l : m->topAtPeak) {
        EXPECT_FALSE(l.op.empty());
        leakNamed = leakNamed || l.op.find("keep_for_debug") != std::string::npos;
    }
    EXPECT_TRUE(leakNamed);
    // Both are profiles the Memory view lists (the trace has no ProfilerStep#N: memory makes it
    // one).
    auto list = analysis::listProfileSources(*s.store);
    ASSERT_TRUE(list.ok());
    EXPECT_EQ(list->size(), 2u);
}

TEST(MemoryImport, KinetoPeakListNamesItsOps) {
    Session s = trainSession("mem-kineto");
    auto m = analysis::analyzeMemory(*s.store, s.kineto, 10);
    ASSERT_TRUE(m.ok()) << m.error();
    EXPECT_NE(m->origin.find("device 0"), std::string::npos) << m->origin;
    ASSERT_EQ(m->topAtPeak.size(), 10u);
    for (const auto& l : m->topAtPeak) EXPECT_FALSE(l.op.empty()) << l.bytes << " at " << l.ts;
    // The CPU's curve beside the GPU's.
    bool cpu = false;
    for (const auto& o : m->others) cpu = cpu || o.name == "Total Allocated (CPU)";
    EXPECT_TRUE(cpu);

    auto ops = memory::analyzeOpMemory(*s.store, s.kineto);
    ASSERT_TRUE(ops.ok()) << ops.error();
    EXPECT_EQ(ops->origin, "kineto [memory] events");
    // Every GPU allocation falls inside an op slice of its thread; 16 CPU allocations of 8
    // bytes happen on the Python thread between ops (checked in Python on the JSON itself).
    EXPECT_EQ(ops->unnamed, 16);
    EXPECT_GT(ops->named, 300);
    for (const auto& a : ops->allocations)
        if (a.op.empty()) {
            EXPECT_EQ(a.device, "CPU");
            EXPECT_EQ(a.bytes, 8);
        }
    ASSERT_FALSE(ops->byOp.empty());
    for (const auto& r : ops->byOp) {
        EXPECT_FALSE(memory::isAllocationFactory(r.op)) << r.op;
        EXPECT_LE(r.freed, r.allocated);
    }
    // By input shape: the rows of one op add up to its row.
    int64_t sum = 0;
    for (const auto& r : ops->byOpAndShape)
        if (r.op == ops->byOp.front().op) sum += r.allocated;
    EXPECT_EQ(sum, ops->byOp.front().allocated);
    bool gpu = false, host = false;
    for (const auto& d : ops->devices) {
        gpu = gpu || d.device == "cuda:0";
        host = host || d.device == "CPU";
    }
    EXPECT_TRUE(gpu);
    EXPECT_TRUE(host);
}

TEST(MemoryImport, StepsOfAScheduledProfile) {
    // torch.profiler with a schedule writes ProfilerStep#N: the Memory view's step lines.
    const fs::path path = test::tempDir("mem-steps") / "s.tscope";
    auto st = store::TraceStore::open(path.string(), store::TraceStore::Mode::Create);
    ASSERT_TRUE(st.ok());
    const auto k = importInto(*st.value(), dataFile("expandable_kineto.json.gz"));
    ASSERT_EQ(k.status, ts::store::SourceStatus::Complete) << k.error;
    auto list = analysis::listProfileSources(*st.value());
    ASSERT_TRUE(list.ok());
    ASSERT_EQ(list->size(), 1u);
    EXPECT_GE(list->front().steps, 4);  // ProfilerStep#2-5 (CPU and GPU annotations)
    auto rep = analysis::analyzeProfile(*st.value(), k.sourceId, std::nullopt);
    ASSERT_TRUE(rep.ok()) << rep.error();
    EXPECT_EQ(rep->steps.steps.size(), 4u);
    EXPECT_TRUE(rep->memory.hasPeak);
    for (const auto& l : rep->memory.topAtPeak) EXPECT_FALSE(l.op.empty());
}

TEST(MemoryImport, MemoryOfTwoProfilesSideBySide) {
    Session s = trainSession("mem-diff");
    analysis::DiffSideSpec a{s.path.string(), s.kineto, std::nullopt, std::nullopt};
    analysis::DiffSideSpec b{s.path.string(), s.snapshot, std::nullopt, std::nullopt};
    auto d = memory::diffMemory(a, b, false);
    ASSERT_TRUE(d.ok()) << d.error();
    EXPECT_DOUBLE_EQ(d->b.peakBytes, 198642832.0);
    EXPECT_GT(d->a.peakBytes, 0);
    EXPECT_FALSE(d->ops.empty());
    EXPECT_NE(d->explains.find("Peak memory"), std::string::npos);
    for (size_t i = 1; i < d->ops.size(); ++i)
        EXPECT_GE(std::abs(d->ops[i - 1].delta()), std::abs(d->ops[i].delta()));
}

TEST(MemoryImport, AscendMemoryTables) {
    const fs::path dir = test::tempDir("ascend-mem");
    // torch_npu's layout (times in µs since the epoch, Excel's trailing tabs, a BOM).
    {
        std::ofstream f(dir / "operator_memory.csv");
        f << "\xEF\xBB\xBFName,Size(KB),Allocation Time(us),Release Time(us),Active Release "
             "Time(us),"
             "Duration(us),Active Duration(us),Allocation Total Allocated(MB),Allocation Total "
             "Reserved(MB),Allocation Total Active(MB),Release Total Allocated(MB),Release Total "
             "Reserved(MB),Release Total Active(MB),Stream Ptr,Device Type\n"
          << "aten::empty_strided,1024,1704161511420306.5\t,1704161511420406.5\t,,100,,1,4,1,0,4,0,"
             "1,NPU:0\n"
          << "aten::matmul,2048,1704161511420310.0\t,,,,,3,4,3,,,,1,NPU:0\n"
          << "aten::add,512,1704161511420320.0\t,1704161511420330.0\t,,10,,3.5,4,3.5,3,4,3,1,NPU:"
             "0\n"
          << "broken row\n";
    }
    {
        std::ofstream f(dir / "memory_record.csv");
        f << "Component,Timestamp(us),Total Allocated(MB),Total Reserved(MB),Total Active(MB),"
             "Stream Ptr,Device Type\n"
          << "PTA,1704161511420300.0\t,0,4,0,1,NPU:0\n"
          << "PTA,1704161511420310.0\t,3,4,3,1,NPU:0\n"
          << "GE,1704161511420310.0\t,1,2,1,1,NPU:0\n"
          << "PTA,1704161511420400.0\t,2,4,2,1,NPU:0\n";
    }
    auto st = store::TraceStore::open((dir / "s.tscope").string(), store::TraceStore::Mode::Create);
    ASSERT_TRUE(st.ok());
    const auto op = importInto(*st.value(), dir / "operator_memory.csv");
    EXPECT_EQ(op.kind, "ascend_memory");
    EXPECT_EQ(op.status, ts::store::SourceStatus::Partial);  // the broken row is skipped, counted
    EXPECT_EQ(op.skippedReasons.at("ascend_memory_bad_row"), 1);
    EXPECT_EQ(op.instants, 3);
    auto m = analysis::analyzeMemory(*st.value(), op.sourceId, 10);
    ASSERT_TRUE(m.ok()) << m.error();
    EXPECT_DOUBLE_EQ(m->peakBytes, 3.5 * 1024 * 1024);
    ASSERT_EQ(m->topAtPeak.size(), 3u);  // all three alive at 420320 µs
    EXPECT_EQ(m->topAtPeak[0].op, "aten::matmul");
    EXPECT_EQ(m->topAtPeak[0].bytes, 2048 * 1024);
    auto ops = memory::analyzeOpMemory(*st.value(), op.sourceId);
    ASSERT_TRUE(ops.ok());
    ASSERT_EQ(ops->byOp.size(), 3u);
    EXPECT_EQ(ops->byOp[0].op, "aten::matmul");
    EXPECT_EQ(ops->byOp[0].freed, 0);
    const auto rec = importInto(*st.value(), dir / "memory_record.csv");
    EXPECT_EQ(rec.status, ts::store::SourceStatus::Complete) << rec.error;
    auto r = analysis::analyzeMemory(*st.value(), rec.sourceId, 10);
    ASSERT_TRUE(r.ok());
    EXPECT_DOUBLE_EQ(r->peakBytes, 3.0 * 1024 * 1024);  // PTA's curve
    EXPECT_DOUBLE_EQ(r->poolPeakBytes, 4.0 * 1024 * 1024);
    EXPECT_EQ(splitCsvLine("a, \"b,\"\"c\"\" \" ,d\t"),
              (std::vector<std::string>{"a", "b,\"c\"", "d"}));
}

TEST(MemoryCli, SnapshotAnswersAsJsonAndText) {
    auto r = test::runCli({"memory", dataFile("train_snapshot.pickle").string(), "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    auto d = parse(r.out);
    ASSERT_TRUE(d["devices"].IsArray());
    const auto& dev = d["devices"][0];
    EXPECT_EQ(dev["peak"]["bytes"].GetInt64(), 198642832);
    ASSERT_EQ(dev["leaks"].Size(), 1u);
    EXPECT_NE(std::string(dev["leaks"][0]["site"].GetString()).find("keep_for_debug"),
              std::string::npos);
    EXPECT_EQ(dev["leaks"][0]["count"].GetInt64(), 10);
    bool forward = false;
    for (const auto& f : dev["leaks"][0]["frames"].GetArray())
        forward = forward || std::string(f.GetString()).find(":forward") != std::string::npos;
    EXPECT_TRUE(forward);
    EXPECT_EQ(dev["state_at_end"]["reserved"].GetInt64(), 253755392);

    r = test::runCli({"memory", dataFile("oom_snapshot.pickle").string()});
    ASSERT_EQ(r.exitCode, 0) << r.err;
    EXPECT_NE(r.out.find("OUT OF MEMORY"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("fragmentation: 100.0MiB was free"), std::string::npos) << r.out;

    // A pickle that would run code: refused, nothing runs.
    const fs::path evil = test::tempDir("mem-cli") / "evil.pickle";
    std::ofstream(evil) << "cos\nsystem\n(S'touch /tmp/ts_pwned'\ntR.";
    r = test::runCli({"memory", evil.string(), "--json"});
    EXPECT_EQ(r.exitCode, 1);
    EXPECT_NE(r.out.find("os.system"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("refused"), std::string::npos) << r.out;
}

TEST(MemoryCli, SessionMemoryByOp) {
    Session s = trainSession("mem-cli-session");
    s.store.reset();
    auto r =
        test::runCli({"memory", s.path.string(), "--source", std::to_string(s.kineto), "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.err << r.out;
    auto d = parse(r.out);
    EXPECT_EQ(std::string(d["origin"].GetString()).find("kineto"), 0u);
    ASSERT_GT(d["by_op"].Size(), 0u);
    EXPECT_EQ(d["allocations_unnamed"].GetInt64(), 16);
    for (const auto& t : d["top_at_peak"].GetArray()) EXPECT_STRNE(t["op"].GetString(), "");
    r = test::runCli({"memory", s.path.string(), "--source", std::to_string(s.kineto)});
    ASSERT_EQ(r.exitCode, 0);
    EXPECT_NE(r.out.find("Memory by op"), std::string::npos);
}
