#include "core/timeline/synthetic_trace.h"

#include <filesystem>
#include <random>

#include "core/store/store_writer.h"
#include "core/store/trace_store.h"

namespace ts::timeline {

Result<int64_t> writeSyntheticTrace(const std::string& path, const SyntheticTraceSpec& spec) {
    if (std::filesystem::exists(path)) return Error{"file exists: " + path};
    auto opened = store::TraceStore::open(path, store::TraceStore::Mode::Create);
    if (!opened) return Error{opened.error()};
    store::TraceStore& s = *opened.value();
    auto source = s.beginSource("synthetic", "synthetic");
    if (!source) return Error{source.error()};
    const int tracks = std::max(1, spec.processes * spec.threadsPerProcess);
    const int64_t perTrack = spec.slices / tracks;
    int64_t written = 0;
    {
        store::StoreWriter w(s, source.value());
        std::vector<int64_t> names;
        for (int i = 0; i < spec.distinctNames; ++i)
            names.push_back(w.intern("op_" + std::to_string(i)));
        const int64_t cat = w.intern("cpu_op");
        std::mt19937_64 rng(spec.seed);
        for (int p = 0; p < spec.processes; ++p) {
            const int64_t proc =
                w.addProcess(std::to_string(1000 + p), "worker " + std::to_string(p), p);
            for (int t = 0; t < spec.threadsPerProcess; ++t) {
                const int64_t thread =
                    w.addThread(proc, std::to_string(t + 1), "thread " + std::to_string(t));
                const int64_t track = w.addTrack("thread", proc, thread, "");
                store::SliceRow r;
                r.trackId = track;
                r.catId = cat;
                int64_t ts = 0, n = 0;
                // A parent with two children, the first of which has a child: 4 slices.
                while (n + 4 <= perTrack) {
                    const int64_t a = 200 + static_cast<int64_t>(rng() % 400);
                    const int64_t b = 200 + static_cast<int64_t>(rng() % 400);
                    ts += 50 + static_cast<int64_t>(rng() % 200);
                    auto add = [&](int64_t start, int64_t dur, int depth) {
                        r.ts = start;
                        r.dur = dur;
                        r.depth = depth;
                        r.nameId = names[rng() % names.size()];
                        w.addSlice(r);
                        ++n;
                    };
                    add(ts, a + b + 60, 0);
                    add(ts + 20, a, 1);
                    add(ts + 30, a / 2, 2);
                    add(ts + 40 + a, b, 1);
                    ts += a + b + 60;
                }
                written += n;
            }
        }
        if (auto st = w.flush(); !st) return Error{st.error()};
        if (!w.error().empty()) return Error{w.error()};
    }
    store::SourceSummary sum;
    sum.status = store::SourceStatus::Complete;
    sum.slices = written;
    sum.events = written;
    if (auto st = s.finishSource(source.value(), sum); !st) return Error{st.error()};
    if (auto st = s.buildIndexes(); !st) return Error{st.error()};
    return written;
}

}  // namespace ts::timeline
