// The files tests/fuzz/make_mindspore_seeds.py writes with its own framing and CRC-32C in
// Python (a second implementation) read back through the C++ reader: every record frames and
// checks, and the values are the ones the script put in.
#include <gtest/gtest.h>

#include "core/summary/lineage_file.h"
#include "core/summary/summary_file.h"
#include "core/summary/summary_values.h"

using namespace ts;

namespace {
std::string seed(const std::string& rel) {
    return std::string(TRAINSCOPE_SOURCE_DIR) + "/tests/fuzz/seeds/" + rel;
}
}  // namespace

TEST(SummarySeeds, PythonWrittenSummaryFile) {
    auto f = summary::SummaryFile::open(seed("mindspore_summary/lenet_MS"));
    ASSERT_TRUE(f.ok()) << f.error();
    std::vector<double> losses;
    int histograms = 0, tensors = 0, graphs = 0, landscapes = 0;
    ASSERT_TRUE(f.value()
                    ->poll([&](summary::SummaryEvent&& ev) {
                        for (const auto& it : ev.items) {
                            switch (it.kind) {
                                case summary::ValueKind::Scalar:
                                    EXPECT_EQ(it.tag, "loss/auto");
                                    losses.push_back(it.scalar);
                                    break;
                                case summary::ValueKind::Histogram: {
                                    auto h = summary::decodeHistogram(it.data);
                                    EXPECT_TRUE(h.ok());
                                    EXPECT_EQ(h->nan, 1);
                                    EXPECT_EQ(h->count, 9);
                                    ++histograms;
                                    break;
                                }
                                case summary::ValueKind::Tensor:
                                    EXPECT_EQ(summary::decodeTensor(it.data)->values,
                                              (std::vector<double>{1, 2, 3, 4}));
                                    ++tensors;
                                    break;
                                case summary::ValueKind::Graph:
                                    ++graphs;
                                    break;
                                case summary::ValueKind::Landscape: {
                                    auto l = summary::decodeLandscape(it.data);
                                    EXPECT_TRUE(l.ok()) << l.error();
                                    EXPECT_EQ(l->xs, (std::vector<double>{0, 1}));
                                    EXPECT_EQ(l->ys, (std::vector<double>{0, 1}));
                                    ++landscapes;
                                    break;
                                }
                                default:
                                    ADD_FAILURE()
                                        << "unexpected item " << it.tag << " " << it.skipReason;
                            }
                        }
                        return true;
                    })
                    .ok());
    const auto& c = f.value()->counts();
    EXPECT_EQ(c.records, 6);
    EXPECT_EQ(c.badCrc, 0);
    EXPECT_EQ(c.fileVersion, "MindSpore.Event:1");
    EXPECT_EQ(f.value()->pendingBytes(), 0u);
    ASSERT_EQ(losses.size(), 3u);
    EXPECT_NEAR(losses[2], 1.0 / 3, 1e-6);
    EXPECT_EQ(histograms, 3);
    EXPECT_EQ(tensors, 3);
    EXPECT_EQ(graphs, 1);
    EXPECT_EQ(landscapes, 1);
}

TEST(SummarySeeds, PythonWrittenLineageFile) {
    auto l = summary::readLineageFile(seed("mindspore_lineage/lenet_lineage"));
    ASSERT_TRUE(l.ok()) << l.error();
    EXPECT_EQ(l->records, 4);
    EXPECT_NEAR(*l->hparams.at("learning_rate").value, 0.01, 1e-7);
    EXPECT_EQ(l->hparams.at("optimizer").text, "Momentum");
    EXPECT_NEAR(*l->metrics.at("accuracy").value, 0.9, 1e-9);
    EXPECT_NEAR(*l->metrics.at("loss").value, 0.1, 1e-7);
    EXPECT_EQ(l->hparams.at("user/k").text, "v");
    EXPECT_EQ(*l->hparams.at("user/d/x").value, 1);
}
