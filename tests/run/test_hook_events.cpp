// The Python package's events (docs/RUNS.md).
#include <gtest/gtest.h>

#include <cmath>

#include "core/run/hook_events.h"

using namespace ts::run;
using T = HookEvent::Type;

TEST(HookEvents, EveryType) {
    auto e = parseHookEvent(
        R"({"type":"hello","pid":12,"rank":1,"world_size":2,"python":"3.11","torch":"1.13.0","features":["loss","profile"]})");
    ASSERT_TRUE(e);
    EXPECT_EQ(e->type, T::Hello);
    EXPECT_EQ(e->pid, 12);
    EXPECT_EQ(e->worldSize, 2);
    EXPECT_EQ(e->torch, "1.13.0");
    EXPECT_EQ(e->features.size(), 2u);
    e = parseHookEvent(R"({"type":"hello","pid":12,"rank":0,"torch":null})");
    ASSERT_TRUE(e);
    EXPECT_EQ(e->torch, "");
    e = parseHookEvent(R"({"type":"scalar","tag":"train/loss","step":3,"value":0.5,"ts":100})");
    ASSERT_TRUE(e);
    EXPECT_EQ(e->type, T::Scalar);
    EXPECT_EQ(e->text, "train/loss");
    EXPECT_EQ(e->step, 3);
    EXPECT_EQ(e->ts, 100);
    e = parseHookEvent(R"({"type":"scalar","tag":"train/loss","step":4,"value":"nan"})");
    ASSERT_TRUE(e);
    EXPECT_TRUE(std::isnan(e->value));
    e = parseHookEvent(R"({"type":"trace","path":"/x/a.pt.trace.json"})");
    ASSERT_TRUE(e);
    EXPECT_EQ(e->type, T::Trace);
    e = parseHookEvent(R"({"type":"dump_file","path":"/d/step_2.h5","step":2})");
    ASSERT_TRUE(e);
    EXPECT_EQ(e->step, 2);
    e = parseHookEvent(
        R"({"type":"overflow","step":5,"op":"Linear","scope":"Net/fc1","seqid":0,"tensor":"output/0","nan":3,"posinf":1,"neginf":0})");
    ASSERT_TRUE(e);
    EXPECT_EQ(e->op, "Linear");
    EXPECT_EQ(e->nan, 3u);
    EXPECT_EQ(e->posinf, 1u);
    e = parseHookEvent(R"({"type":"stop","reason":"NaN at step 5 in Net/fc1"})");
    ASSERT_TRUE(e);
    EXPECT_EQ(e->type, T::Stop);
    e = parseHookEvent(R"({"type":"warning","message":"h5py missing"})");
    ASSERT_TRUE(e);
    e = parseHookEvent(R"({"type":"step","step":9,"ts":5})");
    ASSERT_TRUE(e);
    EXPECT_EQ(e->step, 9);
}

TEST(HookEvents, BadLinesSayWhy) {
    std::string why;
    EXPECT_FALSE(parseHookEvent("{not json", &why));
    EXPECT_EQ(why, "not a JSON object");
    EXPECT_FALSE(parseHookEvent(R"({"type":"mystery"})", &why));
    EXPECT_NE(why.find("mystery"), std::string::npos);
    EXPECT_FALSE(parseHookEvent(R"({"type":"scalar","tag":"x","step":1})", &why));
    EXPECT_FALSE(parseHookEvent(R"({"type":"trace"})", &why));
    EXPECT_FALSE(parseHookEvent(R"({"type":"overflow","op":"X"})", &why));
    EXPECT_FALSE(parseHookEvent(R"([1])", &why));
}
