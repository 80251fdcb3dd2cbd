// Memory snapshots: the real ones PyTorch 2.11 wrote on an H200 (tests/data/torch_memory:
// a training run with a planted leak, a fragmentation OOM) against what torch itself
// reported (its memory_viz stats, its OutOfMemoryError, its counters) and against an
// independent Python reader (tests/memory/snapshot_reference.py); and generated snapshots
// (tests/memory/make_snapshot.py) of every layout from 1.13 to 2.11 in pickle protocols 2-5.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <zlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/memory/pickle_reader.h"
#include "core/memory/snapshot_reader.h"
#include "core/memory/snapshot_report.h"
#include "tests/common/test_support.h"

namespace fs = std::filesystem;
using namespace ts::memory;

namespace {

constexpr const char* kSnapshotPython = "/usr/bin/python3";

fs::path dataDir() {
    return fs::path(TRAINSCOPE_SOURCE_DIR) / "tests" / "data" / "torch_memory";
}
std::string script(const char* name) {
    return (fs::path(TRAINSCOPE_SOURCE_DIR) / "tests" / "memory" / name).string();
}
std::string readSnapshotFile(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

/// snapshot_reference.py's figures for `file`.
rapidjson::Document reference(const fs::path& file) {
    rapidjson::Document d;
    auto r =
        ts::test::runProgram(kSnapshotPython, {script("snapshot_reference.py"), file.string()});
    EXPECT_EQ(r.exitCode, 0) << r.err;
    d.Parse(r.out.c_str());
    EXPECT_FALSE(d.HasParseError()) << r.out;
    return d;
}

void expectMatchesReference(const Snapshot& s, const SnapshotReport& r, const rapidjson::Value& ref,
                            const std::string& what) {
    ASSERT_TRUE(ref.IsObject()) << what;
    EXPECT_EQ(static_cast<int64_t>(s.segments.size()), ref["segments"].GetInt64()) << what;
    ASSERT_FALSE(r.devices.empty()) << what;
    int64_t reserved = 0, allocated = 0, largest = 0;
    for (const auto& d : r.devices) {
        reserved += d.atEnd.reserved;
        allocated += d.atEnd.allocated;
        largest = std::max(largest, d.atEnd.largestFree);
    }
    EXPECT_EQ(reserved, ref["reserved"].GetInt64()) << what;
    EXPECT_EQ(allocated, ref["allocated"].GetInt64()) << what;
    EXPECT_EQ(largest, ref["largest_free_block"].GetInt64()) << what;
    const auto& devs = ref["devices"];
    for (const auto& d : r.devices) {
        const std::string key = std::to_string(d.device);
        if (!devs.HasMember(key.c_str())) {
            EXPECT_EQ(d.events, 0u) << what;
            continue;
        }
        const auto& x = devs[key.c_str()];
        EXPECT_EQ(static_cast<int64_t>(d.events), x["events"].GetInt64()) << what;
        EXPECT_EQ(d.timeline.peakBytes, x["peak_bytes"].GetInt64()) << what;
        EXPECT_EQ(d.timeline.peakEvent, x["peak_index"].GetInt()) << what;
        EXPECT_EQ(d.liveAtPeak, x["live_at_peak"].GetInt64()) << what;
        EXPECT_EQ(static_cast<int64_t>(d.timeline.allocations.size()), x["allocations"].GetInt64())
            << what;
        EXPECT_EQ(
            d.timeline.allocated.empty() ? d.timeline.startAllocated : d.timeline.allocated.back(),
            x["end_bytes"].GetInt64())
            << what;
    }
}

}  // namespace

TEST(RealSnapshot, TrainingRunMatchesTorchAndTheReference) {
    const fs::path file = dataDir() / "train_snapshot.pickle";
    auto s = readSnapshot(file.string());
    ASSERT_TRUE(s.ok()) << s.error();
    EXPECT_EQ(s->layout, "2.1+");
    EXPECT_EQ(s->pickleProtocol, 4);
    ASSERT_EQ(s->devices.size(), 1u);
    EXPECT_EQ(s->devices[0].size(), 1291u);
    EXPECT_EQ(s->annotations.size(), 40u);  // zero_grad and step, START and END, 10 steps
    const SnapshotReport r = analyzeSnapshot(s.value());
    ASSERT_EQ(r.devices.size(), 1u);
    const DeviceReport& d = r.devices[0];
    // torch's memory_viz stats of this file: "total_reserved: 242.0MiB",
    // "total_allocated: 106.4MiB", "segments: 10".
    const std::string stats = readSnapshotFile(dataDir() / "train_memory_viz_stats.txt");
    EXPECT_NE(stats.find("total_reserved: " + sizeText(d.atEnd.reserved)), std::string::npos);
    EXPECT_NE(stats.find("total_allocated: " + sizeText(d.atEnd.allocated)), std::string::npos);
    EXPECT_NE(stats.find("segments: " + std::to_string(d.atEnd.segments.size())),
              std::string::npos);
    EXPECT_EQ(d.atEnd.reserved, 253755392);  // torch.cuda.memory_reserved() at the end
    // The peak is what torch's max_memory_allocated says, less the rounding of its blocks
    // (199701504 counts block sizes; the timeline counts bytes asked for, as memory_viz).
    EXPECT_GT(d.timeline.peakBytes, 199701504 - 2 * 1024 * 1024);
    EXPECT_LE(d.timeline.peakBytes, 199701504);
    // The planted leak: keep_for_debug() kept one 4 MiB activation per step, 10 steps.
    ASSERT_EQ(d.leaks.size(), 1u);
    const Leak& L = d.leaks[0];
    EXPECT_NE(L.site.find("record_torch_memory.py"), std::string::npos) << L.site;
    EXPECT_NE(L.site.find(":keep_for_debug"), std::string::npos) << L.site;
    EXPECT_EQ(L.count, 10);
    EXPECT_EQ(L.bytes, 10 * 4194304);
    EXPECT_EQ(L.bytesPerStep, 4194304);
    bool forwardFrame = false;
    for (const Frame* f : shownFrames(s.value(), L.stack))
        forwardFrame = forwardFrame || s->str(f->name) == "forward";
    EXPECT_TRUE(forwardFrame) << "the leak's stack names the forward() that called it";
    EXPECT_NE(d.stepsFrom.find("Optimizer.step"), std::string::npos);
    // Who allocated what was alive at the peak: user code and autograd nodes by name.
    bool leakAtPeak = false, backwardAtPeak = false;
    for (const SiteGroup& g : d.peakBySite) {
        leakAtPeak = leakAtPeak || g.site.find("keep_for_debug") != std::string::npos;
        backwardAtPeak = backwardAtPeak || g.site.find("Backward0::apply") != std::string::npos;
    }
    EXPECT_TRUE(leakAtPeak);
    EXPECT_TRUE(backwardAtPeak);
    EXPECT_TRUE(d.ooms.empty());
    if (fs::exists(kSnapshotPython)) expectMatchesReference(s.value(), r, reference(file), "train");
}

TEST(RealSnapshot, FragmentationOomIsExplained) {
    const fs::path file = dataDir() / "oom_snapshot.pickle";
    auto s = readSnapshot(file.string());
    ASSERT_TRUE(s.ok()) << s.error();
    const SnapshotReport r = analyzeSnapshot(s.value());
    ASSERT_EQ(r.devices.size(), 1u);
    ASSERT_EQ(r.devices[0].ooms.size(), 1u);
    const OomAnswer& o = r.devices[0].ooms[0];
    // torch's message: "Tried to allocate 48.00 MiB ... 100.00 MiB is reserved by PyTorch but
    // unallocated" (tests/data/torch_memory/oom_facts.json).
    const std::string facts = readSnapshotFile(dataDir() / "oom_facts.json");
    EXPECT_NE(facts.find("Tried to allocate 48.00 MiB"), std::string::npos);
    EXPECT_NE(facts.find("100.00 MiB is reserved by PyTorch but unallocated"), std::string::npos);
    EXPECT_EQ(o.requested, 48 << 20);
    EXPECT_EQ(o.freeInSegments, 100 << 20);
    EXPECT_EQ(o.reserved, 200 << 20);
    EXPECT_EQ(o.allocated, 100 << 20);
    EXPECT_EQ(o.largestFree, 4 << 20);
    EXPECT_TRUE(o.fragmentation);
    EXPECT_NE(o.verdict.find("fragmentation"), std::string::npos) << o.verdict;
    EXPECT_GT(o.deviceFree, int64_t(100) << 30);  // the H200 itself had plenty
    ASSERT_FALSE(o.liveBySite.empty());
    EXPECT_EQ(o.liveBySite[0].count, 25);  // the 25 blocks of 4 MiB still alive
    if (fs::exists(kSnapshotPython)) expectMatchesReference(s.value(), r, reference(file), "oom");
}

TEST(RealSnapshot, ExpandableSegmentsMapAndUnmap) {
    // PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True: segments grow by segment_map and
    // shrink by segment_unmap (empty_cache at the end); Python frames only.
    const fs::path file = dataDir() / "expandable_snapshot.pickle";
    auto s = readSnapshot(file.string());
    ASSERT_TRUE(s.ok()) << s.error();
    ASSERT_EQ(s->devices.size(), 1u);
    int maps = 0, unmaps = 0;
    for (const TraceEvent& e : s->devices[0]) {
        maps += e.action == Action::SegmentMap;
        unmaps += e.action == Action::SegmentUnmap;
    }
    EXPECT_EQ(maps, 10);
    EXPECT_EQ(unmaps, 3);
    for (const Segment& g : s->segments) EXPECT_TRUE(g.isExpandable);
    const SnapshotReport r = analyzeSnapshot(s.value());
    const DeviceReport& d = r.devices[0];
    // torch.cuda.memory_reserved(): 195035136 after each of the last steps, 88080384 at the end
    // (expandable_facts.json); memory_viz stats: "total_reserved: 84.0MiB".
    EXPECT_EQ(d.atEnd.reserved, 88080384);
    EXPECT_EQ(d.timeline.reserved.back(), 88080384);
    EXPECT_EQ(*std::max_element(d.timeline.reserved.begin(), d.timeline.reserved.end()), 195035136);
    const std::string stats = readSnapshotFile(dataDir() / "expandable_memory_viz_stats.txt");
    EXPECT_NE(stats.find("total_reserved: " + sizeText(d.atEnd.reserved)), std::string::npos);
    EXPECT_NE(stats.find("total_allocated: " + sizeText(d.atEnd.allocated)), std::string::npos);
    // The state at the peak, rebuilt through the unmaps: the mapped ranges were whole then.
    EXPECT_EQ(d.atPeak.reserved, d.timeline.peakReserved);
    EXPECT_EQ(d.atPeak.orphanBlocks, 0);
    EXPECT_TRUE(d.leaks.empty());  // the debug cache was cleared before the dump
    if (fs::exists(kSnapshotPython))
        expectMatchesReference(s.value(), r, reference(file), "expandable");
}

TEST(RealSnapshot, TheSameFileInEveryProtocol) {
    // PyTorch's own snapshot as pickle.dump writes it in protocols 2, 3 and 5 (Python 3.14's
    // default, which memory_viz refuses): the same answers.
    if (!fs::exists(kSnapshotPython)) GTEST_SKIP() << kSnapshotPython << " not found";
    const fs::path dir = ts::test::tempDir("protocols");
    auto ref = readSnapshot((dataDir() / "train_snapshot.pickle").string());
    ASSERT_TRUE(ref.ok());
    const SnapshotReport rr = analyzeSnapshot(ref.value());
    for (int p : {2, 3, 5}) {
        const fs::path out = dir / ("p" + std::to_string(p) + ".pickle");
        auto run = ts::test::runProgram(
            kSnapshotPython,
            {"-c",
             "import pickle,sys; pickle.dump(pickle.load(open(sys.argv[1],'rb')), "
             "open(sys.argv[2],'wb'), protocol=int(sys.argv[3]))",
             (dataDir() / "train_snapshot.pickle").string(), out.string(), std::to_string(p)});
        ASSERT_EQ(run.exitCode, 0) << run.err;
        auto s = readSnapshot(out.string());
        ASSERT_TRUE(s.ok()) << p << ": " << s.error();
        EXPECT_EQ(s->pickleProtocol, p);
        EXPECT_EQ(s->eventCount(), ref->eventCount());
        EXPECT_EQ(s->stackCount(), ref->stackCount());
        const SnapshotReport r = analyzeSnapshot(s.value());
        EXPECT_EQ(r.devices[0].timeline.peakBytes, rr.devices[0].timeline.peakBytes);
        ASSERT_EQ(r.devices[0].leaks.size(), 1u);
        EXPECT_EQ(r.devices[0].leaks[0].site, rr.devices[0].leaks[0].site);
    }
}

TEST(RealSnapshot, StreamsInsteadOfBuildingTheTree) {
    // After the read, the pickle's tree holds a few containers (the top level, the settings,
    // the annotations), not the 1,862 dicts and 886 lists the file builds.
    const std::string bytes = readSnapshotFile(dataDir() / "train_snapshot.pickle");
    auto src = memorySource(bytes);
    struct Counter : pickle::Consumer {
        ts::Result<pickle::Value> onListItem(pickle::Pool&, pickle::Value, pickle::Value item,
                                             bool&) override {
            return item;
        }
        ts::Result<pickle::Value> onDictItem(pickle::Pool&, pickle::Value, pickle::Value,
                                             pickle::Value v, bool&) override {
            return v;
        }
    };
    Counter keepAll;
    pickle::PickleReader whole(*src, &keepAll);
    ASSERT_TRUE(whole.read().ok());
    const size_t wholeNodes = whole.pool().liveContainers();
    // The same file through the snapshot reader's consumer.
    auto s = readSnapshotBytes(bytes);
    ASSERT_TRUE(s.ok());
    EXPECT_GT(wholeNodes, 2700u);
    EXPECT_LT(s->treeContainersLeft, 100u);
    EXPECT_EQ(s->eventCount(), 1291u);
}

TEST(GeneratedSnapshot, EveryLayoutAndProtocol) {
    if (!fs::exists(kSnapshotPython)) GTEST_SKIP() << kSnapshotPython << " not found";
    const fs::path dir = ts::test::tempDir("snapshots");
    for (const char* layout : {"2.11", "2.1", "2.0", "1.13"})
        for (int protocol = 2; protocol <= 5; ++protocol) {
            const std::string what = std::string(layout) + " p" + std::to_string(protocol);
            const fs::path file =
                dir / ("s_" + std::string(layout) + "_" + std::to_string(protocol));
            const fs::path expect = fs::path(file.string() + ".json");
            auto run = ts::test::runProgram(
                kSnapshotPython, {script("make_snapshot.py"), file.string(), "--layout", layout,
                                  "--protocol", std::to_string(protocol), "--leak", "--devices",
                                  "2", "--expect", expect.string()});
            ASSERT_EQ(run.exitCode, 0) << run.err;
            auto s = readSnapshot(file.string());
            ASSERT_TRUE(s.ok()) << what << ": " << s.error();
            EXPECT_EQ(s->pickleProtocol, protocol) << what;
            rapidjson::Document e;
            e.Parse(readSnapshotFile(expect).c_str());
            ASSERT_TRUE(e.IsObject()) << what;
            const SnapshotReport r = analyzeSnapshot(s.value());
            expectMatchesReference(s.value(), r, e["reference"], what);
            const std::string l(layout);
            if (l == "1.13") {
                EXPECT_EQ(s->layout, "1.13 (a list of segments)");
                EXPECT_EQ(s->eventCount(), 0u);
                // Frames from history[0]: the live blocks are named by their sites.
                bool named = false;
                for (const auto& d : r.devices)
                    for (const auto& g : d.peakBySite)
                        named = named || g.site == "train.py:12:keep_for_debug";
                EXPECT_TRUE(named) << what;
                continue;
            }
            EXPECT_EQ(s->layout, l == "2.0" ? "2.0 (no event times)" : "2.1+") << what;
            ASSERT_EQ(r.devices.size(), 2u) << what;
            for (const auto& d : r.devices) {
                ASSERT_EQ(d.leaks.size(), 1u) << what << " device " << d.device;
                EXPECT_EQ(d.leaks[0].site, "train.py:12:keep_for_debug") << what;
                EXPECT_EQ(d.leaks[0].count, e["plan"]["leak_count"].GetInt64() / 2) << what;
                EXPECT_EQ(d.leaks[0].bytesPerStep, 4 << 20) << what;
            }
            if (l == "2.11") {
                EXPECT_FALSE(s->allocatorSettings.empty());
            }
        }
}

TEST(GeneratedSnapshot, NoLeakWhenNonePlanted) {
    if (!fs::exists(kSnapshotPython)) GTEST_SKIP() << kSnapshotPython << " not found";
    const fs::path file = ts::test::tempDir("noleak") / "s.pickle";
    ASSERT_EQ(ts::test::runProgram(kSnapshotPython,
                                   {script("make_snapshot.py"), file.string(), "--steps", "12"})
                  .exitCode,
              0);
    auto s = readSnapshot(file.string());
    ASSERT_TRUE(s.ok()) << s.error();
    const SnapshotReport r = analyzeSnapshot(s.value());
    ASSERT_EQ(r.devices.size(), 1u);
    EXPECT_TRUE(r.devices[0].leaks.empty()) << r.devices[0].leaks[0].site;
}

TEST(GeneratedSnapshot, OomGzipAndStreamedFiles) {
    if (!fs::exists(kSnapshotPython)) GTEST_SKIP() << kSnapshotPython << " not found";
    const fs::path dir = ts::test::tempDir("snapshots2");
    const fs::path oom = dir / "oom.pickle";
    ASSERT_EQ(
        ts::test::runProgram(kSnapshotPython, {script("make_snapshot.py"), oom.string(), "--oom"})
            .exitCode,
        0);
    auto s = readSnapshot(oom.string());
    ASSERT_TRUE(s.ok()) << s.error();
    SnapshotReport r = analyzeSnapshot(s.value());
    ASSERT_EQ(r.devices[0].ooms.size(), 1u);
    EXPECT_TRUE(r.devices[0].ooms[0].fragmentation) << r.devices[0].ooms[0].verdict;
    EXPECT_EQ(r.devices[0].ooms[0].requested, 48 << 20);

    // The same file gzipped reads the same.
    const std::string bytes = readSnapshotFile(oom);
    const fs::path gz = dir / "oom.pickle.gz";
    gzFile g = gzopen(gz.string().c_str(), "wb");
    gzwrite(g, bytes.data(), static_cast<unsigned>(bytes.size()));
    gzclose(g);
    auto z = readSnapshot(gz.string());
    ASSERT_TRUE(z.ok()) << z.error();
    EXPECT_EQ(z->eventCount(), s->eventCount());
    EXPECT_EQ(z->segments.size(), s->segments.size());

    // The benchmark's streamed writer (events before segments, protocol 4 by hand).
    const fs::path streamed = dir / "streamed.pickle";
    ASSERT_EQ(
        ts::test::runProgram(kSnapshotPython, {script("make_snapshot.py"), streamed.string(),
                                               "--stream", "--target-bytes", "400000", "--leak",
                                               "--expect", streamed.string() + ".json"})
            .exitCode,
        0);
    auto t = readSnapshot(streamed.string());
    ASSERT_TRUE(t.ok()) << t.error();
    rapidjson::Document e;
    e.Parse(readSnapshotFile(streamed.string() + ".json").c_str());
    r = analyzeSnapshot(t.value());
    expectMatchesReference(t.value(), r, e["reference"], "streamed");
    ASSERT_EQ(r.devices[0].leaks.size(), 1u);
    EXPECT_EQ(r.devices[0].leaks[0].count, e["plan"]["leak_count"].GetInt64());
}

TEST(GeneratedSnapshot, OtherPicklesAreNotSnapshots) {
    // pickle.dumps({"a": 1}, 4) and pickle.dumps(5, 2)
    auto a =
        readSnapshotBytes(std::string("\x80\x04\x95\x0a\0\0\0\0\0\0\0}\x94\x8c\x01"
                                      "a\x94K\x01s.",
                                      22));
    ASSERT_FALSE(a.ok());
    EXPECT_NE(a.error().find("not a memory snapshot"), std::string::npos) << a.error();
    EXPECT_NE(a.error().find("its keys: a"), std::string::npos) << a.error();
    auto b = readSnapshotBytes(std::string("\x80\x02K\x05.", 5));
    ASSERT_FALSE(b.ok());
    EXPECT_NE(b.error().find("holds a int"), std::string::npos) << b.error();
    EXPECT_FALSE(readSnapshot("/no/such/file.pickle").ok());
    EXPECT_TRUE(looksLikeSnapshotPickle(
        readSnapshotFile(dataDir() / "train_snapshot.pickle").substr(0, 4096)));
    EXPECT_FALSE(looksLikeSnapshotPickle("{\"traceEvents\": []}"));
}
