#pragma once
// Small profile sources for the run diff tests: one thread with ProfilerStep#N slices, each
// holding a given sequence of leaf ops (category cpu_op) one after the other, optionally a
// device stream with one kernel per op named "<op>_kernel".
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/store/store_writer.h"
#include "core/store/trace_store.h"

namespace ts::test {

struct DiffOp {
    std::string name;
    int64_t dur = 0;
};

struct DiffProfileSpec {
    std::string label = "profile";
    int steps = 4;
    int64_t firstStep = 1;
    std::vector<DiffOp> ops;       // every step, in order
    int64_t gap = 5;               // ns between ops (idle)
    bool kernels = false;          // a stream with one kernel per op
    std::vector<int64_t> extraNs;  // per step: added to the idle time at the step's end
};

/// Appends one profile source to the session at `path` (created when missing); returns its id.
inline int64_t writeDiffProfile(const std::filesystem::path& path, const DiffProfileSpec& spec) {
    auto st = store::TraceStore::open(path.string(), store::TraceStore::Mode::Create);
    if (!st) throw std::runtime_error(st.error());
    store::TraceStore& s = *st.value();
    const int64_t source = s.beginSource(spec.label, "chrome_json").value();
    int64_t t = 1000, first = 0, last = 0;
    {
        store::StoreWriter w(s, source);
        const int64_t proc = w.addProcess("100", spec.label);
        const int64_t track = w.addTrack("thread", proc, w.addThread(proc, "1", "main"), "main");
        const int64_t gpu = w.addProcess("0", "GPU 0");
        const int64_t stream =
            w.addTrack("thread", gpu, w.addThread(gpu, "7", "stream 7"), "stream 7");
        const int64_t catOp = w.intern("cpu_op"), catKernel = w.intern("kernel");
        auto slice = [&](int64_t trk, int64_t ts, int64_t dur, int depth, const std::string& name,
                         int64_t cat) {
            store::SliceRow r;
            r.trackId = trk, r.ts = ts, r.dur = dur, r.depth = depth;
            r.nameId = w.intern(name), r.catId = cat;
            r.argSetId = w.addArgs("{\"Input Dims\":[[8,8]]}");
            return w.addSlice(r);
        };
        first = t;
        for (int k = 0; k < spec.steps; ++k) {
            const int64_t start = t;
            int64_t body = spec.gap;
            for (const auto& o : spec.ops) body += o.dur + spec.gap;
            const int64_t extra = k < static_cast<int>(spec.extraNs.size()) ? spec.extraNs[k] : 0;
            slice(track, start, body + extra, 0,
                  "ProfilerStep#" + std::to_string(spec.firstStep + k), catOp);
            int64_t ot = start + spec.gap;
            for (const auto& o : spec.ops) {
                slice(track, ot, o.dur, 1, o.name, catOp);
                if (spec.kernels)
                    slice(stream, ot + 1, o.dur / 2 + 1, 0, o.name + "_kernel", catKernel);
                ot += o.dur + spec.gap;
            }
            t = start + body + extra + 20;
        }
        last = t;
        if (auto f = w.flush(); !f) throw std::runtime_error(f.error());
    }
    store::SourceSummary sum;
    sum.status = ts::store::SourceStatus::Complete;
    sum.tsMin = first;
    sum.tsMax = last;
    if (auto f = s.finishSource(source, sum); !f) throw std::runtime_error(f.error());
    return source;
}

}  // namespace ts::test
