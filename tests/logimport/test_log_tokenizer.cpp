// Lines to records: continuation lines, tracebacks as one record, unknown lines kept.
#include <gtest/gtest.h>

#include "core/log/log_tokenizer.h"

using namespace ts::log;
using ts::log::Level;
using ts::log::LogRecord;

namespace {
std::vector<LogRecord> tokenize(const std::vector<std::string>& lines,
                                TokenizerStats* stats = nullptr) {
    std::vector<LogRecord> out;
    LogTokenizer tok([&out](LogRecord&& r) { out.push_back(std::move(r)); });
    for (const auto& l : lines) tok.addLine(l);
    tok.finish();
    if (stats) *stats = tok.stats();
    return out;
}
}  // namespace

TEST(LogTokenizer, IndentedLinesContinueTheRecord) {
    auto recs = tokenize(
        {"[ERROR] ME(1,a,p):2021-01-01-12:00:00.000.000 [a.cc:1] F] failed:", "    op: Conv2D", "",
         "    shape: [1]", "[INFO] ME(1,a,p):2021-01-01-12:00:01.000.000 [a.cc:2] F] next"});
    ASSERT_EQ(recs.size(), 2u);
    EXPECT_EQ(recs[0].message, "failed:\n    op: Conv2D\n\n    shape: [1]");
    EXPECT_EQ(recs[1].message, "next");
}

TEST(LogTokenizer, TracebackIsOneRecordWithChainedExceptions) {
    TokenizerStats stats;
    auto recs = tokenize({"before", "Traceback (most recent call last):",
                          "  File \"a.py\", line 1, in <module>", "    f()", "KeyError: 'x'", "",
                          "During handling of the above exception, another exception occurred:", "",
                          "Traceback (most recent call last):", "  File \"b.py\", line 2",
                          "RuntimeError: boom", "after"},
                         &stats);
    ASSERT_EQ(recs.size(), 3u);
    EXPECT_EQ(recs[0].message, "before");
    EXPECT_EQ(recs[1].level, Level::Error);
    EXPECT_EQ(recs[1].module, "PYTHON");
    EXPECT_EQ(recs[1].message.rfind("Traceback (most recent call last):", 0), 0u);
    EXPECT_NE(recs[1].message.find("KeyError: 'x'\n\nDuring handling"), std::string::npos);
    EXPECT_TRUE(recs[1].message.ends_with("RuntimeError: boom"));
    EXPECT_EQ(recs[2].message, "after");
    EXPECT_EQ(stats.lines, 12);
    EXPECT_EQ(stats.records, 3);
    EXPECT_EQ(stats.formats["traceback"], 1);
    EXPECT_EQ(stats.formats["unknown"], 2);
}

TEST(LogTokenizer, UnknownLinesAreRecordsWithGuessedLevel) {
    auto recs = tokenize({"RuntimeError: NPU error", "plain\r", "  indented first line"});
    ASSERT_EQ(recs.size(), 2u);
    EXPECT_EQ(recs[0].level, Level::Error);
    EXPECT_EQ(recs[0].module, "");
    EXPECT_FALSE(recs[0].tsNs);
    EXPECT_EQ(recs[1].message, "plain\n  indented first line");
}

TEST(LogTokenizer, LeadingIndentedLineWithoutRecordIsItsOwnRecord) {
    auto recs = tokenize({"   lonely", "", ""});
    ASSERT_EQ(recs.size(), 1u);
    EXPECT_EQ(recs[0].message, "   lonely");
}

TEST(LogTokenizer, MindSporeCallStackStaysWithItsException) {
    auto recs = tokenize(
        {"Traceback (most recent call last):", "  File \"train.py\", line 9, in <module>",
         "    model.train(1, ds)",
         "RuntimeError: mindspore/ccsrc/runtime/graph_scheduler/graph_scheduler.cc:1031 Run] "
         "Launch kernel failed",
         "", "----------------------------------------------------",
         "- C++ Call Stack: (For framework developers)",
         "----------------------------------------------------",
         "mindspore/ccsrc/runtime/graph_scheduler/graph_scheduler.cc:1031 Run",
         "mindspore/ccsrc/plugin/device/cpu/hal/hardware/cpu_device_context.cc:412 LaunchKernel",
         "epoch done"});
    ASSERT_EQ(recs.size(), 2u);
    EXPECT_EQ(recs[0].module, "PYTHON");
    EXPECT_NE(recs[0].message.find("cpu_device_context.cc:412 LaunchKernel"), std::string::npos);
    EXPECT_NE(recs[0].message.find("\n\n----"), std::string::npos);  // the blank line is kept
    EXPECT_EQ(recs[1].message, "epoch done");
}
