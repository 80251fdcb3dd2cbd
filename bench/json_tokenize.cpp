// bench: the Chrome trace JSON tokenizer alone (readChromeJson into a sink that only counts
// events, so every event is still filled: fields, args text, ts/dur in ns) against the peer
// it replaced, RapidJSON's SAX Reader (numbers as strings, NaN/Inf, stop when done) with a
// null handler, reading the same InputStream in the same 1 MiB chunks. Prints MB/s
// (decompressed JSON) and events/s for both, and the ratio; wall and thread CPU time, best
// and median of --reps runs taken in turns.
// usage: json_tokenize TRACE.json[.gz] [--reps N]
#include <rapidjson/reader.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <string>
#include <vector>

#include "bench/bench_clock.h"
#include "importers/chrome_trace/chrome_json_reader.h"
#include "importers/common/input_stream.h"

using ts::bench::median;

namespace {

using ts::importers::InputStream;
using ts::importers::chrome::ChromeEvent;
using ts::importers::chrome::EventSink;

double threadCpu() {
    timespec t{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

double wallNow() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch())
        .count();
}

struct Timing {
    double wall = 0, cpu = 0;
};

class CountingSink : public EventSink {
public:
    ChromeEvent& slot() override { return m_event; }
    void commit() override { ++events; }
    long long events = 0;

private:
    ChromeEvent m_event;
};

// The stream the importer gave RapidJSON: 1 MiB chunks of an InputStream, '\0' past the end.
class ChunkStream {
public:
    using Ch = char;
    explicit ChunkStream(InputStream& in) : m_in(in) {
        m_buf.resize(kChunk + 1);
        m_cur = m_end = m_buf.data();
        fill();
    }
    Ch Peek() const { return *m_cur; }
    Ch Take() {
        const Ch c = *m_cur;
        if (++m_cur == m_end) fill();
        return c;
    }
    size_t Tell() const { return m_base + static_cast<size_t>(m_cur - m_buf.data()); }
    Ch* PutBegin() { return nullptr; }
    void Put(Ch) {}
    void Flush() {}
    size_t PutEnd(Ch*) { return 0; }

private:
    static constexpr size_t kChunk = 1 << 20;
    void fill() {
        if (m_eof) return;
        m_base += static_cast<size_t>(m_end - m_buf.data());
        const size_t n = m_in.read(m_buf.data(), kChunk);
        m_buf[n] = '\0';
        m_cur = m_buf.data();
        m_end = m_buf.data() + n;
        if (n == 0) m_eof = true;
    }
    InputStream& m_in;
    std::string m_buf;
    char* m_cur = nullptr;
    char* m_end = nullptr;
    size_t m_base = 0;
    bool m_eof = false;
};

struct NullHandler : rapidjson::BaseReaderHandler<rapidjson::UTF8<>, NullHandler> {};

std::unique_ptr<InputStream> open(const std::string& path) {
    auto in = InputStream::open(path);
    if (!in) {
        std::fprintf(stderr, "%s\n", in.error().c_str());
        std::exit(1);
    }
    return std::move(in.value());
}

Timing runTokenizer(const std::string& path, long long& events) {
    auto in = open(path);
    ts::JobControl control;
    CountingSink sink;
    const double w = wallNow(), c = threadCpu();
    const auto out = ts::importers::chrome::readChromeJson(*in, control, sink);
    const Timing t{wallNow() - w, threadCpu() - c};
    if (out.kind != ts::importers::chrome::ReadOutcome::Kind::Complete)
        std::fprintf(stderr, "tokenizer: %s\n", out.error.c_str());
    events = sink.events;
    return t;
}

Timing runRapidJson(const std::string& path, size_t& bytes) {
    auto in = open(path);
    const double w = wallNow(), c = threadCpu();
    ChunkStream stream(*in);
    NullHandler handler;
    rapidjson::Reader reader;
    constexpr unsigned kFlags = rapidjson::kParseNumbersAsStringsFlag |
                                rapidjson::kParseStopWhenDoneFlag | rapidjson::kParseNanAndInfFlag;
    const rapidjson::ParseResult r = reader.Parse<kFlags>(stream, handler);
    const Timing t{wallNow() - w, threadCpu() - c};
    if (!r) std::fprintf(stderr, "rapidjson: error at %zu\n", r.Offset());
    bytes = stream.Tell();
    return t;
}

}  // namespace

int main(int argc, char** argv) {
    std::string path;
    int reps = 5;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--reps" && i + 1 < argc)
            reps = std::max(1, std::atoi(argv[++i]));
        else
            path = a;
    }
    if (path.empty()) {
        std::fprintf(stderr, "usage: json_tokenize TRACE.json[.gz] [--reps N]\n");
        return 2;
    }
    std::vector<double> tokWall, tokCpu, rjWall, rjCpu;
    long long events = 0;
    size_t bytes = 0;
    for (int r = 0; r < reps; ++r) {  // in turns, so that noise falls on both
        const Timing a = runTokenizer(path, events);
        const Timing b = runRapidJson(path, bytes);
        tokWall.push_back(a.wall);
        tokCpu.push_back(a.cpu);
        rjWall.push_back(b.wall);
        rjCpu.push_back(b.cpu);
    }
    const double mb = static_cast<double>(bytes) / 1e6;
    std::printf("trace: %s, %.1f MB of JSON, %lld events, %d runs each\n", path.c_str(), mb, events,
                reps);
    auto line = [&](const char* who, const std::vector<double>& wall,
                    const std::vector<double>& cpu) {
        const double bw = *std::min_element(wall.begin(), wall.end());
        const double bc = *std::min_element(cpu.begin(), cpu.end());
        std::printf(
            "%-24s wall best %7.1f MB/s %6.2f M events/s (median %7.1f MB/s) | cpu best %7.1f "
            "MB/s %6.2f M events/s (median %7.1f MB/s)\n",
            who, mb / bw, static_cast<double>(events) / bw / 1e6, mb / median(wall), mb / bc,
            static_cast<double>(events) / bc / 1e6, mb / median(cpu));
    };
    line("trainscope tokenizer", tokWall, tokCpu);
    line("rapidjson SAX (null)", rjWall, rjCpu);
    std::printf(
        "ratio (tokenizer / rapidjson): wall best %.2fx, median %.2fx | cpu best %.2fx, "
        "median %.2fx\n",
        *std::min_element(rjWall.begin(), rjWall.end()) /
            *std::min_element(tokWall.begin(), tokWall.end()),
        median(rjWall) / median(tokWall),
        *std::min_element(rjCpu.begin(), rjCpu.end()) /
            *std::min_element(tokCpu.begin(), tokCpu.end()),
        median(rjCpu) / median(tokCpu));
    return 0;
}
