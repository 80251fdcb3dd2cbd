// The Nsight Systems importer on hand-built exports in the newer schema (META_DATA_EXPORT,
// tables missing), with overlapping kernels, NVTX start/end ranges, marks, unfinished
// ranges and bad rows; and on files that are not exports at all.
#include <gtest/gtest.h>

#include <fstream>

#include "core/store/sqlite_db.h"
#include "core/store/trace_store.h"
#include "importers/registry.h"
#include "tests/common/import_session.h"
#include "tests/common/test_support.h"

namespace ts::test {
namespace {

// globalTid of pid 4242, tid 4243 (pid in bits 24..47); the process's globalPid.
constexpr int64_t kPid = 4242, kTid = 4243;
constexpr int64_t kGlobalPid = kPid << 24;
constexpr int64_t kGlobalTid = kGlobalPid | kTid;

std::string makeExport(const std::string& tag) {
    const std::string path = (tempDir(tag) / "report.sqlite").string();
    auto db = store::SqliteDb::open(path, store::SqliteDb::Mode::Create);
    EXPECT_TRUE(db.ok());
    const std::string g = std::to_string(kGlobalTid), p = std::to_string(kGlobalPid);
    const std::string sql =
        "CREATE TABLE META_DATA_EXPORT(name TEXT, value TEXT);"
        "INSERT INTO META_DATA_EXPORT VALUES('EXPORT_SCHEMA_VERSION','3.11.0'),"
        "('NSIGHT_SYSTEMS_VERSION','2024.2.1');"
        "CREATE TABLE StringIds(id INTEGER PRIMARY KEY, value TEXT NOT NULL);"
        "INSERT INTO StringIds VALUES(1,'cudaLaunchKernel'),(2,'void gemm<float>(int)'),"
        "(3,'gemm'),(4,'trainer'),(5,'forward'),(6,'relu_kernel'),(7,'relu');"
        "CREATE TABLE PROCESSES(globalPid INTEGER, pid INTEGER, name TEXT);"
        "INSERT INTO PROCESSES VALUES(" +
        p +
        ", 4242, 'python3'), (99 << 24, 99, 'idle');"
        "CREATE TABLE ThreadNames(nameId INTEGER, priority INTEGER, globalTid INTEGER);"
        "INSERT INTO ThreadNames VALUES(4, 0, " +
        g +
        ");"
        "CREATE TABLE TARGET_INFO_SESSION_START_TIME(utcEpochNs INTEGER, utcTime TEXT, "
        "localTime TEXT);"
        "INSERT INTO TARGET_INFO_SESSION_START_TIME VALUES(1700000000000000000, '', '');"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME(start INTEGER, end INTEGER, eventClass INTEGER,"
        " globalTid INTEGER, correlationId INTEGER, nameId INTEGER, returnValue INTEGER,"
        " callchainId INTEGER);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES"
        "(10, 20, 0, " +
        g + ", 1, 1, 0, NULL), (30, 40, 0, " + g +
        ", 2, 1, 0, NULL),"
        "(50, 60, 0, " +
        g + ", 3, 1, 0, NULL), (90, 80, 0, " + g +
        ", 4, 1, 0, NULL);"
        "CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL(start INTEGER, end INTEGER, deviceId INTEGER,"
        " contextId INTEGER, streamId INTEGER, correlationId INTEGER, globalPid INTEGER,"
        " demangledName INTEGER, shortName INTEGER, gridX INTEGER, gridY INTEGER, gridZ INTEGER,"
        " blockX INTEGER, blockY INTEGER, blockZ INTEGER, registersPerThread INTEGER,"
        " staticSharedMemory INTEGER, dynamicSharedMemory INTEGER);"
        "INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES"
        "(100, 300, 0, 1, 13, 1, " +
        p +
        ", 2, 3, 4, 1, 1, 128, 1, 1, 32, 0, 1024),"
        "(150, 250, 0, 1, 14, 2, " +
        p +
        ", 6, 7, 1, 1, 1, 64, 1, 1, 16, 0, 0),"
        "(200, 260, 0, 1, 13, 3, " +
        p +
        ", 6, 7, 1, 1, 1, 64, 1, 1, 16, 0, 0);"
        "CREATE TABLE NVTX_EVENTS(start INTEGER, end INTEGER, eventType INTEGER, rangeId INTEGER,"
        " category INTEGER, color INTEGER, text TEXT, globalTid INTEGER, endGlobalTid INTEGER,"
        " textId INTEGER, domainId INTEGER, jsonTextId INTEGER, jsonText TEXT);"
        "INSERT INTO NVTX_EVENTS VALUES"
        "(5, NULL, 59, NULL, NULL, NULL, NULL, " +
        g +
        ", NULL, 5, 0, NULL, NULL),"
        "(8, 70, 60, 1, NULL, NULL, 'epoch', " +
        g + ", " + g +
        ", NULL, 0, NULL, NULL),"
        "(9, 65, 60, 2, NULL, NULL, 'prefetch', " +
        g +
        ", NULL, NULL, 0, NULL, NULL),"
        "(12, NULL, 34, NULL, NULL, NULL, 'checkpoint', " +
        g +
        ", NULL, NULL, 0, NULL, NULL),"
        "(1, NULL, 75, NULL, NULL, NULL, 'app', " +
        g +
        ", NULL, NULL, 7, NULL, NULL),"
        "(2, NULL, 99, NULL, NULL, NULL, 'odd', " +
        g + ", NULL, NULL, 0, NULL, NULL);";
    EXPECT_TRUE(db.value().exec(sql).ok()) << db.value().lastError();
    return path;
}

Imported importFileInto(const std::string& tag, const std::string& file) {
    return importInto((tempDir(tag) / "s.tscope").string(), file);
}

int64_t q(store::TraceStore& s, const std::string& sql) {
    auto r = s.db().queryInt(sql);
    EXPECT_TRUE(r.ok()) << sql;
    return r ? r.value() : -1;
}

TEST(NsysSchema, NewerSchemaWithMissingTablesImports) {
    auto got = importFileInto("nsys_new", makeExport("nsys_new_in"));
    const auto& r = got.report;
    ASSERT_EQ(r.status, ts::store::SourceStatus::Complete) << r.error;
    EXPECT_EQ(r.events, 4 + 3 + 6);
    EXPECT_EQ(r.slices, 3 + 3 + 1);  // runtime (one skipped), kernels, push/pop
    EXPECT_EQ(r.asyncSlices, 2);
    EXPECT_EQ(r.instants, 1);
    EXPECT_EQ(r.flows, 3);
    EXPECT_EQ(r.skipped, 2);
    EXPECT_EQ(r.skippedReasons.at("nsys_negative_duration"), 1);
    EXPECT_EQ(r.skippedReasons.at("nsys_nvtx_unknown_type"), 1);
    EXPECT_EQ(r.processes, 2);  // python3 and its GPU; not the idle process without events
    EXPECT_EQ(r.threads, 1);
    EXPECT_NE(r.extraJson.find("META_DATA_EXPORT"), std::string::npos);
    EXPECT_NE(r.extraJson.find("CUPTI_ACTIVITY_KIND_MEMCPY"), std::string::npos);
    auto& s = *got.store;
    EXPECT_EQ(q(s, "SELECT count(*) FROM import_log"), 2);
    // Overlapping kernels stay on their stream's track (flat, depth 0).
    EXPECT_EQ(q(s, "SELECT count(*) FROM tracks WHERE kind = 'gpu_stream'"), 2);
    EXPECT_EQ(q(s,
                "SELECT count(*) FROM slices s JOIN tracks t ON t.id = s.track_id JOIN "
                "strings n ON n.id = t.name_id WHERE n.str = 'Stream 13'"),
              2);
    EXPECT_EQ(q(s,
                "SELECT max(depth) FROM slices s JOIN tracks t ON t.id = s.track_id WHERE "
                "t.kind = 'gpu_stream'"),
              0);
    // Demangled names through StringIds; times shifted by the session start.
    EXPECT_EQ(q(s,
                "SELECT s.ts FROM slices s JOIN strings n ON n.id = s.name_id WHERE "
                "n.str = 'void gemm<float>(int)'"),
              1700000000000000100);
    // The push/pop range without an end is unfinished and runs to its track's last event
    // (the mark at 12 ns).
    EXPECT_EQ(q(s,
                "SELECT flags FROM slices s JOIN strings n ON n.id = s.name_id WHERE "
                "n.str = 'forward'"),
              1);
    EXPECT_EQ(q(s,
                "SELECT dur FROM slices s JOIN strings n ON n.id = s.name_id WHERE "
                "n.str = 'forward'"),
              7);
    EXPECT_EQ(q(s,
                "SELECT count(*) FROM tracks t JOIN strings n ON n.id = t.name_id WHERE "
                "t.kind = 'async' AND n.str = 'NVTX start/end ranges'"),
              1);
    EXPECT_EQ(q(s, "SELECT count(*) FROM threads WHERE name = 'trainer' AND tid = '4243'"), 1);
    EXPECT_EQ(q(s, "SELECT count(*) FROM processes WHERE name = 'python3' AND pid = '4242'"), 1);
    EXPECT_EQ(q(s,
                "SELECT count(*) FROM args WHERE json LIKE '%\"grid\":[4,1,1]%' AND "
                "json LIKE '%\"shared memory\":1024%'"),
              1);
}

TEST(NsysSchema, BadFilesGetAClearErrorAndLeaveNothing) {
    const auto dir = tempDir("nsys_bad");
    // An SQLite file that is not an export.
    const std::string other = (dir / "other.sqlite").string();
    {
        auto db = store::SqliteDb::open(other, store::SqliteDb::Mode::Create);
        ASSERT_TRUE(db.value().exec("CREATE TABLE t(x); INSERT INTO t VALUES(1);").ok());
    }
    auto a = importFileInto("nsys_bad_a", other);
    EXPECT_EQ(a.report.status, ts::store::SourceStatus::Failed);
    EXPECT_NE(a.report.error.find("not an Nsight Systems export"), std::string::npos)
        << a.report.error;
    EXPECT_EQ(q(*a.store, "SELECT count(*) FROM slices"), 0);
    // A truncated export: the first 4 KiB of a real one.
    const std::string full = makeExport("nsys_bad_full");
    std::string bytes;
    {
        std::ifstream in(full, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    const std::string cut = (dir / "cut.sqlite").string();
    std::ofstream(cut, std::ios::binary) << bytes.substr(0, 4096);
    auto b = importFileInto("nsys_bad_b", cut);
    EXPECT_NE(b.report.status, ts::store::SourceStatus::Complete);
    EXPECT_FALSE(b.report.error.empty());
    // An empty file.
    const std::string empty = (dir / "empty.sqlite").string();
    std::ofstream(empty, std::ios::binary).flush();
    auto c = importFileInto("nsys_bad_c", empty);
    EXPECT_EQ(c.report.status, ts::store::SourceStatus::Failed);
    EXPECT_FALSE(c.report.error.empty());
}

TEST(NsysSchema, CancelLeavesTheSessionAsItWas) {
    const std::string file = makeExport("nsys_cancel_in");
    auto s = store::TraceStore::open((tempDir("nsys_cancel") / "s.tscope").string(),
                                     store::TraceStore::Mode::Create);
    ASSERT_TRUE(s.ok());
    JobControl control;
    control.cancel();
    const auto r = importers::importFile(file, *s.value(), control);
    EXPECT_EQ(r.status, ts::store::SourceStatus::Cancelled);
    EXPECT_EQ(q(*s.value(), "SELECT count(*) FROM sources"), 0);
    EXPECT_EQ(q(*s.value(), "SELECT count(*) FROM slices"), 0);
    EXPECT_EQ(q(*s.value(), "SELECT count(*) FROM processes"), 0);
}

}  // namespace
}  // namespace ts::test
