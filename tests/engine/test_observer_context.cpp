// An observer attached before Trainer::run() — with no prepare() call first — sees every op
// and every allocation of the run (run() used to lose its pool and dispatcher to the
// ThreadContext of the prepare() it calls; found by the RDR overhead benchmark).
#include <gtest/gtest.h>

#include "core/engine/train/trainer.h"

using namespace ts::engine;

namespace {

struct Counter : OpObserver {
    long ops = 0, steps = 0, allocs = 0;
    void onOpBegin(OpEvent&) override { ++ops; }
    void onStepBegin(const StepInfo&) override { ++steps; }
    void onMemory(const MemoryEvent& ev) override { allocs += ev.alloc ? 1 : 0; }
};

}  // namespace

TEST(TrainerObservers, RunWithoutPrepareStillDispatchesThroughTheTrainer) {
    TrainConfig c;
    c.model = "mlp";
    c.dataset = "synthetic";
    c.syntheticSamples = 256;
    c.batchSize = 32;
    c.limitSteps = 3;
    c.evalAtEnd = false;
    Trainer t(c);
    Counter counter;
    t.dispatcher().addObserver(&counter);
    const auto r = t.run();
    ASSERT_EQ(r.status, "completed") << r.reason;
    EXPECT_EQ(counter.steps, 3);
    EXPECT_GT(counter.ops, 3 * 10);  // forward, backward and optimizer ops of 3 steps
    EXPECT_GT(counter.allocs, 0);
    EXPECT_GT(t.memoryPool().peakBytes(), 0);
}
