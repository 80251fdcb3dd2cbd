#include <gtest/gtest.h>

#include "core/timeline/slice_details.h"
#include "tests/common/test_support.h"
#include "tests/timeline/timeline_fixture.h"

namespace ts::timeline {
namespace {

TEST(SliceDetails, NameTimesArgsAndFlows) {
    const auto path = (test::tempDir("tl_details") / "s.tscope").string();
    const auto ids = test::writeTimelineFixture(path);
    auto d = readSliceDetails(path, ids.linear1);
    ASSERT_TRUE(d.ok()) << d.error();
    EXPECT_EQ(d->name, "aten::linear");
    EXPECT_EQ(d->category, "cpu_op");
    EXPECT_EQ(d->ts, 10);
    EXPECT_EQ(d->dur, 30);
    EXPECT_EQ(d->selfNs, 20);
    EXPECT_NE(d->argsJson.find("\"Input Dims\": ["), std::string::npos) << d->argsJson;
    auto addmm = readSliceDetails(path, ids.addmm);
    ASSERT_TRUE(addmm.ok());
    ASSERT_EQ(addmm->flowsOut.size(), 1u);
    EXPECT_EQ(addmm->flowsOut[0].sliceId, ids.gemm1);
    EXPECT_EQ(addmm->flowsOut[0].name, "gemm");
    EXPECT_EQ(addmm->flowsOut[0].flowName, "ac2g");
    EXPECT_TRUE(addmm->argsJson.empty());
    EXPECT_EQ(addmm->track, "main (1)");  // thread track without a name of its own
    auto gemm = readSliceDetails(path, ids.gemm1);
    ASSERT_TRUE(gemm.ok());
    ASSERT_EQ(gemm->flowsIn.size(), 1u);
    EXPECT_EQ(gemm->flowsIn[0].sliceId, ids.addmm);
    EXPECT_EQ(gemm->track, "stream 7");
    EXPECT_FALSE(readSliceDetails(path, 4242).ok());
}

TEST(SliceDetails, PrettyJsonKeepsBigIntegersAndBadText) {
    EXPECT_EQ(prettyJson(R"({"a":1})"), "{\n  \"a\": 1\n}");
    EXPECT_NE(prettyJson(R"({"id":123456789012345678901234567890})")
                  .find("123456789012345678901234567890"),
              std::string::npos);
    EXPECT_EQ(prettyJson("not json"), "not json");
}

}  // namespace
}  // namespace ts::timeline
