// The Chrome importer holds at most a window of slices and spills the rest to disk (issue 25,
// case 8: a 7 MB zip of 2 GB of events took 2.4 GB of memory). An import through a tiny
// window (TRAINSCOPE_IMPORT_WINDOW) writes exactly the rows an import held in memory writes:
// the same slices, depths, ids and flows, out-of-order events, open B events, X without a
// duration, async slices and every kind of flow binding included.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/common/test_support.h"

namespace fs = std::filesystem;

namespace {

// Four threads of nested ops written at their end (children before parents, as tracers
// write X events), B/E pairs, a B never closed, an X without dur, async slices, flows bound
// by bind_id, to the enclosing slice and to the next one.
std::string trace(int steps) {
    std::ostringstream o;
    o << "{\"traceEvents\":[";
    bool first = true;
    auto ev = [&](const std::string& body) {
        o << (first ? "" : ",") << "{" << body << "}";
        first = false;
    };
    for (int i = 0; i < steps; ++i) {
        for (int t = 1; t <= 4; ++t) {
            const long long base = i * 1000LL + t;
            const std::string pt = "\"pid\":1,\"tid\":" + std::to_string(t) + ",";
            for (int k = 0; k < 3; ++k)
                ev("\"ph\":\"X\",\"name\":\"child" + std::to_string(k) + "\"," + pt +
                   "\"ts\":" + std::to_string(base + 10 + k * 100) + ",\"dur\":50" +
                   (k == 1 ? ",\"bind_id\":" + std::to_string(i * 10 + t) + ",\"flow_out\":true"
                           : std::string()));
            ev("\"ph\":\"X\",\"name\":\"step\"," + pt + "\"ts\":" + std::to_string(base) +
               ",\"dur\":900,\"args\":{\"i\":" + std::to_string(i) + "}");
            ev("\"ph\":\"B\",\"name\":\"region\"," + pt + "\"ts\":" + std::to_string(base + 400));
            ev("\"ph\":\"E\"," + pt + "\"ts\":" + std::to_string(base + 450));
            ev("\"ph\":\"s\",\"id\":" + std::to_string(i * 10 + t) +
               ",\"cat\":\"c\",\"name\":\"f\"," + pt + "\"ts\":" + std::to_string(base + 20));
        }
        ev("\"ph\":\"X\",\"name\":\"kernel\",\"pid\":2,\"tid\":9,\"ts\":" +
           std::to_string(i * 1000 + 500) +
           ",\"dur\":30,\"bind_id\":" + std::to_string(i * 10 + 1) + ",\"flow_in\":true");
        ev("\"ph\":\"f\",\"id\":" + std::to_string(i * 10 + 2) +
           ",\"cat\":\"c\",\"name\":\"f\",\"bp\":\"e\",\"pid\":2,\"tid\":9,\"ts\":" +
           std::to_string(i * 1000 + 510));
        ev("\"ph\":\"f\",\"id\":" + std::to_string(i * 10 + 3) +
           ",\"cat\":\"c\",\"name\":\"f\",\"pid\":2,\"tid\":9,\"ts\":" +
           std::to_string(i * 1000 + 495));
        ev("\"ph\":\"b\",\"id\":7,\"cat\":\"a\",\"name\":\"async\",\"pid\":1,\"ts\":" +
           std::to_string(i * 1000 + 5));
        ev("\"ph\":\"e\",\"id\":7,\"cat\":\"a\",\"name\":\"async\",\"pid\":1,\"ts\":" +
           std::to_string(i * 1000 + 600));
    }
    ev("\"ph\":\"B\",\"name\":\"never closed\",\"pid\":1,\"tid\":1,\"ts\":5");
    ev("\"ph\":\"X\",\"name\":\"no dur\",\"pid\":1,\"tid\":2,\"ts\":7");
    o << "]}";
    return o.str();
}

ts::test::CommandResult importWith(const fs::path& file, const std::string& session,
                                   const std::string& window) {
    return ts::test::runProgram(
        "/usr/bin/env", {"TRAINSCOPE_IMPORT_WINDOW=" + window, ts::test::cliPath(), "import",
                         file.string(), "-o", session, "--json"});
}

std::string windowRows(const std::string& session, const std::string& sql) {
    return ts::test::runCli({"query", session, sql, "--timeout", "0"}).out;
}

}  // namespace

TEST(ChromeWindow, ATinyWindowWritesWhatHoldingEverythingWrites) {
    const fs::path dir = ts::test::tempDir("chrome_window");
    std::ofstream(dir / "t.json") << trace(300);
    const std::string held = (dir / "held.tscope").string(),
                      spilled = (dir / "spilled.tscope").string();
    auto a = importWith(dir / "t.json", held, "100000000");
    auto b = importWith(dir / "t.json", spilled, "500");
    ASSERT_EQ(a.exitCode, 0) << a.out << a.err;
    ASSERT_EQ(b.exitCode, 0) << b.out << b.err;

    rapidjson::Document da, db;
    da.Parse(a.out.c_str());
    db.Parse(b.out.c_str());
    ASSERT_TRUE(da.IsObject() && db.IsObject());
    for (const char* k : {"events", "slices", "async_slices", "flows", "skipped"})
        EXPECT_EQ(da["sources"][0][k].GetInt64(), db["sources"][0][k].GetInt64()) << k;
    EXPECT_GT(db["sources"][0]["flows"].GetInt64(), 300 * 2);

    const std::string mem =
        "SELECT json_extract(stats, '$.extra.memory.held_peak'), "
        "json_extract(stats, '$.extra.memory.spilled_runs'), "
        "json_extract(stats, '$.extra.memory.spilled_slices') FROM sources";
    EXPECT_EQ(windowRows(held, mem),
              "json_extract(stats, '$.extra.memory.held_peak')\t"
              "json_extract(stats, '$.extra.memory.spilled_runs')\t"
              "json_extract(stats, '$.extra.memory.spilled_slices')\n" +
                  std::to_string(da["sources"][0]["slices"].GetInt64() +
                                 da["sources"][0]["async_slices"].GetInt64()) +
                  "\t0\t0\n");
    auto s = ts::test::runCli({"query", spilled, mem, "--json"});
    rapidjson::Document m;
    m.Parse(s.out.c_str());
    ASSERT_TRUE(m.IsObject()) << s.out;
    EXPECT_LE(m["rows"][0][0].GetInt64(), 500) << "no more than the window held";
    EXPECT_GT(m["rows"][0][1].GetInt64(), 10) << "runs spilled";
    EXPECT_GT(m["rows"][0][2].GetInt64(), 3000);

    for (const char* sql :
         {"SELECT id, track_id, ts, dur, depth, name_id, cat_id, arg_set_id, flags FROM slices "
          "ORDER BY id",
          "SELECT slice_out, slice_in, name_id, cat_id FROM flows ORDER BY id",
          "SELECT track_id, name_id, count, total_dur, min_dur, max_dur FROM slice_name_stats "
          "ORDER BY track_id, name_id",
          "SELECT key, count(*) FROM import_log GROUP BY key ORDER BY key"}) {
        const std::string x = windowRows(held, sql), y = windowRows(spilled, sql);
        EXPECT_GT(x.size(), 10u) << sql;
        EXPECT_TRUE(x == y) << sql << "\nheld: " << x.substr(0, 400)
                            << "\nspilled: " << y.substr(0, 400);
    }
}
