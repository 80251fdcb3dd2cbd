// MindSpore summary files (and TensorBoard event files through the same decoder) import every
// value kind: scalars with their MindSpore tags, histograms, images, tensors, the loss
// landscape and the graph; damaged, cut and CRC-failing files say where and never report
// "complete" when something was dropped.
#include <google/protobuf/stubs/logging.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>

#include "core/summary/summary_file.h"
#include "core/summary/summary_store.h"
#include "core/summary/summary_values.h"
#include "importers/summary/summary_importer.h"
#include "tests/common/import_session.h"
#include "tests/common/summary_fixtures.h"
#include "tests/common/test_support.h"

using namespace ts;
namespace fs = std::filesystem;

namespace {

int64_t count(store::TraceStore& s, const std::string& sql) {
    return s.db().queryInt(sql, -1).value();
}

double real(store::TraceStore& s, const std::string& sql) {
    auto q = s.db().prepare(sql);
    return q.step() && !q.isNull(0) ? q.real(0) : -1.0;
}

std::filesystem::path summaryFile(const std::filesystem::path& dir) {
    return dir / "run_1" / "events.summary.1700000000.host_MS";
}

}  // namespace

TEST(MindSporeSummary, EveryValueKindArrives) {
    const auto dir = test::tempDir("ms_summary_all");
    const auto file = summaryFile(dir);
    const auto c = test::writeMindSporeSummary(file, 55);
    auto imp = test::importInto((dir / "s.tscope").string(), file.string());
    ASSERT_TRUE(imp.store);
    const auto& r = imp.report;
    EXPECT_EQ(r.kind, "mindspore_summary");
    EXPECT_EQ(r.status, store::SourceStatus::Complete) << r.error;
    EXPECT_EQ(r.skipped, 0);
    // 55 steps x 2 scalars = the 110 values the issue saw dropped.
    EXPECT_EQ(r.counterSamples, 110);
    store::TraceStore& s = *imp.store;
    EXPECT_EQ(count(s,
                    "SELECT count(*) FROM scalars JOIN strings t ON t.id = tag_id "
                    "WHERE t.str = 'loss/auto'"),
              55);
    EXPECT_EQ(count(s,
                    "SELECT count(*) FROM scalars JOIN strings t ON t.id = tag_id "
                    "WHERE t.str = 'accuracy'"),
              55);
    EXPECT_EQ(count(s, "SELECT count(*) FROM summary_values WHERE kind = 'histogram'"),
              c.histogramSteps);
    EXPECT_EQ(count(s, "SELECT count(*) FROM summary_values WHERE kind = 'image'"), c.imageSteps);
    EXPECT_EQ(count(s, "SELECT count(*) FROM summary_values WHERE kind = 'tensor'"), c.tensorSteps);
    EXPECT_EQ(count(s, "SELECT count(*) FROM summary_values WHERE kind = 'landscape'"), 1);
    EXPECT_EQ(count(s, "SELECT count(*) FROM summary_values WHERE kind = 'graph'"), 1);
    EXPECT_EQ(r.events, 110 + c.histogramSteps + c.imageSteps + c.tensorSteps + 2);

    auto runs = s.runs();
    ASSERT_TRUE(runs.ok());
    ASSERT_EQ(runs->size(), 1u);
    EXPECT_EQ(runs->front().name, "run_1");

    // The values decode back.
    const int64_t run = runs->front().id;
    auto hist = summary::summaryValues(s, run, summary::ValueKind::Histogram, "conv1.weight/auto");
    ASSERT_TRUE(hist.ok());
    ASSERT_EQ(hist->size(), static_cast<size_t>(c.histogramSteps));
    auto h = summary::decodeHistogram(hist->back().data);
    ASSERT_TRUE(h.ok()) << h.error();
    EXPECT_EQ(h->nan, 2);
    EXPECT_EQ(h->count, 502);
    EXPECT_EQ(summary::distributionPercentiles(h.value()).size(), 9u);
    auto tensors = summary::summaryValues(s, run, summary::ValueKind::Tensor, "fc1.bias/auto");
    ASSERT_TRUE(tensors.ok());
    auto t = summary::decodeTensor(tensors->front().data);
    ASSERT_TRUE(t.ok()) << t.error();
    EXPECT_EQ(t->dims, (std::vector<int64_t>{4, 6}));
    EXPECT_EQ(t->dtype, "float32");
    EXPECT_EQ(t->values.size(), 24u);
    auto imgs = summary::summaryValues(s, run, summary::ValueKind::Image, "input_data/auto");
    ASSERT_TRUE(imgs.ok());
    auto img = summary::decodeImage(imgs->front().data);
    ASSERT_TRUE(img.ok());
    EXPECT_EQ(img->width, 16);
    EXPECT_EQ(img->encoded.substr(1, 3), "PNG");
    auto land = summary::summaryValues(s, run, summary::ValueKind::Landscape, "landscape");
    ASSERT_TRUE(land.ok());
    auto l = summary::decodeLandscape(land->front().data);
    ASSERT_TRUE(l.ok()) << l.error();
    EXPECT_EQ(l->xs.size(), 21u);
    EXPECT_EQ(l->ys.size(), 21u);
    EXPECT_EQ(l->z.size(), 441u);
    EXPECT_EQ(l->pathZ.size(), 8u);
    EXPECT_TRUE(l->hasConvergence);
    EXPECT_EQ(l->unit, "step");
    auto tags = summary::summaryTags(s, run, summary::ValueKind::Graph);
    ASSERT_TRUE(tags.ok());
    EXPECT_EQ(tags.value(), std::vector<std::string>{"graph/train_graph"});
}

TEST(MindSporeSummary, CutFileSaysWhereAndIsPartial) {
    const auto dir = test::tempDir("ms_summary_cut");
    const auto file = summaryFile(dir);
    test::writeMindSporeSummary(file, 10);
    std::string bytes = test::readBytes(file);
    const auto cutFile = dir / "cut" / "events.summary.1.host_MS";
    test::writeBytes(cutFile, bytes.substr(0, bytes.size() - 9));
    // Written an hour ago: no run is writing it any more, so it is cut.
    fs::last_write_time(cutFile, fs::file_time_type::clock::now() - std::chrono::hours(1));
    auto imp = test::importInto((dir / "s.tscope").string(), cutFile.string());
    ASSERT_TRUE(imp.store);
    EXPECT_EQ(imp.report.status, store::SourceStatus::Partial);
    EXPECT_NE(imp.report.error.find("cut at byte"), std::string::npos) << imp.report.error;
    EXPECT_EQ(imp.report.skippedReasons.at("record_cut"), 1);
    EXPECT_EQ(imp.report.counterSamples, 20);  // everything before the cut landscape
    EXPECT_EQ(count(*imp.store,
                    "SELECT count(*) FROM import_log WHERE key = 'summary_cut' AND "
                    "byte_offset > 0"),
              1);
}

TEST(MindSporeSummary, AFileStillBeingWrittenImportsWhatIsComplete) {
    const auto dir = test::tempDir("ms_summary_inprogress");
    const auto file = summaryFile(dir);
    test::writeMindSporeSummary(file, 10);
    const std::string bytes = test::readBytes(file);
    test::writeBytes(file, bytes.substr(0, bytes.size() - 9));  // the writer is mid-record
    auto imp = test::importInto((dir / "s.tscope").string(), file.string());
    ASSERT_TRUE(imp.store);
    EXPECT_EQ(imp.report.status, store::SourceStatus::Partial);
    EXPECT_NE(imp.report.error.find("still being written"), std::string::npos) << imp.report.error;
    EXPECT_EQ(imp.report.skippedReasons.at("record_still_being_written"), 1);
    EXPECT_EQ(imp.report.counterSamples, 20);
}

TEST(MindSporeSummary, PayloadCrcFailureSkipsOneRecordLengthCrcFailureStops) {
    const auto dir = test::tempDir("ms_summary_crc");
    std::string bytes = test::frameRecord(test::msVersion());
    std::vector<size_t> starts;
    for (int s = 1; s <= 6; ++s) {
        starts.push_back(bytes.size());
        bytes += test::frameRecord(test::msScalars(s, {{"loss/auto", 1.0f / s}}));
    }
    // Payload of step 2 flipped: that record is skipped, the others come.
    std::string payload = bytes;
    payload[starts[1] + 14] ^= 0x20;
    const auto f1 = dir / "a" / "events.summary.1.h_MS";
    test::writeBytes(f1, payload);
    auto a = test::importInto((dir / "a.tscope").string(), f1.string());
    ASSERT_TRUE(a.store);
    EXPECT_EQ(a.report.status, store::SourceStatus::Partial);
    EXPECT_EQ(a.report.counterSamples, 5);
    EXPECT_EQ(a.report.skippedReasons.at("record_bad_crc"), 1);
    EXPECT_EQ(count(*a.store, "SELECT byte_offset FROM import_log WHERE key = 'summary_record'"),
              static_cast<int64_t>(starts[1]));
    // Length of step 4 flipped: steps 4.. cannot be found.
    std::string length = bytes;
    length[starts[3] + 1] ^= 0x01;
    const auto f2 = dir / "b" / "events.summary.1.h_MS";
    test::writeBytes(f2, length);
    auto b = test::importInto((dir / "b.tscope").string(), f2.string());
    ASSERT_TRUE(b.store);
    EXPECT_EQ(b.report.status, store::SourceStatus::Partial);
    EXPECT_EQ(b.report.counterSamples, 3);
    EXPECT_NE(b.report.error.find("damaged at byte " + std::to_string(starts[3])),
              std::string::npos)
        << b.report.error;
}

TEST(MindSporeSummary, AllSkippedIsNeverComplete) {
    const auto dir = test::tempDir("ms_summary_skipped");
    mindinsight::Event e;
    e.set_wall_time(1.0);
    e.mutable_explain()->set_sample_id(1);
    const auto f = dir / "x" / "events.summary.1.h_MS";
    test::writeBytes(
        f, test::frameRecord(test::msVersion()) + test::frameRecord(e.SerializeAsString()));
    auto imp = test::importInto((dir / "s.tscope").string(), f.string());
    ASSERT_TRUE(imp.store);
    EXPECT_EQ(imp.report.status, store::SourceStatus::Failed);
    EXPECT_EQ(imp.report.skippedReasons.at("mindspore_explain_record"), 1);
}

TEST(MindSporeSummary, NaNScalarsAreCountedNotLost) {
    const auto dir = test::tempDir("ms_summary_nan");
    std::string bytes = test::frameRecord(test::msVersion());
    bytes += test::frameRecord(test::msScalars(1, {{"loss/auto", 0.5f}}));
    bytes += test::frameRecord(test::msScalars(2, {{"loss/auto", std::nanf("")}}));
    bytes += test::frameRecord(test::msScalars(3, {{"loss/auto", INFINITY}}));
    const auto f = dir / "x" / "events.summary.1.h_MS";
    test::writeBytes(f, bytes);
    auto imp = test::importInto((dir / "s.tscope").string(), f.string());
    ASSERT_TRUE(imp.store);
    EXPECT_EQ(imp.report.status, store::SourceStatus::Partial);
    EXPECT_EQ(imp.report.counterSamples, 2);
    EXPECT_EQ(imp.report.skippedReasons.at("scalar_nan"), 1);
}

TEST(MindSporeSummary, AHistogramMissingARequiredFieldIsSkippedNotFatal) {
    // summary.proto is proto2: a bucket's count is required. The event parses partially (its
    // scalar beside it must come); the histogram is skipped with its reason.
    const auto dir = test::tempDir("ms_summary_required");
    mindinsight::Event e;
    e.set_wall_time(1700000001.0);
    e.set_step(1);
    auto* bad = e.mutable_summary()->add_value();
    bad->set_tag("w/histogram");
    *bad->mutable_histogram() = test::msHistogramOf(0.0, 1.0, 50);
    bad->mutable_histogram()->mutable_buckets(1)->clear_count();
    auto* ok = e.mutable_summary()->add_value();
    ok->set_tag("loss/scalar");
    ok->set_scalar_value(0.25f);
    std::string payload;
    ASSERT_TRUE(e.SerializePartialToString(&payload));
    const auto f = dir / "x" / "events.summary.1.h_MS";
    test::writeBytes(f, test::frameRecord(test::msVersion()) + test::frameRecord(payload));
    auto imp = test::importInto((dir / "s.tscope").string(), f.string());
    ASSERT_TRUE(imp.store);
    EXPECT_EQ(imp.report.status, store::SourceStatus::Partial);
    EXPECT_EQ(imp.report.counterSamples, 1);
    EXPECT_EQ(imp.report.skippedReasons.at("value_missing_required_fields"), 1);
}

TEST(MindSporeSummary, ATagOfInvalidUtf8ImportsWithoutProtobufOnStderr) {
    // proto2 string fields are not checked on parse, but protobuf says so on stderr (in builds
    // without NDEBUG: the sanitizer tree): that goes to the project's logger (DEBUG) instead, and
    // the scalar comes. The line logged through protobuf after the import checks the handler
    // in every build.
    const auto dir = test::tempDir("ms_summary_utf8");
    const auto f = dir / "x" / "events.summary.1.h_MS";
    test::writeBytes(f, test::frameRecord(test::msVersion()) +
                            test::frameRecord(test::msScalars(1, {{"loss\xff\xfe", 0.5f}})));
    testing::internal::CaptureStderr();
    auto imp = test::importInto((dir / "s.tscope").string(), f.string());
    GOOGLE_LOG(ERROR) << "a line protobuf would print";
    const std::string err = testing::internal::GetCapturedStderr();
    ASSERT_TRUE(imp.store);
    EXPECT_EQ(imp.report.counterSamples, 1);
    EXPECT_EQ(err.find("libprotobuf"), std::string::npos) << err;
}

TEST(MindSporeSummary, SniffedByContentWithoutItsName) {
    const auto dir = test::tempDir("ms_summary_sniff");
    const auto f = dir / "data.bin";
    test::writeBytes(f, test::frameRecord(test::msVersion()) +
                            test::frameRecord(test::msScalars(1, {{"loss", 1.0f}})));
    auto imp = test::importInto((dir / "s.tscope").string(), f.string());
    EXPECT_EQ(imp.report.kind, "mindspore_summary");
    EXPECT_EQ(imp.report.status, store::SourceStatus::Complete) << imp.report.error;
    EXPECT_EQ(imp.report.counterSamples, 1);
}

TEST(MindSporeSummary, LineageJoinsTheRunOfItsFolder) {
    const auto dir = test::tempDir("ms_lineage");
    const auto file = summaryFile(dir);
    test::writeMindSporeSummary(file, 5);
    test::writeMindSporeLineage(dir / "run_1" / "events.summary.1700000000.host_lineage", 0.01f, 32,
                                0.97f);
    auto s = store::TraceStore::open((dir / "s.tscope").string(), store::TraceStore::Mode::Create);
    ASSERT_TRUE(s.ok());
    JobControl jc;
    auto a = importers::importFile(file.string(), *s.value(), jc);
    auto b = importers::importFile(
        (dir / "run_1" / "events.summary.1700000000.host_lineage").string(), *s.value(), jc);
    EXPECT_EQ(b.kind, "mindspore_lineage");
    EXPECT_EQ(b.status, store::SourceStatus::Complete) << b.error;
    auto runs = s.value()->runs();
    ASSERT_TRUE(runs.ok());
    ASSERT_EQ(runs->size(), 1u);  // one folder, one run
    store::TraceStore& st = *s.value();
    EXPECT_NEAR(real(st,
                     "SELECT value FROM run_params WHERE kind='hparam' AND "
                     "key='learning_rate'"),
                0.01, 1e-6);
    EXPECT_EQ(count(st, "SELECT value FROM run_params WHERE kind='hparam' AND key='batch_size'"),
              32);
    EXPECT_NEAR(real(st,
                     "SELECT value FROM run_params WHERE kind='metric' AND "
                     "key='accuracy'"),
                0.97, 1e-6);
    EXPECT_EQ(count(st,
                    "SELECT count(*) FROM run_params WHERE kind='hparam' AND "
                    "key='optimizer' AND text='Momentum'"),
              1);
    EXPECT_EQ(count(st, "SELECT count(*) FROM run_params WHERE key='user/version'"), 1);
}

TEST(TensorBoardSummary, PyTorchHistogramsImagesAndHParamsArrive) {
    const auto dir = test::tempDir("tb_kinds");
    std::string bytes = test::frameRecord(test::tbVersion());
    for (int s = 0; s < 3; ++s) {
        bytes += test::frameRecord(test::tbScalar(s, "loss", 1.0f / (s + 1)));
        bytes += test::frameRecord(test::tbHistogram(s, "fc1/weight"));
        bytes += test::frameRecord(test::tbImage(s, "inputs"));
    }
    const auto f = dir / "runs" / "events.out.tfevents.1700000000.host.1.0";
    test::writeBytes(f, bytes);
    std::string hp;
    for (const auto& r : test::tbHParams(0.1, 64, "sgd", {"hparam/accuracy"}))
        hp += test::frameRecord(r);
    hp += test::frameRecord(test::tbScalar(0, "hparam/accuracy", 0.91f));
    const auto f2 = dir / "runs" / "1700000001.5" / "events.out.tfevents.1700000001.host.1.1";
    test::writeBytes(f2, test::frameRecord(test::tbVersion()) + hp);

    auto s = store::TraceStore::open((dir / "s.tscope").string(), store::TraceStore::Mode::Create);
    ASSERT_TRUE(s.ok());
    JobControl jc;
    auto a = importers::importFile(f.string(), *s.value(), jc);
    EXPECT_EQ(a.kind, "tfevents");
    EXPECT_EQ(a.status, store::SourceStatus::Complete) << a.error;
    EXPECT_EQ(a.counterSamples, 3);
    store::TraceStore& st = *s.value();
    EXPECT_EQ(count(st, "SELECT count(*) FROM summary_values WHERE kind='histogram'"), 3);
    EXPECT_EQ(count(st, "SELECT count(*) FROM summary_values WHERE kind='image'"), 3);
    auto hv = st.db().prepare("SELECT data FROM summary_values WHERE kind='histogram' LIMIT 1");
    ASSERT_TRUE(hv.step());
    auto h = summary::decodeHistogram(hv.blob(0));
    ASSERT_TRUE(h.ok());
    ASSERT_EQ(h->buckets.size(), 4u);
    EXPECT_DOUBLE_EQ(h->buckets[0].left, -1.0);
    EXPECT_DOUBLE_EQ(h->buckets[3].left + h->buckets[3].width, 1.0);
    EXPECT_EQ(h->count, 100);

    auto b = importers::importFile(f2.string(), *s.value(), jc);
    EXPECT_EQ(b.status, store::SourceStatus::Complete) << b.error;
    EXPECT_NEAR(real(st, "SELECT value FROM run_params WHERE kind='hparam' AND key='lr'"), 0.1,
                1e-9);
    EXPECT_EQ(count(st,
                    "SELECT count(*) FROM run_params WHERE kind='hparam' AND "
                    "key='optimizer' AND text='sgd'"),
              1);
    EXPECT_NEAR(real(st,
                     "SELECT value FROM run_params WHERE kind='metric' AND "
                     "key='hparam/accuracy'"),
                0.91, 1e-6);
}

TEST(TensorBoardSummary, AudioIsCountedAsSkipped) {
    const auto dir = test::tempDir("tb_audio");
    tensorboard::Event e;
    e.set_wall_time(1.0);
    auto* v = e.mutable_summary()->add_value();
    v->set_tag("speech");
    v->mutable_audio()->set_sample_rate(16000);
    const auto f = dir / "events.out.tfevents.1.h";
    test::writeBytes(f, test::frameRecord(test::tbVersion()) +
                            test::frameRecord(test::tbScalar(1, "loss", 0.5f)) +
                            test::frameRecord(e.SerializeAsString()));
    auto imp = test::importInto((dir / "s.tscope").string(), f.string());
    EXPECT_EQ(imp.report.status, store::SourceStatus::Partial);
    EXPECT_EQ(imp.report.skippedReasons.at("tensorboard_audio"), 1);
}

TEST(SummaryFile, GrowingFileIsReadAsItIsWritten) {
    const auto dir = test::tempDir("ms_summary_live");
    const auto f = dir / "live" / "events.summary.1.h_MS";
    std::string all = test::frameRecord(test::msVersion());
    for (int s = 1; s <= 4; ++s) all += test::frameRecord(test::msScalars(s, {{"loss", 1.0f * s}}));
    // Half of it, ending inside the third record.
    const size_t half = all.size() / 2 + 3;
    test::writeBytes(f, all.substr(0, half));
    auto file = summary::SummaryFile::open(f.string());
    ASSERT_TRUE(file.ok());
    int seen = 0;
    auto count = [&](summary::SummaryEvent&& ev) {
        for (const auto& it : ev.items) seen += it.kind == summary::ValueKind::Scalar;
        return true;
    };
    ASSERT_TRUE(file.value()->poll(count).ok());
    const int first = seen;
    EXPECT_GT(file.value()->pendingBytes(), 0u);
    {
        std::ofstream out(f, std::ios::binary | std::ios::app);
        out.write(all.data() + half, static_cast<std::streamsize>(all.size() - half));
    }
    ASSERT_TRUE(file.value()->poll(count).ok());
    EXPECT_EQ(seen, 4);
    EXPECT_LT(first, 4);
    EXPECT_EQ(file.value()->pendingBytes(), 0u);
}
