// bench/store_ingest: slices/s for writing N slices (default 5,000,000) into a fresh
// session through StoreWriter, indexes built, everything committed.
// usage: store_ingest [N] [session path]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>

#include "core/store/store_writer.h"

using namespace ts::store;

int main(int argc, char** argv) {
    const int64_t n = argc > 1 ? std::atoll(argv[1]) : 5'000'000;
    const std::string path = argc > 2 ? argv[2] : "/tmp/trainscope_store_ingest.tscope";
    for (const char* ext : {"", "-wal", "-shm"}) std::filesystem::remove(path + ext);

    auto opened = TraceStore::open(path, TraceStore::Mode::Create);
    if (!opened) {
        std::fprintf(stderr, "%s\n", opened.error().c_str());
        return 1;
    }
    TraceStore& store = *opened.value();
    const auto t0 = std::chrono::steady_clock::now();
    auto src = store.beginSource("synthetic", "bench");
    {
        StoreWriter w(store, src.value());
        constexpr int kThreads = 8;
        int64_t tracks[kThreads];
        const int64_t pidId = w.addProcess("1", "bench");
        for (int t = 0; t < kThreads; ++t)
            tracks[t] = w.addTrack("thread", pidId, w.addThread(pidId, std::to_string(t)), "");
        int64_t names[64];
        for (int i = 0; i < 64; ++i) names[i] = w.intern("op_" + std::to_string(i));
        const int64_t cat = w.intern("cpu_op");
        // Importers sort each track by time before writing (depth needs it), so slices
        // arrive track by track in time order, as they do here.
        std::mt19937_64 rng(42);
        for (int t = 0; t < kThreads; ++t) {
            int64_t ts = 0;
            const int64_t perTrack = n / kThreads + (t < n % kThreads ? 1 : 0);
            for (int64_t i = 0; i < perTrack; ++i) {
                const int depth = static_cast<int>(i % 4);
                ts += 1000 + static_cast<int64_t>(rng() % 500);
                w.addSlice({tracks[t], ts, 800 - depth * 100, depth, names[rng() % 64], cat, 0, 0});
            }
        }
        w.flush();
        if (!w.error().empty()) std::fprintf(stderr, "writer error: %s\n", w.error().c_str());
        store.commit();
    }
    const auto t1 = std::chrono::steady_clock::now();
    if (auto s = store.buildIndexes(); !s) std::fprintf(stderr, "%s\n", s.error().c_str());
    SourceSummary sum;
    sum.status = ts::store::SourceStatus::Complete;
    sum.slices = n;
    sum.events = n;
    store.finishSource(src.value(), sum);
    const auto t2 = std::chrono::steady_clock::now();
    const double ins = std::chrono::duration<double>(t1 - t0).count();
    const double all = std::chrono::duration<double>(t2 - t0).count();
    std::printf("store_ingest: %lld slices\n", static_cast<long long>(n));
    std::printf("  insert:            %.2f s\n", ins);
    std::printf("  build indexes:     %.2f s\n", all - ins);
    std::printf("  slices/s (with indexes built): %.0f\n", static_cast<double>(n) / all);
    return 0;
}
