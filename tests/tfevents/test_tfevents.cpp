// TensorBoard event files: the corpus file imports as 100 scalars my_metric = 0.5*step; our
// own writer round-trips; damaged files give errors or partial imports, never crashes.
#include <gtest/gtest.h>

#include <fstream>

#include "core/engine/train/tb_events.h"
#include "core/store/trace_store.h"
#include "importers/registry.h"
#include "importers/tfevents/tfevents_importer.h"
#include "tests/common/test_support.h"

using namespace ts;

namespace {
std::string corpusEvents() {
    return test::corpusFile(
               "real/tfevents/events.out.tfevents.1585499054.Jaakkos-Mac-mini.local.11684.5.v2")
        .string();
}
}  // namespace

TEST(Tfevents, Crc32cKnownValue) {
    EXPECT_EQ(engine::tb::crc32c("123456789", 9), 0xE3069283u);
}

TEST(Tfevents, CorpusFileReadsHundredScalars) {
    TS_REQUIRE_CORPUS();
    auto parsed = importers::tfevents::readEventFile(corpusEvents());
    ASSERT_TRUE(parsed.ok()) << parsed.error();
    const auto& s = parsed.value().scalars;
    ASSERT_EQ(s.size(), 100u);
    for (const auto& p : s) {
        EXPECT_EQ(p.tag, "my_metric");
        EXPECT_NEAR(p.value, 0.5 * static_cast<double>(p.step), 1e-6);
    }
    EXPECT_EQ(parsed.value().badRecords, 0);
}

TEST(Tfevents, CorpusFileImportsThroughRegistry) {
    TS_REQUIRE_CORPUS();
    const auto dir = test::tempDir("tfevents_import");
    auto store =
        store::TraceStore::open((dir / "s.tsdb").string(), store::TraceStore::Mode::Create);
    ASSERT_TRUE(store.ok());
    JobControl control;
    auto rep = importers::importFile(corpusEvents(), *store.value(), control);
    EXPECT_EQ(rep.kind, "tfevents");
    EXPECT_EQ(rep.status, ts::store::SourceStatus::Complete) << rep.error;
    EXPECT_EQ(rep.events, 100);
    auto q = store.value()->db().prepare(
        "SELECT count(*), sum(value) FROM scalars JOIN strings ON strings.id = tag_id WHERE str = "
        "'my_metric'");
    ASSERT_TRUE(q.step());
    EXPECT_EQ(q.int64(0), 100);
    EXPECT_NEAR(q.real(1), 0.5 * 4950, 1e-3);
    auto runs = store.value()->runs();
    ASSERT_TRUE(runs.ok());
    ASSERT_EQ(runs.value().size(), 1u);
}

TEST(Tfevents, WriterRoundTripAndDamagedFiles) {
    const auto dir = test::tempDir("tfevents_rt");
    std::string path;
    {
        auto w = engine::tb::EventWriter::open(dir.string());
        ASSERT_TRUE(w.ok()) << w.error();
        for (int i = 0; i < 5; ++i)
            w.value()->addScalar("train/loss", i, 1.0f / static_cast<float>(i + 1));
        path = w.value()->path();
    }
    auto parsed = importers::tfevents::readEventFile(path);
    ASSERT_TRUE(parsed.ok()) << parsed.error();
    ASSERT_EQ(parsed.value().scalars.size(), 5u);
    EXPECT_FLOAT_EQ(static_cast<float>(parsed.value().scalars[3].value), 0.25f);
    EXPECT_EQ(parsed.value().fileVersion, "brain.Event:2");

    std::string bytes;
    {
        std::ifstream in(path, std::ios::binary);
        bytes.assign(std::istreambuf_iterator<char>(in), {});
    }
    // Truncated: the events before the cut still come.
    const std::string cut = (dir / "events.out.tfevents.cut").string();
    std::ofstream(cut, std::ios::binary)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size() - 7));
    auto t = importers::tfevents::readEventFile(cut);
    ASSERT_TRUE(t.ok());
    EXPECT_TRUE(t.value().truncated);
    EXPECT_EQ(t.value().scalars.size(), 4u);
    // A flipped data byte fails its CRC and is skipped.
    std::string flipped = bytes;
    flipped[flipped.size() - 6] ^= 0x40;
    const std::string bad = (dir / "events.out.tfevents.bad").string();
    std::ofstream(bad, std::ios::binary)
        .write(flipped.data(), static_cast<std::streamsize>(flipped.size()));
    auto b = importers::tfevents::readEventFile(bad);
    ASSERT_TRUE(b.ok());
    EXPECT_EQ(b.value().badRecords, 1);
    // Garbage is an error.
    const std::string junk = (dir / "events.out.tfevents.junk").string();
    std::ofstream(junk) << "hello, not a record";
    EXPECT_FALSE(importers::tfevents::readEventFile(junk).ok());
}
