// Watched folders: new files are reported once, when complete; temporary and old ones never.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/run/artifact_watch.h"
#include "core/run/file_tail.h"
#include "core/run/line_splitter.h"
#include "core/run/open_writers.h"
#include "tests/common/test_support.h"

using namespace ts::run;
namespace fs = std::filesystem;

TEST(ArtifactWatch, Classification) {
    EXPECT_EQ(classifyArtifact("/a/rank0.123.pt.trace.json"), ArtifactKind::Trace);
    EXPECT_EQ(classifyArtifact("/a/w.pt.trace.json.gz"), ArtifactKind::Trace);
    EXPECT_EQ(classifyArtifact("/a/report.sqlite"), ArtifactKind::Nsys);
    EXPECT_EQ(classifyArtifact("/a/step_1.h5"), ArtifactKind::Hdf5);
    EXPECT_EQ(classifyArtifact("/a/events.out.tfevents.1585499054.host.11684.5.v2"),
              ArtifactKind::TfEvents);
    EXPECT_EQ(classifyArtifact("/a/rank_0/rdr/rdr_index.json"), ArtifactKind::Rdr);
    EXPECT_EQ(classifyArtifact("/a/notes.txt"), ArtifactKind::Other);
}

TEST(ArtifactWatch, NewFilesWhenSettledOnce) {
    const fs::path dir = ts::test::tempDir("watch");
    std::ofstream(dir / "old.json") << "[]";
    ArtifactWatcher w(/*settleNs=*/1000, /*maxDepth=*/2);
    w.addFolder(dir.string());
    w.addFolder(dir.string());  // twice: watched once
    EXPECT_EQ(w.folders().size(), 1u);
    w.snapshotExisting();
    EXPECT_TRUE(w.scan(0).empty());
    fs::create_directories(dir / "sub" / "deeper");
    std::ofstream(dir / "sub" / "t.json") << "[";
    std::ofstream(dir / ".tmp.json") << "[";  // someone's temporary file
    std::ofstream(dir / "sub" / "deeper" / "x.h5") << "h";
    std::ofstream(dir / "readme.txt") << "x";
    EXPECT_TRUE(w.scan(10).empty());                              // just seen: not settled
    std::ofstream(dir / "sub" / "t.json", std::ios::app) << "]";  // still growing
    auto found = w.scan(2000);
    ASSERT_EQ(found.size(), 1u);  // x.h5 settled; t.json changed since the last scan
    EXPECT_EQ(found[0].kind, ArtifactKind::Hdf5);
    found = w.scan(5000);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].kind, ArtifactKind::Trace);
    EXPECT_TRUE(w.scan(10000).empty());  // reported once
    // Handled elsewhere (announced by the Python package): never reported.
    std::ofstream(dir / "announced.json") << "[]";
    w.markHandled((dir / "announced.json").string());
    std::ofstream(dir / "late.json") << "[";
    auto atEnd = w.scan(10001, /*all=*/true);
    ASSERT_EQ(atEnd.size(), 1u);
    EXPECT_EQ(fs::path(atEnd[0].path).filename(), "late.json");
}

// The CUPTI collector opens its activity file at CUDA's start and writes only when a buffer
// completes or the process exits: an unchanged file is not a finished one while a writer
// holds it (issue 29: `record` of a real PyTorch program imported nothing).
TEST(ArtifactWatch, FileHeldOpenByAWriterIsNotSettled) {
    const fs::path dir = ts::test::tempDir("watch_held");
    ArtifactWatcher w(/*settleNs=*/1000, /*maxDepth=*/2);
    w.addFolder(dir.string());
    w.snapshotExisting();
    const fs::path file = dir / "cuda-4242.tscupti";
    {
        std::ofstream writer(file, std::ios::binary);  // held open, empty, for "long"
        EXPECT_TRUE(heldOpenForWriting(file.string()));
        EXPECT_TRUE(w.scan(0).empty());
        EXPECT_TRUE(w.scan(1'000'000).empty()) << "taken while its writer still holds it";
        writer << "TSCUPTI";
    }
    EXPECT_FALSE(heldOpenForWriting(file.string()));
    EXPECT_TRUE(w.scan(1'000'001).empty());  // changed: settles again
    auto found = w.scan(1'010'000);
    ASSERT_EQ(found.size(), 1u);
    EXPECT_EQ(found[0].kind, ArtifactKind::Cuda);
    EXPECT_FALSE(found[0].again);
    // Read-only openers (a viewer, the importer itself) are not writers.
    std::ifstream reader(file);
    EXPECT_FALSE(heldOpenForWriting(file.string()));
}

TEST(ArtifactWatch, FileThatChangesAfterItWasReportedIsReportedAgain) {
    const fs::path dir = ts::test::tempDir("watch_again");
    auto noWriter = [](const std::string&) { return false; };
    ArtifactWatcher w(/*settleNs=*/1000, /*maxDepth=*/2, noWriter);
    w.addFolder(dir.string());
    w.snapshotExisting();
    std::ofstream(dir / "t.json") << "[]";
    EXPECT_TRUE(w.scan(0).empty());
    ASSERT_EQ(w.scan(2000).size(), 1u);
    EXPECT_TRUE(w.scan(4000).empty());  // unchanged: once
    std::ofstream(dir / "t.json", std::ios::app) << "   ";
    EXPECT_TRUE(w.scan(5000).empty());  // changed: settles first
    auto again = w.scan(7000);
    ASSERT_EQ(again.size(), 1u);
    EXPECT_TRUE(again[0].again);
    EXPECT_TRUE(w.scan(9000).empty());
    std::ofstream(dir / "t.json", std::ios::app) << " ";
    auto atEnd = w.scan(9001, /*all=*/true);  // the run ended: taken as it is
    ASSERT_EQ(atEnd.size(), 1u);
    EXPECT_TRUE(atEnd[0].again);
    // Handled elsewhere: never again, even when it changes.
    w.markHandled((dir / "t.json").string());
    std::ofstream(dir / "t.json", std::ios::app) << " ";
    EXPECT_TRUE(w.scan(20000, true).empty());
}

TEST(ArtifactWatch, FileTailAndLineSplitter) {
    const fs::path p = ts::test::tempDir("tail") / "e.jsonl";
    FileTail t(p.string());
    EXPECT_EQ(t.readNew(), "");  // missing: nothing
    std::ofstream(p) << "one\ntw";
    LineSplitter s;
    std::vector<std::string> lines;
    auto add = [&](std::string_view l) { lines.emplace_back(l); };
    s.feed(t.readNew(), add);
    std::ofstream(p, std::ios::app) << "o\nthree";
    s.feed(t.readNew(), add);
    EXPECT_EQ(lines, (std::vector<std::string>{"one", "two"}));
    s.finish(add);
    EXPECT_EQ(lines.back(), "three");
    std::ofstream(p) << "x\n";  // rewritten shorter: read from the start
    EXPECT_EQ(t.readNew(), "x\n");
    EXPECT_TRUE(t.restarted());
    // A line longer than the cap comes in pieces.
    LineSplitter big;
    size_t pieces = 0;
    big.feed(std::string(LineSplitter::kMaxLine * 2 + 5, 'a'), [&](std::string_view l) {
        EXPECT_LE(l.size(), LineSplitter::kMaxLine);
        ++pieces;
    });
    EXPECT_EQ(pieces, 2u);
    EXPECT_TRUE(big.hasPartial());
}
