#pragma once
// Synthetic run profiles in the recorder's layout (core/profiler/profile_recorder.cpp):
// an "engine" thread track with ProfilerStep#N > phase > op slices, fwd_bwd flows, memory
// counters and an "Allocations" track. Two shapes:
//  - balanced: 5 steps of 100 ns (DataLoading 5, Forward 40, Backward 40, Optimizer 10,
//    Callbacks 3, 2 ns other), 4 forward + 4 backward ops of 10 ns, SGDUpdate 10 ns;
//  - slow: 5 steps of 200 ns (DataLoading 60, Forward 100 = Linear 90 (self 4, child MatMul
//    86) + Contiguous 10, Backward 30 = MatMulGrad 20 + Copy 10, Optimizer 10 = SGDUpdate),
//    the first step 600 ns longer (warm-up), step #4 60 ns longer (slow).
// Steps start at 1000 ns, 10 ns apart. Memory in use peaks at 900 bytes at t = 1150.
#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "core/store/store_writer.h"
#include "core/store/trace_store.h"

namespace ts::test {

struct ProfileFixture {
    int64_t sourceId = 0;
    int64_t runId = 0;
    std::vector<int64_t> stepIds, stepTs, stepDur;
    std::vector<int64_t> matmulIds, copyIds, loadingIds;  // per step
};

namespace detail {
struct OpSpec {
    const char* name;
    int64_t dur;
    bool backward = false;
    const char* child = nullptr;  // one child op, 1 ns after the start, 4 ns shorter
    bool copy = false;
};
struct PhaseSpec {
    const char* name;
    std::vector<OpSpec> ops;  // phase duration = sum of op durations (or `dur` when no ops)
    int64_t dur = 0;
};
}  // namespace detail

/// Writes one profile source into `path` (created if needed); `slow` picks the shape.
inline ProfileFixture writeProfileFixture(const std::filesystem::path& path, bool slow) {
    using namespace detail;
    auto st = store::TraceStore::open(path.string(), store::TraceStore::Mode::Create);
    if (!st) throw std::runtime_error(st.error());
    store::TraceStore& s = *st.value();
    ProfileFixture fx;
    fx.runId = s.beginRun(slow ? "slow" : "balanced", "{}").value();
    fx.sourceId = s.beginSource(slow ? "slow profile" : "balanced profile", "profiler").value();
    std::vector<PhaseSpec> phases;
    if (slow)
        phases = {{"DataLoading", {}, 60},
                  {"Forward",
                   {{"Linear", 90, false, "MatMul"}, {"Contiguous", 10, false, nullptr, true}}},
                  {"Backward", {{"MatMulGrad", 20, true}, {"Copy", 10, true, nullptr, true}}},
                  {"Optimizer", {{"SGDUpdate", 10}}}};
    else
        phases = {{"DataLoading", {}, 5},
                  {"Forward", {{"MatMul", 10}, {"Add", 10}, {"Relu", 10}, {"Softmax", 10}}},
                  {"Backward",
                   {{"MatMulGrad", 10, true},
                    {"AddGrad", 10, true},
                    {"ReluGrad", 10, true},
                    {"SoftmaxGrad", 10, true}}},
                  {"Optimizer", {{"SGDUpdate", 10}}},
                  {"Callbacks", {}, 3}};
    {
        store::StoreWriter w(s, fx.sourceId);
        const int64_t proc = w.addProcess("trainscope", "TrainScope engine");
        const int64_t track =
            w.addTrack("thread", proc, w.addThread(proc, "engine", "engine"), "engine");
        const int64_t catStep = w.intern("step"), catPhase = w.intern("phase"),
                      catOp = w.intern("cpu_op"), catCopy = w.intern("gpu_memcpy");
        auto slice = [&](int64_t ts, int64_t dur, int depth, const std::string& name, int64_t cat,
                         const std::string& args = {}) {
            store::SliceRow r;
            r.trackId = track, r.ts = ts, r.dur = dur, r.depth = depth;
            r.nameId = w.intern(name), r.catId = cat;
            if (!args.empty()) r.argSetId = w.addArgs(args);
            return w.addSlice(r);
        };
        int64_t t = 1000;
        int64_t seq = 0;
        for (int step = 1; step <= 5; ++step) {
            int64_t body = 0;
            for (const auto& p : phases) {
                int64_t pd = p.dur;
                for (const auto& o : p.ops) pd += o.dur;
                body += pd;
            }
            int64_t extra = slow ? (step == 1 ? 600 : step == 4 ? 60 : 0) : 100 - body;
            const int64_t dur = body + extra;
            fx.stepIds.push_back(slice(t, dur, 0, "ProfilerStep#" + std::to_string(step), catStep));
            fx.stepTs.push_back(t);
            fx.stepDur.push_back(dur);
            int64_t pt = t;
            int64_t fwdMatmul = 0;
            for (const auto& p : phases) {
                int64_t pd = p.dur;
                for (const auto& o : p.ops) pd += o.dur;
                const int64_t pid = slice(pt, pd, 1, p.name, catPhase);
                if (std::string(p.name) == "DataLoading") fx.loadingIds.push_back(pid);
                int64_t ot = pt;
                for (const auto& o : p.ops) {
                    const std::string args =
                        "{\"scope\":\"Default/net/" + std::string(o.name) +
                        "\",\"seqid\":" + std::to_string(++seq) +
                        ",\"Input Dims\":[[64,128]],\"Input type\":[\"float32\"]"
                        ",\"alloc_bytes\":0,\"free_bytes\":0,\"backward\":" +
                        (o.backward ? "true" : "false") + "}";
                    const int64_t oid = slice(ot, o.dur, 2, o.name, o.copy ? catCopy : catOp, args);
                    if (o.copy) fx.copyIds.push_back(oid);
                    if (std::string(o.name) == "MatMul")
                        fwdMatmul = oid, fx.matmulIds.push_back(oid);
                    if (std::string(o.name) == "MatMulGrad" && fwdMatmul)
                        w.addFlow(fwdMatmul, oid, w.intern("fwd_bwd"), w.intern("fwd_bwd"));
                    if (o.child) {
                        const int64_t cid = slice(ot + 1, o.dur - 4, 3, o.child, catOp, args);
                        fx.matmulIds.push_back(cid);
                        fwdMatmul = cid;
                    }
                    ot += o.dur;
                }
                pt += pd;
            }
            t += dur + 10;
        }
        const int64_t inUse = w.addTrack("counter", proc, 0, "Memory In Use (bytes)");
        for (auto [ts, v] : std::vector<std::pair<int64_t, double>>{
                 {1000, 100}, {1100, 500}, {1150, 900}, {1200, 300}})
            w.addCounter(inUse, ts, v);
        const int64_t pool = w.addTrack("counter", proc, 0, "Memory Pool (bytes)");
        w.addCounter(pool, 1000, 1024);
        w.addCounter(pool, 1150, 2048);
        const int64_t sps = w.addTrack("counter", proc, 0, "samples/s");
        w.addCounter(sps, 1100, 640);
        const int64_t alloc = w.addTrack(
            "thread", proc, w.addThread(proc, "allocations", "Allocations"), "Allocations");
        const int64_t an = w.intern("alloc"), mc = w.intern("memory");
        w.addInstant(
            alloc, 1050, an, mc, 't',
            w.addArgs(
                R"({"bytes":400,"op":"MatMul","tensor":"t1","shape":[64,128],"free_ts":null})"));
        w.addInstant(
            alloc, 1100, an, mc, 't',
            w.addArgs(
                R"({"bytes":300,"op":"Contiguous","tensor":"t2","shape":[64,64],"free_ts":1140})"));
        w.addInstant(
            alloc, 1120, an, mc, 't',
            w.addArgs(R"({"bytes":200,"op":"Add","tensor":"t3","shape":[8],"free_ts":1300})"));
        w.addInstant(
            alloc, 1200, an, mc, 't',
            w.addArgs(R"({"bytes":999,"op":"Relu","tensor":"t4","shape":[9],"free_ts":null})"));
        if (auto f = w.flush(); !f) throw std::runtime_error(f.error());
    }
    store::SourceSummary sum;
    sum.status = ts::store::SourceStatus::Complete;
    sum.tsMin = fx.stepTs.front();
    sum.tsMax = fx.stepTs.back() + fx.stepDur.back();
    if (auto f = s.finishSource(fx.sourceId, sum); !f) throw std::runtime_error(f.error());
    if (auto f = s.setRunProfileSource(fx.runId, fx.sourceId); !f)
        throw std::runtime_error(f.error());
    return fx;
}

}  // namespace ts::test
