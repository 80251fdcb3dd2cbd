#pragma once
// A small synthetic session written through StoreWriter, shared by the timeline, stats and
// view tests. Layout (times in ns):
//   process "gpu" (pid 200, sort 0): gpu_stream track "stream 7": gemm [20,25] [22,27]
//       (overlapping) [60,65], category "kernel"
//   process "python" (pid 100, sort 1), thread "main" (tid 1), track "main":
//     ProfilerStep#1 [0,100]                      user_annotation
//       aten::linear [10,40]  Input Dims [[2,3],[3,4]]   cpu_op
//         aten::addmm [12,22]                      cpu_op   --flow--> first gemm
//       aten::linear [50,70]  Input Dims [[8,3],[3,4]]   cpu_op
//     ProfilerStep#2 [200,250]
//       aten::relu [210,230]                       cpu_op
//     instant "mark" at 5; process counter "mem": 1 at 0, 3 at 50
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/store/store_writer.h"
#include "core/store/trace_store.h"

namespace ts::test {

struct TimelineFixtureIds {
    int64_t step1 = 0, linear1 = 0, addmm = 0, linear2 = 0, step2 = 0, relu = 0;
    int64_t gemm1 = 0, gemm2 = 0, gemm3 = 0;
    int64_t threadTrack = 0, gpuTrack = 0, counterTrack = 0;
    int64_t sourceId = 0;
};

inline TimelineFixtureIds writeTimelineFixture(const std::filesystem::path& path) {
    using namespace ts::store;
    TimelineFixtureIds ids;
    auto opened = TraceStore::open(path.string(), TraceStore::Mode::Create);
    EXPECT_TRUE(opened.ok()) << (opened.ok() ? "" : opened.error());
    TraceStore& s = *opened.value();
    ids.sourceId = s.beginSource("synthetic.json", "chrome_json").value();
    {
        StoreWriter w(s, ids.sourceId);
        const int64_t gpu = w.addProcess("200", "gpu", 0);
        const int64_t py = w.addProcess("100", "python", 1);
        const int64_t main = w.addThread(py, "1", "main");
        ids.threadTrack = w.addTrack("thread", py, main, "");
        ids.gpuTrack = w.addTrack("gpu_stream", gpu, 0, "stream 7");
        ids.counterTrack = w.addTrack("counter", py, 0, "mem");
        const int64_t cpu = w.intern("cpu_op"), kernel = w.intern("kernel");
        auto slice = [&](int64_t track, int64_t ts, int64_t dur, int depth, const char* name,
                         int64_t cat, int64_t args = 0) {
            SliceRow r;
            r.trackId = track;
            r.ts = ts;
            r.dur = dur;
            r.depth = depth;
            r.nameId = w.intern(name);
            r.catId = cat;
            r.argSetId = args;
            return w.addSlice(r);
        };
        const int64_t ua = w.intern("user_annotation");
        // Written children-first, as a B/E importer would.
        ids.addmm = slice(ids.threadTrack, 12, 10, 2, "aten::addmm", cpu);
        ids.linear1 = slice(ids.threadTrack, 10, 30, 1, "aten::linear", cpu,
                            w.addArgs(R"({"Input Dims": [[2,3],[3,4]]})"));
        ids.linear2 = slice(ids.threadTrack, 50, 20, 1, "aten::linear", cpu,
                            w.addArgs(R"({"Input Dims": [[8,3],[3,4]]})"));
        ids.step1 = slice(ids.threadTrack, 0, 100, 0, "ProfilerStep#1", ua);
        ids.relu = slice(ids.threadTrack, 210, 20, 1, "aten::relu", cpu);
        ids.step2 = slice(ids.threadTrack, 200, 50, 0, "ProfilerStep#2", ua);
        ids.gemm1 = slice(ids.gpuTrack, 20, 5, 0, "gemm", kernel);
        ids.gemm2 = slice(ids.gpuTrack, 22, 5, 0, "gemm", kernel);
        ids.gemm3 = slice(ids.gpuTrack, 60, 5, 0, "gemm", kernel);
        w.addFlow(ids.addmm, ids.gemm1, w.intern("ac2g"), 0);
        w.addInstant(ids.threadTrack, 5, w.intern("mark"), 0, 't', 0);
        w.addCounter(ids.counterTrack, 0, 1.0);
        w.addCounter(ids.counterTrack, 50, 3.0);
        EXPECT_TRUE(w.flush().ok());
    }
    SourceSummary sum;
    sum.status = ts::store::SourceStatus::Complete;
    sum.slices = 9;
    EXPECT_TRUE(s.finishSource(ids.sourceId, sum).ok());
    EXPECT_TRUE(s.buildIndexes().ok());
    return ids;
}

}  // namespace ts::test
