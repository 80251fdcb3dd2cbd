// bench: import a Chrome JSON trace into a fresh session (indexes built) and print events/s,
// then run the Python peer (bench/peer_json_sqlite.py: json.load + sqlite3 executemany) on
// the same file and print its figure and the ratio.
// usage: trace_import [TRACE.json] [--events N] [--no-peer] [--write-only OUT.json]
//                     [--durability [ROUNDS]]
// Without a path it writes a synthetic Kineto-like trace of N events (default 2,000,000).
// --durability: the import's cost of its commit setting, in one run: the file imported into
// fresh sessions with synchronous=OFF (the importers' setting before issue 25) and with
// synchronous=NORMAL (WAL; the setting now, docs/SCHEMA.md), ROUNDS times each (default 3),
// alternating, and the median of each.
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "importers/registry.h"

namespace {

// Nested CPU ops (3 levels) on 4 threads plus GPU kernels with args, as Kineto writes them.
void writeSynthetic(const std::string& path, long events) {
    FILE* f = std::fopen(path.c_str(), "w");
    std::fputs("{\"schemaVersion\":1,\"traceEvents\":[\n", f);
    long written = 0;
    long long ts = 1700000000000000LL;
    for (long step = 0; written < events; ++step) {
        for (int tid = 0; tid < 4 && written < events; ++tid) {
            std::fprintf(
                f,
                "%s{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::linear\",\"pid\":1,\"tid\":%d,"
                "\"ts\":%lld.125,\"dur\":30.5,\"args\":{\"External id\":%ld,\"Sequence "
                "number\":%ld}}",
                written ? ",\n" : "", tid, ts, written, step);
            ++written;
            for (int k = 0; k < 3 && written < events; ++k, ++written)
                std::fprintf(f,
                             ",\n{\"ph\":\"X\",\"cat\":\"cpu_op\",\"name\":\"aten::mm_%d\",\"pid\":"
                             "1,\"tid\":%d,"
                             "\"ts\":%lld.5,\"dur\":8.25}",
                             k, tid, ts + 1 + k * 9);
            if (written < events) {
                std::fprintf(
                    f,
                    ",\n{\"ph\":\"X\",\"cat\":\"kernel\",\"name\":\"sgemm_128x64\",\"pid\":0,"
                    "\"tid\":7,"
                    "\"ts\":%lld.750,\"dur\":12.0,\"args\":{\"stream\":7,\"correlation\":%ld}}",
                    ts + tid * 3, written);
                ++written;
            }
        }
        ts += 40;
    }
    std::fputs("\n]}\n", f);
    std::fclose(f);
}

}  // namespace

namespace {

// One import into a fresh session at `dir`, with the connection's synchronous setting `sync`
// ("" = the session's own); seconds, or -1 on failure.
double importOnce(const std::string& trace, const std::filesystem::path& dir,
                  const std::string& sync, long long* events) {
    const std::string session =
        (dir / ("durability_" + std::to_string(::getpid()) + ".tscope")).string();
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(session + suffix);
    auto store = ts::store::TraceStore::open(session, ts::store::TraceStore::Mode::Create);
    if (!store) return -1;
    if (!sync.empty()) (void)store.value()->db().exec("PRAGMA synchronous=" + sync);
    ts::JobControl control;
    const auto t0 = std::chrono::steady_clock::now();
    const auto report = ts::importers::importFile(trace, *store.value(), control);
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    store.value().reset();
    *events = report.events;
    return report.status == ts::store::SourceStatus::Complete ? secs : -1;
}

int durability(const std::string& trace, const std::filesystem::path& dir, int rounds) {
    std::vector<double> off, normal;
    long long events = 0;
    for (int i = 0; i < rounds; ++i)
        for (const char* sync : {"OFF", "NORMAL"}) {
            const double s = importOnce(trace, dir, sync, &events);
            if (s < 0) {
                std::fprintf(stderr, "import failed\n");
                return 1;
            }
            (std::string(sync) == "OFF" ? off : normal).push_back(s);
        }
    auto median = [](std::vector<double> v) {
        std::sort(v.begin(), v.end());
        return v[v.size() / 2];
    };
    const double a = median(off), b = median(normal);
    std::printf("trace: %s, %lld events, %d rounds each, alternating\n", trace.c_str(), events,
                rounds);
    std::printf("synchronous=OFF (before):   %.3f s = %.0f events/s\n", a,
                static_cast<double>(events) / a);
    std::printf("synchronous=NORMAL (WAL):   %.3f s = %.0f events/s\n", b,
                static_cast<double>(events) / b);
    std::printf("NORMAL / OFF time: %.3f\n", b / a);
    return 0;
}

}  // namespace

int main(int argc, char** argv) {
    std::string path;
    long events = 2000000;
    bool peer = true;
    int durabilityRounds = 0;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--events" && i + 1 < argc)
            events = std::atol(argv[++i]);
        else if (a == "--no-peer")
            peer = false;
        else if (a == "--durability")
            durabilityRounds =
                i + 1 < argc && std::isdigit(static_cast<unsigned char>(argv[i + 1][0]))
                    ? std::atoi(argv[++i])
                    : 3;
        else if (a == "--write-only" && i + 1 < argc) {  // just write the synthetic trace
            writeSynthetic(argv[++i], events);
            return 0;
        } else
            path = a;
    }
    const auto dir =
        std::filesystem::temp_directory_path() / ("ts_bench_import_" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir);
    if (path.empty()) {
        path = (dir / "synthetic.json").string();
        writeSynthetic(path, events);
    }
    if (durabilityRounds > 0) {
        const int rc = durability(path, dir, durabilityRounds);
        std::filesystem::remove_all(dir);
        return rc;
    }
    const std::string session = (dir / "bench.tscope").string();
    auto store = ts::store::TraceStore::open(session, ts::store::TraceStore::Mode::Create);
    if (!store) {
        std::fprintf(stderr, "%s\n", store.error().c_str());
        return 1;
    }
    ts::JobControl control;
    const auto t0 = std::chrono::steady_clock::now();
    const auto report = ts::importers::importFile(path, *store.value(), control);
    const double secs =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const double ours = static_cast<double>(report.events) / secs;
    std::printf("trace: %s (%.1f MB)\n", path.c_str(),
                static_cast<double>(std::filesystem::file_size(path)) / 1e6);
    std::printf("trainscope import: %s, %lld events in %.3f s = %.0f events/s (indexes built)\n",
                ts::store::statusName(report.status), static_cast<long long>(report.events), secs,
                ours);
    int rc = report.status == ts::store::SourceStatus::Complete ? 0 : 1;
    if (peer) {
        const std::string script =
            std::filesystem::path(__FILE__).parent_path() / "peer_json_sqlite.py";
        const std::string cmd = "/usr/bin/python3 '" + script + "' '" + path + "'";
        FILE* p = popen(cmd.c_str(), "r");
        double peerRate = 0;
        char line[512];
        while (p && std::fgets(line, sizeof line, p))
            if (const char* k = std::strstr(line, "events_per_s ")) peerRate = std::atof(k + 13);
        if (p) pclose(p);
        if (peerRate > 0)
            std::printf("python json.load + sqlite3 executemany: %.0f events/s\nratio: %.1fx\n",
                        peerRate, ours / peerRate);
        else
            std::printf("python peer did not run (%s)\n", cmd.c_str());
    }
    std::filesystem::remove_all(dir);
    return rc;
}
