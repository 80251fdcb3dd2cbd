// A profiled training run end to end: TrainingJob with JobOptions::profile attaches the
// ProfilerObserver to the engine and writes the profile into the session, linked to the run.
// Checks the structure the issue asks for (one op slice per dispatched op, named by type,
// with scope, shapes, dtypes, bytes; ProfilerStep#N and phase slices; forward->backward
// flows; counters; allocations; the schedule) — never durations.
#include <gtest/gtest.h>

#include <rapidjson/document.h>

#include <map>

#include "core/engine/tensor/dispatcher.h"
#include "core/profiler/profiler_observer.h"
#include "core/profiler/run_profiler.h"
#include "core/run/training_job.h"
#include "core/timeline/timeline_model.h"
#include "core/timeline/timeline_query.h"
#include "tests/common/test_support.h"

using ts::store::TraceStore;

namespace {

/// Counts what the dispatcher runs per step, to compare with the profile.
class OpCounter : public ts::engine::OpObserver {
public:
    void onOpBegin(ts::engine::OpEvent& op) override {
        if (op.step > 0) ++perStep[op.step][std::string(op.opType)];
    }
    std::map<int64_t, std::map<std::string, int64_t>> perStep;
};

ts::run::JobOptions smallRun(const std::string& session, const std::string& model, int64_t steps) {
    ts::run::JobOptions o;
    o.train.model = model;
    o.train.dataset = "synthetic";
    o.train.syntheticSamples = 256;
    o.train.batchSize = 16;
    o.train.limitSteps = steps;
    o.train.evalAtEnd = false;
    o.sessionPath = session;
    o.profile = true;
    return o;
}

int64_t q(TraceStore& s, const std::string& sql) {
    auto v = s.db().queryInt(sql);
    EXPECT_TRUE(v.ok()) << sql;
    return v.ok() ? v.value() : -1;
}

}  // namespace

TEST(RunProfiler, ProfiledRunRecordsOpsStepsFlowsCountersAndMemory) {
    const auto session = (ts::test::tempDir("runprof") / "s.tscope").string();
    auto opts = smallRun(session, "mlp", 4);
    ts::run::TrainingJob job(opts);
    ASSERT_TRUE(job.prepare().ok());
    OpCounter counter;
    job.trainer().dispatcher().addObserver(&counter);
    const auto r = job.run();
    ASSERT_EQ(r.status, "completed") << r.reason;
    job.trainer().dispatcher().removeObserver(&counter);
    const auto& out = job.profileOutcome();
    ASSERT_GT(out.sourceId, 0);
    EXPECT_EQ(out.steps, 4);
    EXPECT_TRUE(r.warnings.empty());

    auto store = TraceStore::open(session, TraceStore::Mode::ReadOnly).value();
    auto runs = store->runs().value();
    ASSERT_EQ(runs.size(), 1u);
    ASSERT_TRUE(runs[0].profileSourceId.has_value());
    EXPECT_EQ(*runs[0].profileSourceId, out.sourceId);
    const std::string src = std::to_string(out.sourceId);
    const std::string inSrc =
        " s.track_id IN (SELECT id FROM tracks WHERE source_id = " + src + ") ";
    auto countNamed = [&](const std::string& name, const std::string& extra = "") {
        return q(*store,
                 "SELECT count(*) FROM slices s JOIN strings n ON n.id = s.name_id "
                 "WHERE" +
                     inSrc + "AND n.str = '" + name + "'" + extra);
    };
    for (int step = 1; step <= 4; ++step)
        EXPECT_EQ(countNamed("ProfilerStep#" + std::to_string(step), " AND s.depth = 0"), 1);
    for (const char* phase : {"DataLoading", "Forward", "Backward", "Optimizer", "Callbacks"})
        EXPECT_EQ(countNamed(phase, " AND s.depth = 1"), 4) << phase;

    // One op slice per dispatched op, by type, inside each step.
    for (const auto& [step, ops] : counter.perStep) {
        for (const auto& [type, n] : ops) {
            const std::string sql =
                "SELECT count(*) FROM slices s JOIN strings n ON n.id = s.name_id "
                "JOIN slices st ON st.track_id = s.track_id AND st.depth = 0 AND "
                "st.ts <= s.ts AND s.ts < st.ts + st.dur "
                "JOIN strings sn ON sn.id = st.name_id WHERE" +
                inSrc + "AND s.depth >= 2 AND n.str = '" + type + "' AND sn.str = 'ProfilerStep#" +
                std::to_string(step) + "'";
            EXPECT_EQ(q(*store, sql), n) << type << " in step " << step;
        }
    }
    // Every op carries scope, sequence number, shapes, dtypes and bytes.
    auto args = store->db().prepare(
        "SELECT n.str, a.json FROM slices s JOIN strings n ON n.id = s.name_id "
        "JOIN args a ON a.id = s.arg_set_id WHERE" +
        inSrc);
    int ops = 0, withAlloc = 0;
    rapidjson::Document doc;
    while (args.step()) {
        ++ops;
        ASSERT_FALSE(doc.Parse(args.text(1).c_str()).HasParseError());
        const std::string scope = doc["scope"].GetString();
        EXPECT_NE(scope.find("/" + args.text(0) + "-op"), std::string::npos) << scope;
        ASSERT_TRUE(doc["Input Dims"].IsArray());
        ASSERT_TRUE(doc["Input type"].IsArray());
        EXPECT_EQ(doc["Input Dims"].Size(), doc["Input type"].Size());
        EXPECT_GE(doc["Sequence number"].GetInt64(), 0);
        withAlloc += doc["alloc_bytes"].GetInt64() > 0;
    }
    EXPECT_GT(ops, 40);
    EXPECT_GT(withAlloc, ops / 2);
    // The first MatMul takes the flattened batch and fc1's weight.
    auto mm = store->db().prepare(
        "SELECT a.json FROM slices s JOIN strings n ON n.id = s.name_id JOIN args a ON "
        "a.id = s.arg_set_id WHERE" +
        inSrc + "AND n.str = 'MatMul' ORDER BY s.ts LIMIT 1");
    ASSERT_TRUE(mm.step());
    EXPECT_NE(mm.text(0).find("\"Input Dims\":[[16,784],[256,784]]"), std::string::npos)
        << mm.text(0);
    EXPECT_NE(mm.text(0).find("\"Input type\":[\"Float32\",\"Float32\"]"), std::string::npos);

    // Flows: each links a forward op to a backward op whose scope embeds the forward scope.
    auto flows = store->db().prepare(
        "SELECT ao.json, ai.json FROM flows f JOIN slices so ON so.id = f.slice_out "
        "JOIN slices si ON si.id = f.slice_in JOIN args ao ON ao.id = so.arg_set_id "
        "JOIN args ai ON ai.id = si.arg_set_id WHERE f.source_id = " +
        src);
    int nflows = 0;
    rapidjson::Document a2;
    while (flows.step()) {
        ++nflows;
        doc.Parse(flows.text(0).c_str());
        a2.Parse(flows.text(1).c_str());
        EXPECT_FALSE(doc["backward"].GetBool());
        EXPECT_TRUE(a2["backward"].GetBool());
        const std::string fwd = doc["scope"].GetString(), bwd = a2["scope"].GetString();
        EXPECT_EQ(bwd.rfind("Gradients/" + fwd + "/", 0), 0u) << fwd << " -> " << bwd;
    }
    EXPECT_GT(nflows, 0);
    // Every backward op of the MLP has its forward op in the same step.
    EXPECT_EQ(nflows, q(*store,
                        "SELECT count(*) FROM slices s JOIN args a ON "
                        "a.id = s.arg_set_id WHERE" +
                            inSrc + "AND a.json LIKE '%\"backward\":true%'"));

    // Counters and allocations.
    for (const char* c :
         {"Memory In Use (bytes)", "Memory Pool (bytes)", "samples/s", "loss", "loss scale"})
        EXPECT_GT(q(*store, std::string("SELECT count(*) FROM counters c JOIN tracks t ON "
                                        "t.id = c.track_id JOIN strings n ON n.id = t.name_id "
                                        "WHERE t.source_id = ") +
                                src + " AND n.str = '" + c + "'"),
                  0)
            << c;
    EXPECT_EQ(q(*store,
                "SELECT count(*) FROM counters c JOIN tracks t ON t.id = c.track_id "
                "JOIN strings n ON n.id = t.name_id WHERE t.source_id = " +
                    src + " AND n.str = 'loss'"),
              4);
    EXPECT_GT(q(*store,
                "SELECT count(*) FROM instants i JOIN tracks t ON t.id = i.track_id "
                "JOIN args a ON a.id = i.arg_set_id WHERE t.source_id = " +
                    src +
                    " AND a.json LIKE '%\"op\":\"MatMul\"%' AND a.json LIKE "
                    "'%\"shape\":[16,256]%'"),
              0);
    EXPECT_EQ(q(*store,
                "SELECT count(*) FROM instants i JOIN tracks t ON t.id = i.track_id "
                "JOIN args a ON a.id = i.arg_set_id WHERE t.source_id = " +
                    src + " AND a.json LIKE '%\"tensor\":\"fc1.weight\"%'"),
              1);
    // The slices sit on a thread track named after the training thread.
    EXPECT_EQ(q(*store,
                "SELECT count(*) FROM tracks t JOIN strings n ON n.id = t.name_id "
                "WHERE t.source_id = " +
                    src + " AND t.kind = 'thread' AND n.str LIKE 'training thread %'"),
              1);
    EXPECT_NE(job.summaryJson(r).find("\"profile\":{\"source_id\":" + src), std::string::npos);

    // The timeline model loads the profile like an imported trace, and search finds its ops.
    auto model = ts::timeline::loadTimelineModel(session);
    ASSERT_TRUE(model.ok()) << model.error();
    auto found = ts::timeline::searchSlices(*model.value(), "matmulgrad", false);
    ASSERT_TRUE(found.ok());
    int64_t perStep = 0;
    for (const auto& [step, ops] : counter.perStep)
        if (auto it = ops.find("MatMulGrad"); it != ops.end()) perStep += it->second;
    EXPECT_EQ(static_cast<int64_t>(found.value().matches.size()), perStep);
}

TEST(RunProfiler, ScheduleSkipsAndRecordsAWindow) {
    const auto session = (ts::test::tempDir("runprof_sched") / "s.tscope").string();
    auto opts = smallRun(session, "lenet5", 7);
    std::string error;
    ASSERT_TRUE(ts::profiler::parseScheduleText("1,1,2,2", &opts.profiler.schedule, &error))
        << error;
    opts.profiler.recordShapes = false;
    opts.profiler.profileMemory = false;
    ts::run::TrainingJob job(opts);
    const auto r = job.run();
    ASSERT_EQ(r.status, "completed") << r.reason;
    // Cycle of 4 (wait 1, warmup 1, active 2), twice: steps 3, 4, 7 (the run ends at 7).
    EXPECT_EQ(job.profileOutcome().steps, 3);
    auto store = TraceStore::open(session, TraceStore::Mode::ReadOnly).value();
    const std::string src = std::to_string(job.profileOutcome().sourceId);
    auto steps = store->db().prepare(
        "SELECT n.str FROM slices s JOIN strings n ON n.id = s.name_id JOIN tracks t ON "
        "t.id = s.track_id WHERE t.source_id = " +
        src + " AND n.str LIKE 'ProfilerStep#%' ORDER BY s.ts");
    std::vector<std::string> names;
    while (steps.step()) names.push_back(steps.text(0));
    EXPECT_EQ(names,
              (std::vector<std::string>{"ProfilerStep#3", "ProfilerStep#4", "ProfilerStep#7"}));
    // No shapes, no memory: no allocation instants, no memory counters, no Input Dims.
    EXPECT_EQ(q(*store,
                "SELECT count(*) FROM instants i JOIN tracks t ON t.id = i.track_id "
                "WHERE t.source_id = " +
                    src),
              0);
    EXPECT_EQ(q(*store,
                "SELECT count(*) FROM tracks t JOIN strings n ON n.id = t.name_id "
                "WHERE t.source_id = " +
                    src + " AND n.str LIKE 'Memory%'"),
              0);
    EXPECT_EQ(q(*store,
                "SELECT count(*) FROM args a JOIN slices s ON s.arg_set_id = a.id "
                "JOIN tracks t ON t.id = s.track_id WHERE t.source_id = " +
                    src + " AND a.json LIKE '%Input Dims%'"),
              0);
    // LeNet-5's convolutions are there, with their backward ops linked.
    EXPECT_GT(q(*store,
                "SELECT count(*) FROM slices s JOIN strings n ON n.id = s.name_id "
                "JOIN tracks t ON t.id = s.track_id WHERE t.source_id = " +
                    src + " AND n.str = 'Conv2D'"),
              0);
    EXPECT_GT(q(*store, "SELECT count(*) FROM flows WHERE source_id = " + src), 0);
}

TEST(RunProfiler, OffAttachesNothingAndAWindowNeverReachedWritesNothing) {
    const auto session = (ts::test::tempDir("runprof_off") / "s.tscope").string();
    auto opts = smallRun(session, "mlp", 2);
    opts.profile = false;
    ts::run::TrainingJob off(opts);
    ASSERT_TRUE(off.prepare().ok());
    EXPECT_FALSE(off.trainer().dispatcher().observed());
    ASSERT_EQ(off.run().status, "completed");
    EXPECT_EQ(off.profileOutcome().sourceId, 0);
    EXPECT_NE(off.summaryJson(ts::engine::TrainResult{}).find("\"profile\":null"),
              std::string::npos);

    opts.profile = true;
    opts.profiler.schedule.wait = 10;  // the run ends before the window
    ts::run::TrainingJob late(opts);
    const auto r = late.run();
    ASSERT_EQ(r.status, "completed");
    EXPECT_EQ(late.profileOutcome().sourceId, 0);
    ASSERT_EQ(r.warnings.size(), 1u);
    EXPECT_NE(r.warnings[0].find("profile empty"), std::string::npos);
    auto store = TraceStore::open(session, TraceStore::Mode::ReadOnly).value();
    for (const auto& run : store->runs().value()) EXPECT_FALSE(run.profileSourceId.has_value());
    EXPECT_EQ(q(*store, "SELECT count(*) FROM sources WHERE kind = 'profiler'"), 0);

    opts.profiler.schedule.active = 0;  // rejected up front
    ts::run::TrainingJob bad(opts);
    EXPECT_FALSE(bad.prepare().ok());
}

TEST(RunProfiler, ScheduleText) {
    ts::profiler::ProfileSchedule s;
    std::string e;
    ASSERT_TRUE(ts::profiler::parseScheduleText("2,1,3,0,5", &s, &e)) << e;
    EXPECT_EQ(s.wait, 2);
    EXPECT_EQ(s.warmup, 1);
    EXPECT_EQ(s.active, 3);
    EXPECT_EQ(s.repeat, 0);
    EXPECT_EQ(s.skipFirst, 5);
    EXPECT_EQ(ts::profiler::scheduleText(s), "wait=2,warmup=1,active=3,repeat=0,skip_first=5");
    ASSERT_TRUE(ts::profiler::parseScheduleText("wait=1,active=2", &s, &e)) << e;
    EXPECT_EQ(s.wait, 1);
    EXPECT_EQ(s.active, 2);
    for (const char* bad : {"", "1,2,3", "1,2,x,4", "1,2,0,1", "-1,0,1,1", "1,1,1,1,1,1",
                            "wait=1,active=0", "bogus=2"})
        EXPECT_FALSE(ts::profiler::parseScheduleText(bad, &s, &e)) << bad;
}
