// ProfileRecorder: schedule semantics and what a recorded profile looks like in the store.
#include <gtest/gtest.h>

#include "core/profiler/profile_recorder.h"
#include "tests/common/test_support.h"

using namespace ts::profiler;
using ts::store::TraceStore;

TEST(ProfileSchedule, FollowsTorchSemantics) {
    ProfileSchedule s;
    ASSERT_TRUE(s.parse("skip_first=1,wait=1,warmup=1,active=2,repeat=2"));
    using A = ProfileSchedule::Action;
    const A expected[] = {A::None,   A::None,   A::Warmup, A::Record, A::Record, A::None,
                          A::Warmup, A::Record, A::Record, A::None,   A::None};
    for (int step = 0; step < 11; ++step)
        EXPECT_EQ(s.actionFor(step), expected[step]) << "step " << step;
    EXPECT_FALSE(ProfileSchedule{}.parse("wait=x"));
    EXPECT_FALSE(ProfileSchedule{}.parse("active=0"));
    EXPECT_FALSE(ProfileSchedule{}.parse("bogus=1"));
}

namespace {
void runStep(ProfileRecorder& r, int64_t step) {
    r.stepBegin(step);
    r.phaseBegin(Phase::DataLoading);
    r.phaseEnd();
    r.phaseBegin(Phase::Forward);
    const int64_t mm = r.opBegin("MatMul", "Default/net/fc1-Dense/MatMul-op1", 1, false, -1,
                                 {{64, 784}, {784, 256}}, {"float32", "float32"});
    const int64_t a = r.allocation(64 * 256 * 4, "fc1.out", {64, 256});
    r.opEnd(mm, 64 * 256 * 4, 0);
    r.phaseEnd();
    r.phaseBegin(Phase::Backward);
    const int64_t g = r.opBegin("MatMulGrad", "Gradients/Default/net/fc1-Dense/MatMul-op1", 2, true,
                                1, {{64, 256}}, {"float32"});
    r.opEnd(g, 0, 64 * 256 * 4);
    r.release(a);
    r.phaseEnd();
    r.counter(Counter::Loss, 0.5);
    r.counter(Counter::MemoryInUse, 65536);
    r.stepEnd();
}
}  // namespace

TEST(ProfileRecorder, WritesStepsPhasesOpsFlowsCountersAndAllocations) {
    ProfilerOptions opts;
    ASSERT_TRUE(opts.schedule.parse("wait=1,active=2,repeat=1"));
    ProfileRecorder r(opts);
    for (int step = 0; step < 5; ++step) runStep(r, step);
    EXPECT_EQ(r.recordedSteps(), 2);

    const std::string path = (ts::test::tempDir("prof") / "p.tscope").string();
    auto store = TraceStore::open(path, TraceStore::Mode::Create).value();
    const int64_t run = store->beginRun("mlp", "{}").value();
    auto src = r.writeTo(*store, run, "run 1 profile");
    ASSERT_TRUE(src.ok()) << src.error();
    auto& db = store->db();
    auto q = [&](const std::string& sql) { return db.queryInt(sql).value(); };
    EXPECT_EQ(q("SELECT count(*) FROM slices s JOIN strings n ON n.id=s.name_id "
                "WHERE n.str LIKE 'ProfilerStep#%' AND depth=0"),
              2);
    EXPECT_EQ(q("SELECT count(*) FROM slices s JOIN strings n ON n.id=s.name_id WHERE "
                "n.str='ProfilerStep#1'"),
              1);
    EXPECT_EQ(q("SELECT count(*) FROM slices s JOIN strings n ON n.id=s.name_id "
                "WHERE n.str IN ('DataLoading','Forward','Backward') AND depth=1"),
              6);
    EXPECT_EQ(q("SELECT count(*) FROM slices s JOIN strings n ON n.id=s.name_id WHERE "
                "n.str='MatMul' AND depth=2"),
              2);
    EXPECT_EQ(q("SELECT count(*) FROM flows"), 2);
    EXPECT_EQ(q("SELECT count(*) FROM flows f WHERE f.slice_in IN (SELECT id FROM slices WHERE "
                "name_id=(SELECT id FROM strings WHERE str='MatMulGrad'))"),
              2);
    EXPECT_EQ(q("SELECT count(*) FROM counters"), 4);
    EXPECT_EQ(q("SELECT count(*) FROM instants"), 2);
    auto args = db.prepare(
        "SELECT a.json FROM slices s JOIN args a ON a.id=s.arg_set_id "
        "WHERE s.name_id=(SELECT id FROM strings WHERE str='MatMul') LIMIT 1");
    ASSERT_TRUE(args.step());
    const std::string json = args.text(0);
    EXPECT_NE(json.find("\"Input Dims\":[[64,784],[784,256]]"), std::string::npos) << json;
    EXPECT_NE(json.find("\"scope\":\"Default/net/fc1-Dense/MatMul-op1\""), std::string::npos);
    EXPECT_NE(json.find("\"alloc_bytes\":65536"), std::string::npos);
    auto runs = store->runs().value();
    ASSERT_EQ(runs.size(), 1u);
    ASSERT_TRUE(runs[0].profileSourceId.has_value());
    EXPECT_EQ(*runs[0].profileSourceId, src.value());
    // Nesting: every op lies inside its phase, every phase inside its step.
    EXPECT_EQ(q("SELECT count(*) FROM slices c JOIN slices p ON p.track_id=c.track_id AND "
                "p.depth=c.depth-1 AND p.ts<=c.ts AND c.ts+c.dur<=p.ts+p.dur"),
              q("SELECT count(*) FROM slices WHERE depth>0 AND track_id=(SELECT min(track_id) FROM "
                "slices)"));
}

TEST(ProfileRecorder, NothingRecordedOutsideTheWindow) {
    ProfilerOptions opts;
    ASSERT_TRUE(opts.schedule.parse("skip_first=10,active=1"));
    ProfileRecorder r(opts);
    for (int step = 0; step < 5; ++step) runStep(r, step);
    EXPECT_EQ(r.recordedSteps(), 0);
    EXPECT_EQ(r.recordedSlices(), 0);
}
