// Watched folders: new files are reported once, when complete; temporary and old ones never.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "core/run/artifact_watch.h"
#include "core/run/file_tail.h"
#include "core/run/line_splitter.h"
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
