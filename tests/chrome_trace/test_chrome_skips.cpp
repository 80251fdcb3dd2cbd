// Every record the Chrome importer does not turn into a row is counted with its reason
// (issue 25, case 17: 1M Kineto flow starts without ends vanished without being counted).
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <filesystem>
#include <fstream>

#include "tests/common/test_support.h"

namespace fs = std::filesystem;

TEST(ChromeSkips, FlowStartsWithoutAnEndAreCounted) {
    const fs::path dir = ts::test::tempDir("flow_starts");
    constexpr int kLaunches = 1000;
    {
        std::ofstream out(dir / "t.json");
        out << "{\"traceEvents\":[";
        // Kineto's ac2g: a launch on the CPU starts a flow, the kernel it starts ends it; here
        // only the last launch's kernel was recorded.
        for (int i = 0; i < kLaunches; ++i)
            out << "{\"ph\":\"X\",\"name\":\"cudaLaunchKernel\",\"pid\":1,\"tid\":1,\"ts\":"
                << i * 10 << ",\"dur\":5},{\"ph\":\"s\",\"id\":" << i
                << ",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"pid\":1,\"tid\":1,\"ts\":" << i * 10 + 1
                << "},";
        out << "{\"ph\":\"X\",\"name\":\"kernel\",\"pid\":0,\"tid\":7,\"ts\":99995,\"dur\":3},"
            << "{\"ph\":\"f\",\"id\":" << kLaunches - 1
            << ",\"bp\":\"e\",\"cat\":\"ac2g\",\"name\":\"ac2g\",\"pid\":0,\"tid\":7,\"ts\":99995}"
            << "]}";
    }
    const std::string session = (dir / "s.tscope").string();
    auto r = ts::test::runCli({"import", (dir / "t.json").string(), "-o", session, "--json"});
    ASSERT_EQ(r.exitCode, 0) << r.out << r.err;
    rapidjson::Document d;
    d.Parse(r.out.c_str());
    ASSERT_TRUE(d.IsObject()) << r.out;
    const auto& s = d["sources"][0];
    EXPECT_EQ(s["flows"].GetInt64(), 1);
    ASSERT_TRUE(s["skipped_reasons"].HasMember("json_flow_start_without_end")) << r.out;
    EXPECT_EQ(s["skipped_reasons"]["json_flow_start_without_end"].GetInt64(), kLaunches - 1);
    EXPECT_EQ(s["skipped"].GetInt64(), kLaunches - 1);
    auto log = ts::test::runCli(
        {"query", session,
         "SELECT count(*) FROM import_log WHERE key = 'json_flow_start_without_end'"});
    EXPECT_NE(log.out.find("\n999\n"), std::string::npos) << log.out;
}
