// The Nsight Systems importer on the real export of the corpus: every count the import
// reports equals an independent SQL count over the nsys file itself, and the rows in the
// session say the same.
#include <gtest/gtest.h>

#include "core/store/sqlite_db.h"
#include "core/store/trace_store.h"
#include "importers/registry.h"
#include "tests/common/import_session.h"
#include "tests/common/test_support.h"

namespace ts::test {
namespace {

constexpr const char* kFile = "real/nsys/saxpy-mpi-cuda_nsys_perlmutter0.sqlite";

int64_t count(store::SqliteDb& db, const std::string& sql) {
    auto r = db.queryInt(sql);
    EXPECT_TRUE(r.ok()) << sql << ": " << (r ? "" : r.error());
    return r ? r.value() : -1;
}

Imported importNsys(const std::string& tag) {
    return importInto((tempDir(tag) / "n.tscope").string(), corpusFile(kFile).string());
}

TEST(NsysCorpus, CountsMatchAnIndependentSqlCountOfTheExport) {
    TS_REQUIRE_CORPUS();
    auto nsysDb =
        store::SqliteDb::open(corpusFile(kFile).string(), store::SqliteDb::Mode::ReadOnly);
    ASSERT_TRUE(nsysDb.ok());
    auto& n = nsysDb.value();
    const int64_t kernels = count(n, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL");
    const int64_t memcpys = count(n, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMCPY");
    const int64_t memsets = count(n, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_MEMSET");
    const int64_t runtime = count(n, "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME");
    const int64_t osrt = count(n, "SELECT count(*) FROM OSRT_API");
    const int64_t nvtxAll = count(n, "SELECT count(*) FROM NVTX_EVENTS");
    const int64_t pushPop =
        count(n, "SELECT count(*) FROM NVTX_EVENTS WHERE eventType IN (59, 70)");
    const int64_t startEnd =
        count(n, "SELECT count(*) FROM NVTX_EVENTS WHERE eventType IN (60, 71)");
    const int64_t marks = count(n, "SELECT count(*) FROM NVTX_EVENTS WHERE eventType = 34");
    const int64_t other = count(n, "SELECT count(*) FROM CUBLAS_EVENTS") +
                          count(n, "SELECT count(*) FROM CUDNN_EVENTS");
    // A GPU row has a flow when an API call of the same process has its correlationId.
    int64_t flows = 0;
    for (const char* t :
         {"CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET"})
        flows += count(n, std::string("SELECT count(*) FROM ") + t +
                              " g WHERE EXISTS (SELECT 1 FROM CUPTI_ACTIVITY_KIND_RUNTIME r "
                              "WHERE r.correlationId = g.correlationId AND "
                              "(r.globalTid & ~16777215) = g.globalPid)");
    const int64_t streams =
        count(n,
              "SELECT count(*) FROM (SELECT DISTINCT deviceId, contextId, streamId FROM "
              "CUPTI_ACTIVITY_KIND_KERNEL UNION SELECT DISTINCT deviceId, contextId, streamId FROM "
              "CUPTI_ACTIVITY_KIND_MEMCPY UNION SELECT DISTINCT deviceId, contextId, streamId FROM "
              "CUPTI_ACTIVITY_KIND_MEMSET)");
    const int64_t base = count(n, "SELECT utcEpochNs FROM TARGET_INFO_SESSION_START_TIME");
    const int64_t firstKernel = count(n, "SELECT min(start) FROM CUPTI_ACTIVITY_KIND_KERNEL");
    ASSERT_GT(kernels, 0);
    ASSERT_GT(flows, 0);

    auto got = importNsys("nsys_counts");
    const auto& r = got.report;
    ASSERT_EQ(r.status, ts::store::SourceStatus::Complete) << r.error;
    EXPECT_EQ(r.kind, "nsys_sqlite");
    EXPECT_EQ(r.events, kernels + memcpys + memsets + runtime + osrt + nvtxAll + other);
    EXPECT_EQ(r.slices, kernels + memcpys + memsets + runtime + osrt + other + pushPop);
    EXPECT_EQ(r.asyncSlices, startEnd);
    EXPECT_EQ(r.instants, marks);
    EXPECT_EQ(r.flows, flows);
    EXPECT_EQ(r.skipped, 0);

    auto& db = got.store->db();
    EXPECT_EQ(count(db, "SELECT count(*) FROM slices"), r.slices + r.asyncSlices);
    EXPECT_EQ(count(db, "SELECT count(*) FROM flows"), flows);
    EXPECT_EQ(count(db, "SELECT count(*) FROM tracks WHERE kind = 'gpu_stream'"), streams);
    EXPECT_EQ(count(db,
                    "SELECT count(*) FROM slices s JOIN tracks t ON t.id = s.track_id "
                    "WHERE t.kind = 'gpu_stream'"),
              kernels + memcpys + memsets);
    // Every flow runs from an API call on a CPU thread to GPU work on a stream, and both ends
    // carry the same correlation id.
    EXPECT_EQ(count(db,
                    "SELECT count(*) FROM flows f "
                    "JOIN slices a ON a.id = f.slice_out JOIN tracks ta ON ta.id = a.track_id "
                    "JOIN slices b ON b.id = f.slice_in JOIN tracks tb ON tb.id = b.track_id "
                    "JOIN args x ON x.id = a.arg_set_id JOIN args y ON y.id = b.arg_set_id "
                    "WHERE ta.kind = 'thread' AND tb.kind = 'gpu_stream' AND "
                    "json_extract(x.json, '$.correlation') = "
                    "json_extract(y.json, '$.correlation')"),
              flows);
    // Timestamps: the export's ns shifted by the session start, exactly.
    EXPECT_EQ(count(db,
                    "SELECT min(s.ts) FROM slices s JOIN strings c ON c.id = s.cat_id "
                    "WHERE c.str = 'kernel'"),
              firstKernel + base);
    // Names through StringIds, process and thread names, NVTX domains as categories.
    EXPECT_EQ(count(db,
                    "SELECT count(*) FROM slices s JOIN strings x ON x.id = s.name_id "
                    "WHERE x.str = 'cudaLaunchKernel'"),
              count(n,
                    "SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME r JOIN StringIds s "
                    "ON s.id = r.nameId WHERE s.value = 'cudaLaunchKernel'"));
    EXPECT_EQ(count(db, "SELECT count(*) FROM processes WHERE name = './saxpy-mpi-cuda'"), 1);
    EXPECT_EQ(count(db, "SELECT count(*) FROM threads WHERE name = 'MPI Rank 0'"), 1);
    EXPECT_EQ(count(db, "SELECT count(*) FROM processes WHERE name = 'NVIDIA A100-SXM4-40GB'"), 1);
    EXPECT_EQ(count(db,
                    "SELECT count(*) FROM slices s JOIN strings x ON x.id = s.name_id "
                    "JOIN strings c ON c.id = s.cat_id WHERE x.str = 'MPI_Send' AND "
                    "c.str = 'MPI'"),
              count(n,
                    "SELECT count(*) FROM NVTX_EVENTS e JOIN StringIds s ON s.id = e.textId "
                    "WHERE s.value = 'MPI_Send'"));
    // Nesting on the CPU: every runtime call with depth > 0 lies inside one at depth - 1.
    EXPECT_EQ(count(db,
                    "SELECT count(*) FROM slices s WHERE depth > 0 AND NOT EXISTS ("
                    "SELECT 1 FROM slices p WHERE p.track_id = s.track_id AND "
                    "p.depth = s.depth - 1 AND p.ts <= s.ts AND p.ts + p.dur >= s.ts + s.dur)"),
              0);
    EXPECT_EQ(count(db,
                    "SELECT count(*) FROM sources WHERE kind = 'nsys_sqlite' AND "
                    "status = 'complete'"),
              1);
}

TEST(NsysCorpus, OpensWithoutChangingTheExport) {
    TS_REQUIRE_CORPUS();
    const auto before = std::filesystem::last_write_time(corpusFile(kFile));
    auto got = importNsys("nsys_ro");
    EXPECT_EQ(got.report.status, ts::store::SourceStatus::Complete);
    EXPECT_EQ(std::filesystem::last_write_time(corpusFile(kFile)), before);
}

}  // namespace
}  // namespace ts::test
