// Header lines of each external format, and lines that are not headers.
#include <gtest/gtest.h>

#include "core/log/log_line_parser.h"
#include "core/log/log_record.h"

using namespace ts::log;
using ts::log::Level;

namespace {
int64_t localNs(const char* text) {
    return ts::log::parseLogTime(text).value();
}
}  // namespace

TEST(LogLineParser, GlogCppWithThreadAndFunction) {
    auto h = parseHeaderLine(
        "[WARNING] ME(12345,7f8c3cd30740,python):2021-01-01-12:00:00.123.456 "
        "[mindspore/ccsrc/file.cc:42] Func] something odd] here");
    ASSERT_TRUE(h);
    EXPECT_EQ(h->format, LineFormat::Glog);
    const auto& r = h->record;
    EXPECT_EQ(r.level, Level::Warning);
    EXPECT_EQ(r.module, "ME");
    EXPECT_EQ(r.pid, 12345);
    EXPECT_EQ(r.tid, 0x7f8c3cd30740);
    EXPECT_EQ(r.program, "python");
    EXPECT_EQ(r.tsNs, localNs("2021-01-01-12:00:00.123.456"));
    EXPECT_EQ(*r.tsNs % 1000000000, 123456000);
    EXPECT_EQ(r.file, "mindspore/ccsrc/file.cc");
    EXPECT_EQ(r.line, 42);
    EXPECT_EQ(r.function, "Func");
    EXPECT_EQ(r.message, "something odd] here");
}

TEST(LogLineParser, OlderCppWithoutThread) {
    auto h = parseHeaderLine(
        "[ERROR] DEVICE(3316,python):2021-01-01-12:00:03.000.000 [a/b.cc:100] no function here");
    ASSERT_TRUE(h);
    EXPECT_EQ(h->format, LineFormat::Glog);
    EXPECT_EQ(h->record.pid, 3316);
    EXPECT_EQ(h->record.tid, 0);
    EXPECT_EQ(h->record.function, "");
    EXPECT_EQ(h->record.message, "no function here");
}

TEST(LogLineParser, MindSporePython) {
    auto h = parseHeaderLine(
        "[INFO] ME(28427:140254327682880,MainProcess):2021-03-23-15:40:40.535.425 "
        "[mindspore/train/serialization.py:312] 2 parameters in the net are not loaded.");
    ASSERT_TRUE(h);
    EXPECT_EQ(h->format, LineFormat::Python);
    EXPECT_EQ(h->record.level, Level::Info);
    EXPECT_EQ(h->record.pid, 28427);
    EXPECT_EQ(h->record.tid, 140254327682880);
    EXPECT_EQ(h->record.program, "MainProcess");
    EXPECT_EQ(h->record.file, "mindspore/train/serialization.py");
    EXPECT_EQ(h->record.line, 312);
    EXPECT_EQ(h->record.message, "2 parameters in the net are not loaded.");
}

TEST(LogLineParser, AscendPlog) {
    auto h = parseHeaderLine(
        "[ERROR] RUNTIME(12731,python3.7):2021-02-02-22:23:56.475.679 "
        "[../../runtime/feature/src/npu_driver.cc:1408]12828 MemCopySync:drvMemcpy failed: "
        "dst=0x1080");
    ASSERT_TRUE(h);
    EXPECT_EQ(h->format, LineFormat::Plog);
    EXPECT_EQ(h->record.module, "RUNTIME");
    EXPECT_EQ(h->record.pid, 12731);
    EXPECT_EQ(h->record.tid, 12828);
    EXPECT_EQ(h->record.program, "python3.7");
    EXPECT_EQ(h->record.file, "../../runtime/feature/src/npu_driver.cc");
    EXPECT_EQ(h->record.line, 1408);
    EXPECT_EQ(h->record.tsNs, localNs("2021-02-02-22:23:56.475.679"));
    EXPECT_EQ(h->record.message, "MemCopySync:drvMemcpy failed: dst=0x1080");
}

TEST(LogLineParser, AscendShortAndEventLevel) {
    auto h = parseHeaderLine("[ERROR] RUNTIME(160809)kernel task happen error, retCode=0x28.");
    ASSERT_TRUE(h);
    EXPECT_EQ(h->format, LineFormat::PlogShort);
    EXPECT_EQ(h->record.pid, 160809);
    EXPECT_FALSE(h->record.tsNs);
    EXPECT_EQ(h->record.message, "kernel task happen error, retCode=0x28.");
    auto e = parseHeaderLine("[EVENT] PROFILING(1,p):2021-02-02-22:23:57.000.001 [x.cc:5]9 go");
    ASSERT_TRUE(e);
    EXPECT_EQ(e->record.level, Level::Info);
}

TEST(LogLineParser, ClassicGlogTakesTheGivenYear) {
    auto h = parseHeaderLine("E1103 09:15:02.250000  4242 kernel.cc:42] CUDA error: oom", 2020);
    ASSERT_TRUE(h);
    EXPECT_EQ(h->format, LineFormat::GlogClassic);
    EXPECT_EQ(h->record.level, Level::Error);
    EXPECT_EQ(h->record.tid, 4242);
    EXPECT_EQ(h->record.file, "kernel.cc");
    EXPECT_EQ(h->record.line, 42);
    EXPECT_EQ(h->record.message, "CUDA error: oom");
    EXPECT_EQ(h->record.tsNs, localNs("2020-11-03-09:15:02.250.000"));
    EXPECT_FALSE(parseHeaderLine("X1103 09:15:02.250000  4242 kernel.cc:42] x"));
    EXPECT_FALSE(parseHeaderLine("I1103 09:15:02.250000  4242 no location here"));
    EXPECT_EQ(glogFileHeaderYear("Log file created at: 2020/11/03 09:15:00"), 2020);
    EXPECT_EQ(glogFileHeaderYear("Log file made at: 2020/11/03"), 0);
}

TEST(LogLineParser, IndentedHeaderIsStillAHeader) {
    EXPECT_TRUE(parseHeaderLine("    [ERROR] GE(1,p):2021-01-27-18:27:51.562.111 [a.cc:1]2 x"));
}

TEST(LogLineParser, NotHeaders) {
    for (const char* line : {"", "plain text", "[1, 2, 3]", "[INFO]", "[INFO] no parens here",
                             "[NOTALEVEL] ME(1,p):2021-01-01-12:00:00.000.000 [a.cc:1] x",
                             "[INFO] ME(abc,p):2021-01-01-12:00:00.000.000 [a.cc:1] x",
                             "[INFO] ME(1,p):yesterday [a.cc:1] x", "[INFO] ME(1:2,p)no time",
                             "{\"traceEvents\": []}"}) {
        EXPECT_FALSE(parseHeaderLine(line)) << line;
    }
}

TEST(LogLineParser, TimeParsing) {
    setenv("TZ", "UTC", 1);
    tzset();
    // An hour no other test here parses (times are cached per hour of the local zone).
    const int64_t base = int64_t{1623744000} * 1000000000;  // 2021-06-15 08:00:00 UTC
    EXPECT_EQ(ts::log::parseLogTime("2021-06-15-08:00:00.123.456"), base + 123456000);
    EXPECT_EQ(ts::log::parseLogTime("2021-06-15 08:01:02,250"),
              base + int64_t{62} * 1000000000 + 250000000);
    EXPECT_FALSE(ts::log::parseLogTime("2021-13-01-12:00:00"));
    EXPECT_FALSE(ts::log::parseLogTime("2021-01-01"));
    EXPECT_FALSE(ts::log::parseLogTime("9999-01-01-00:00:00"));  // beyond int64 nanoseconds
    const int64_t ns = base + int64_t{59} * 60 * 1000000000 + 7654000;
    EXPECT_EQ(ts::log::formatLogTime(ns), "2021-06-15-08:59:00.007.654");
    EXPECT_EQ(ts::log::parseLogTime(ts::log::formatLogTime(ns)), ns);
}

TEST(LogLineParser, GuessLevelAndUtf8) {
    EXPECT_EQ(guessLevel("RuntimeError: boom"), Level::Error);
    EXPECT_EQ(guessLevel("UserWarning: careful"), Level::Warning);
    EXPECT_EQ(guessLevel("epoch 1 loss 0.3"), Level::Info);
    EXPECT_EQ(sanitizeUtf8("ok \xE4\xB8\xAD"), "ok \xE4\xB8\xAD");
    EXPECT_EQ(sanitizeUtf8("bad \xFF end"), "bad \xEF\xBF\xBD end");
    EXPECT_EQ(sanitizeUtf8(std::string("nul\0x", 5)), "nul x");
}

TEST(LogLineParser, PythonLoggingFormats) {
    auto h = parseHeaderLine("WARNING:torch.distributed.elastic:Stopping worker group");
    ASSERT_TRUE(h);
    EXPECT_EQ(h->format, LineFormat::PyLogging);
    EXPECT_EQ(h->record.level, Level::Warning);
    EXPECT_EQ(h->record.module, "torch.distributed.elastic");
    EXPECT_EQ(h->record.message, "Stopping worker group");
    EXPECT_FALSE(h->record.tsNs);
    h = parseHeaderLine("INFO:root:epoch 1: loss 0.5");
    ASSERT_TRUE(h);
    EXPECT_EQ(h->record.level, Level::Info);
    EXPECT_EQ(h->record.module, "root");
    EXPECT_EQ(h->record.message, "epoch 1: loss 0.5");

    setenv("TZ", "UTC", 1);
    tzset();
    h = parseHeaderLine("2021-06-15 09:00:01,500 - trainer - ERROR - out of memory");
    ASSERT_TRUE(h);
    EXPECT_EQ(h->format, LineFormat::PyLogging);
    EXPECT_EQ(h->record.level, Level::Error);
    EXPECT_EQ(h->record.module, "trainer");
    EXPECT_EQ(h->record.message, "out of memory");
    EXPECT_EQ(h->record.tsNs, int64_t{1623747601} * 1000000000 + 500000000);
    EXPECT_EQ(formatName(LineFormat::PyLogging), "pylogging");

    // Not Python logging: lower-case levels, no logger name, spaces in the name, other words.
    for (const char* line :
         {"info:root:x", "ERROR: something failed", "WARNING::empty name", "INFO:my logger:x",
          "EPOCH:1:loss", "2021-06-15 09:00:01,500 x", "2021-06-15 09:00:01,500 - a - LOUD - x"}) {
        EXPECT_FALSE(parseHeaderLine(line)) << line;
    }
}
