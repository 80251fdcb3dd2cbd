// Kineto's process_labels ("CPU", "GPU 0") are part of the process names the timeline shows
// (issue 26, item 9): the processes of one program then tell apart.
#include <gtest/gtest.h>

#include <filesystem>

#include "core/timeline/timeline_model.h"
#include "tests/common/import_session.h"
#include "tests/common/test_support.h"

namespace ts::timeline {
namespace {

TEST(ProcessTitle, LabelsFollowTheNameAndPid) {
    EXPECT_EQ(processTitle("python3", "0", "GPU 0"), "python3 (0) \u00b7 GPU 0");
    EXPECT_EQ(processTitle("python3", "823", ""), "python3 (823)");
    EXPECT_EQ(processTitle("", "7", "CPU"), "Process 7 \u00b7 CPU");
    EXPECT_EQ(processTitle("rank0: GPU 0", "0", "GPU 0"), "rank0: GPU 0 (0)");  // not twice
}

TEST(ProcessTitle, KinetoTraceOfPyTorch211ShowsItsLabels) {
    const std::filesystem::path trace =
        std::filesystem::path(TRAINSCOPE_SOURCE_DIR) /
        "tests/data/torch211_h200/transformer_bf16_h200.pt.trace.json.gz";
    ASSERT_TRUE(std::filesystem::exists(trace)) << trace;
    const std::string session = (ts::test::tempDir("ptitle") / "s.tscope").string();
    auto imported = ts::test::importInto(session, trace.string());
    ASSERT_TRUE(imported.store);
    imported.store.reset();
    auto m = loadTimelineModel(session);
    ASSERT_TRUE(m.ok()) << m.error();
    bool cpu = false, gpu0 = false;
    for (const TrackGroup& g : m.value()->groups) {
        cpu |= g.title == "python3 (823) \u00b7 CPU";
        gpu0 |= g.title == "python3 (0) \u00b7 GPU 0";
    }
    EXPECT_TRUE(cpu);
    EXPECT_TRUE(gpu0);
}

}  // namespace
}  // namespace ts::timeline
