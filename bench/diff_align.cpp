// Benchmark: the run diff's alignment of one step of 100,000 ops per side (docs/DIFF.md).
// Prints figures; not a test.
//   diff_align [--ops N] [--runs R] [--tokens FILE] [--no-session]
// Sequences: a transformer-like step (layers of 25 ops over 14 op types, names numbered per
// layer and op, "layers.17.attn.q_proj-op4211"), B with realistic differences — every
// 100th op renamed, 0.5 % deleted, a Cast inserted before 0.5 % of the ops, one new layer of
// 200 ops in the middle, all op numbers shifted (fuzzy names must still pair them).
// Figures: name keys (map + fuzzy form) for both sides, the alignment itself, the worst case
// of two unrelated sequences (the cost cap at work), and diffRuns end to end on a session
// with one step of N ops per side (written under /tmp). --tokens writes the key sequences
// for bench/peer_diff_align.py.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "bench/bench_clock.h"
#include "core/analysis/diff/name_map.h"
#include "core/analysis/diff/op_alignment.h"
#include "core/analysis/diff/run_diff.h"
#include "core/store/store_writer.h"
#include "core/store/trace_store.h"

using namespace ts::analysis;
using ts::bench::Clock;
using ts::bench::msSince;

namespace {

/// CPU time of this process (single-threaded here): unlike wall time it does not grow when
/// other processes share the cores.
double cpuMsSince(std::clock_t c) {
    return 1000.0 * static_cast<double>(std::clock() - c) / CLOCKS_PER_SEC;
}

const char* kTypes[] = {"aten::layer_norm", "aten::linear", "aten::addmm",   "aten::view",
                        "aten::transpose",  "aten::matmul", "aten::softmax", "aten::dropout",
                        "aten::add",        "aten::gelu",   "aten::mul",     "aten::copy_",
                        "aten::empty",      "aten::baddbmm"};
const char* kParts[] = {"attn.q_proj", "attn.k_proj", "attn.v_proj", "attn.out",
                        "mlp.fc1",     "mlp.fc2",     "ln1",         "ln2"};

struct Op {
    std::string name;
    int64_t dur;
};

std::vector<Op> stepA(size_t n, std::mt19937& rng) {
    std::vector<Op> ops;
    ops.reserve(n);
    for (size_t i = 0; i < n; ++i) {
        const size_t layer = i / 25, k = i % 25;
        const char* type = kTypes[(k * 7 + k / 5) % 14];
        ops.push_back({std::string(type) + "/layers." + std::to_string(layer) + "." +
                           kParts[k % 8] + "-op" + std::to_string(i),
                       static_cast<int64_t>(200 + rng() % 800)});
    }
    return ops;
}

std::vector<Op> stepB(const std::vector<Op>& a, std::mt19937& rng) {
    std::vector<Op> b;
    b.reserve(a.size() + a.size() / 50);
    size_t number = 7;  // every op number shifts: MatMul-op12 in A is MatMul-op19 in B
    auto renumber = [&](std::string name) {
        const size_t k = name.rfind("-op");
        return name.substr(0, k) + "-op" + std::to_string(number++);
    };
    for (size_t i = 0; i < a.size(); ++i) {
        if (i == a.size() / 2)
            for (size_t j = 0; j < 200; ++j)
                b.push_back({renumber(std::string(kTypes[j % 14]) + "/extra_layer-op0"), 300});
        const uint32_t r = rng() % 1000;
        if (r < 5) continue;  // deleted
        if (r < 10) b.push_back({renumber("aten::_to_copy/cast-op0"), 50});
        std::string name = renumber(a[i].name);
        if (i % 100 == 99)
            name = "aten::fused_" + std::to_string(i % 7) + "-op" + std::to_string(number++);
        b.push_back({name, a[i].dur + static_cast<int64_t>(rng() % 40) - 20});
    }
    return b;
}

/// One source with one ProfilerStep#1 holding the ops one after the other.
int64_t writeStep(const std::string& path, const std::string& label, const std::vector<Op>& ops) {
    auto st = ts::store::TraceStore::open(path, ts::store::TraceStore::Mode::Create);
    if (!st) {
        std::fprintf(stderr, "error: %s\n", st.error().c_str());
        std::exit(1);
    }
    auto& s = *st.value();
    const int64_t source = s.beginSource(label, "chrome_json").value();
    int64_t total = 0;
    for (const auto& o : ops) total += o.dur + 1;
    {
        ts::store::StoreWriter w(s, source);
        const int64_t proc = w.addProcess("1", label);
        const int64_t track = w.addTrack("thread", proc, w.addThread(proc, "1", "main"), "main");
        const int64_t cat = w.intern("cpu_op");
        ts::store::SliceRow step;
        step.trackId = track, step.ts = 0, step.dur = total + 1, step.depth = 0;
        step.nameId = w.intern("ProfilerStep#1"), step.catId = cat;
        w.addSlice(step);
        int64_t t = 1;
        for (const auto& o : ops) {
            ts::store::SliceRow r;
            r.trackId = track, r.ts = t, r.dur = o.dur, r.depth = 1;
            r.nameId = w.intern(o.name), r.catId = cat;
            w.addSlice(r);
            t += o.dur + 1;
        }
        if (auto f = w.flush(); !f) std::fprintf(stderr, "error: %s\n", f.error().c_str());
    }
    ts::store::SourceSummary sum;
    sum.status = ts::store::SourceStatus::Complete;
    (void)s.finishSource(source, sum);
    return source;
}

}  // namespace

int main(int argc, char** argv) {
    size_t n = 100000;
    int runs = 5;
    std::string tokensOut;
    bool session = true;
    for (int i = 1; i < argc; ++i) {
        if (!std::strcmp(argv[i], "--ops") && i + 1 < argc)
            n = static_cast<size_t>(std::atoll(argv[++i]));
        else if (!std::strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = std::atoi(argv[++i]);
        else if (!std::strcmp(argv[i], "--tokens") && i + 1 < argc)
            tokensOut = argv[++i];
        else if (!std::strcmp(argv[i], "--no-session"))
            session = false;
    }
    std::mt19937 rng(42);
    const auto a = stepA(n, rng);
    const auto b = stepB(a, rng);
    std::printf(
        "ops: A %zu, B %zu (B: ~1%% renamed, ~0.5%% deleted, ~0.5%% casts inserted, one "
        "new layer of 200 ops, every op renumbered)\n",
        a.size(), b.size());

    std::vector<double> keyMs, alignMs, alignCpu;
    Alignment al;
    std::vector<uint32_t> ta, tb;
    for (int r = 0; r < runs; ++r) {
        auto t = Clock::now();
        NameKeys keys;  // fuzzy form, no map
        ta.clear(), tb.clear();
        for (const auto& o : a) ta.push_back(keys.key(o.name));
        for (const auto& o : b) tb.push_back(keys.key(o.name));
        keyMs.push_back(msSince(t));
        t = Clock::now();
        const std::clock_t c = std::clock();
        al = alignSequences(ta, tb);
        alignMs.push_back(msSince(t));
        alignCpu.push_back(cpuMsSince(c));
    }
    std::sort(keyMs.begin(), keyMs.end());
    std::sort(alignMs.begin(), alignMs.end());
    std::sort(alignCpu.begin(), alignCpu.end());
    std::printf("name keys (fuzzy), both sides: median %.1f ms, min %.1f ms (%d runs)\n",
                keyMs[keyMs.size() / 2], keyMs.front(), runs);
    std::printf(
        "alignment %zu x %zu ops: median %.1f ms (CPU %.1f ms), min %.1f ms; %zu pairs, %zu "
        "inserted, %zu deleted, exact %s\n",
        a.size(), b.size(), alignMs[alignMs.size() / 2], alignCpu[alignCpu.size() / 2],
        alignMs.front(), al.pairs.size(), al.inserted.size(), al.deleted.size(),
        al.exact ? "yes" : "no (cost cap)");

    // Worst case: two unrelated sequences over 14 tokens (every diagonal has short snakes).
    std::vector<uint32_t> ra(n), rb(n);
    for (auto& x : ra) x = rng() % 14;
    for (auto& x : rb) x = rng() % 14;
    auto t = Clock::now();
    const std::clock_t wc = std::clock();
    const Alignment worst = alignSequences(ra, rb);
    std::printf(
        "worst case, two unrelated sequences of %zu ops over 14 names: %.1f ms (CPU %.1f ms), "
        "%zu pairs, exact %s\n",
        n, msSince(t), cpuMsSince(wc), worst.pairs.size(), worst.exact ? "yes" : "no (cost cap)");

    if (!tokensOut.empty()) {
        std::ofstream out(tokensOut);
        for (uint32_t x : ta) out << x << ' ';
        out << '\n';
        for (uint32_t x : tb) out << x << ' ';
        out << '\n';
        std::printf("key sequences written to %s (bench/peer_diff_align.py)\n", tokensOut.c_str());
    }
    if (!session) return 0;
    const std::string path = "/tmp/trainscope_bench_diff_" + std::to_string(n) + ".tscope";
    std::filesystem::remove(path);
    std::filesystem::remove(path + "-wal");
    std::filesystem::remove(path + "-shm");
    const int64_t sa = writeStep(path, "a", a), sb = writeStep(path, "b", b);
    DiffSideSpec x, y;
    x.path = y.path = path;
    x.sourceId = sa;
    y.sourceId = sb;
    std::vector<double> endMs, endCpu;
    RunDiff d;
    for (int r = 0; r < std::max(1, runs / 2); ++r) {
        t = Clock::now();
        const std::clock_t c = std::clock();
        auto res = diffRuns(x, y, {});
        endMs.push_back(msSince(t));
        endCpu.push_back(cpuMsSince(c));
        if (!res) {
            std::fprintf(stderr, "error: %s\n", res.error().c_str());
            return 1;
        }
        d = std::move(res.value());
    }
    std::sort(endMs.begin(), endMs.end());
    std::sort(endCpu.begin(), endCpu.end());
    std::printf(
        "diffRuns end to end (open, read both profiles, op table, split, alignment): "
        "median %.0f ms (CPU %.0f ms); its alignment %.1f ms; %zu op rows, %zu pairs (%lld "
        "fuzzy)\n",
        endMs[endMs.size() / 2], endCpu[endCpu.size() / 2], d.aligned.seconds * 1e3, d.ops.size(),
        d.aligned.pairs.size(), static_cast<long long>(d.aligned.fuzzyPairs));
    return 0;
}
