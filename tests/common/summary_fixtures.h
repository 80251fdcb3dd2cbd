#pragma once
// Summary files for the tests, written through the project's own protobuf classes (the
// MindSpore/MindInsight and TensorBoard messages of core/proto) and TFRecord framing with
// masked CRC-32C: every value kind MindSpore's SummaryRecord writes (scalars, histograms,
// PNG images, tensors, loss landscapes, the graph), lineage records, and PyTorch-style
// TensorBoard files (histograms, images, HParams). Header-only.
#include <zlib.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "core/engine/train/tb_events.h"
#include "core/proto/mindinsight_lineage.pb.h"
#include "core/proto/mindinsight_summary.pb.h"
#include "core/proto/tensorboard_summary.pb.h"

namespace ts::test {

/// One TFRecord: length, masked CRC of the length, payload, masked CRC of the payload.
inline std::string frameRecord(const std::string& payload) {
    std::string out(12, '\0');
    const uint64_t len = payload.size();
    std::memcpy(out.data(), &len, 8);
    const uint32_t lc = engine::tb::maskedCrc(out.data(), 8);
    std::memcpy(out.data() + 8, &lc, 4);
    out += payload;
    const uint32_t dc = engine::tb::maskedCrc(payload.data(), payload.size());
    out.append(reinterpret_cast<const char*>(&dc), 4);
    return out;
}

inline void writeBytes(const std::filesystem::path& p, const std::string& bytes) {
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary)
        .write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

inline std::string readBytes(const std::filesystem::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
}

/// A w x h RGB PNG (filter 0 rows), coloured by `seed`: a real PNG any decoder reads.
inline std::string makePng(int w, int h, int seed) {
    auto be32 = [](uint32_t v) {
        std::string s(4, '\0');
        s[0] = static_cast<char>(v >> 24);
        s[1] = static_cast<char>(v >> 16);
        s[2] = static_cast<char>(v >> 8);
        s[3] = static_cast<char>(v);
        return s;
    };
    auto chunk = [&](const char* type, const std::string& data) {
        std::string body = std::string(type, 4) + data;
        const uLong crc =
            crc32(0, reinterpret_cast<const Bytef*>(body.data()), static_cast<uInt>(body.size()));
        return be32(static_cast<uint32_t>(data.size())) + body + be32(static_cast<uint32_t>(crc));
    };
    std::string raw;
    for (int y = 0; y < h; ++y) {
        raw.push_back('\0');
        for (int x = 0; x < w; ++x) {
            raw.push_back(static_cast<char>((x * 255 / std::max(1, w - 1) + seed * 40) & 0xff));
            raw.push_back(static_cast<char>((y * 255 / std::max(1, h - 1)) & 0xff));
            raw.push_back(static_cast<char>((seed * 70) & 0xff));
        }
    }
    uLongf zlen = compressBound(static_cast<uLong>(raw.size()));
    std::string z(zlen, '\0');
    compress(reinterpret_cast<Bytef*>(z.data()), &zlen, reinterpret_cast<const Bytef*>(raw.data()),
             static_cast<uLong>(raw.size()));
    z.resize(zlen);
    std::string ihdr = be32(static_cast<uint32_t>(w)) + be32(static_cast<uint32_t>(h));
    ihdr += std::string("\x08\x02\x00\x00\x00", 5);  // 8-bit RGB, deflate, no filter, no interlace
    return std::string("\x89PNG\r\n\x1a\n", 8) + chunk("IHDR", ihdr) + chunk("IDAT", z) +
           chunk("IEND", "");
}

// ---- MindSpore summary events -------------------------------------------------------------

inline std::string msVersion(double wall = 1700000000.0) {
    mindinsight::Event e;
    e.set_wall_time(wall);
    e.set_version("MindSpore.Event:1");
    return e.SerializeAsString();
}

inline std::string msScalars(int64_t step, const std::vector<std::pair<std::string, float>>& v,
                             double wall = 1700000000.0) {
    mindinsight::Event e;
    e.set_wall_time(wall + static_cast<double>(step));
    e.set_step(step);
    for (const auto& [tag, x] : v) {
        auto* val = e.mutable_summary()->add_value();
        val->set_tag(tag);
        val->set_scalar_value(x);
    }
    return e.SerializeAsString();
}

/// A histogram of `n` values of N(mean, sd) (deterministic quantiles), plus NaN and +Inf counts.
inline mindinsight::Summary::Histogram msHistogramOf(double mean, double sd, int n, int nan = 0,
                                                     int posInf = 0) {
    mindinsight::Summary::Histogram h;
    const int buckets = 20;
    const double lo = mean - 3 * sd, width = 6 * sd / buckets;
    std::vector<int64_t> counts(buckets, 0);
    double sum = 0;
    for (int i = 0; i < n; ++i) {
        // a simple, deterministic bell: sum of 4 uniform-ish positions
        const double u = (std::fmod(i * 0.618033988, 1.0) + std::fmod(i * 0.414213562, 1.0) +
                          std::fmod(i * 0.732050807, 1.0) + std::fmod(i * 0.236067977, 1.0)) /
                         4.0;
        const double x = mean + (u - 0.5) * 6 * sd * 0.6;
        sum += x;
        const int b = std::clamp(static_cast<int>((x - lo) / width), 0, buckets - 1);
        ++counts[static_cast<size_t>(b)];
    }
    for (int b = 0; b < buckets; ++b) {
        auto* k = h.add_buckets();
        k->set_left(lo + b * width);
        k->set_width(width);
        k->set_count(counts[static_cast<size_t>(b)]);
    }
    h.set_nan_count(nan);
    h.set_pos_inf_count(posInf);
    h.set_neg_inf_count(0);
    h.set_min(lo);
    h.set_max(lo + buckets * width);
    h.set_sum(sum);
    h.set_count(n + nan + posInf);
    return h;
}

inline std::string msValueEvent(int64_t step, const std::string& tag,
                                const std::function<void(mindinsight::Summary::Value*)>& fill,
                                double wall = 1700000000.0) {
    mindinsight::Event e;
    e.set_wall_time(wall + static_cast<double>(step));
    e.set_step(step);
    auto* val = e.mutable_summary()->add_value();
    val->set_tag(tag);
    fill(val);
    return e.SerializeAsString();
}

inline mindinsight::TensorProto msTensor(const std::vector<int64_t>& dims,
                                         const std::vector<float>& values) {
    mindinsight::TensorProto t;
    for (int64_t d : dims) t.add_dims(d);
    t.set_data_type(mindinsight::DT_FLOAT32);
    for (float v : values) t.add_float_data(v);
    return t;
}

/// A 2-D landscape on an n x n mesh (numpy.meshgrid form) with a path of `pathLen` points.
inline mindinsight::LossLandscape msLandscape(int n, int pathLen) {
    mindinsight::LossLandscape l;
    std::vector<float> xs, ys, zs;
    for (int r = 0; r < n; ++r)
        for (int c = 0; c < n; ++c) {
            const float x = -1.0f + 2.0f * static_cast<float>(c) / static_cast<float>(n - 1);
            const float y = -1.0f + 2.0f * static_cast<float>(r) / static_cast<float>(n - 1);
            xs.push_back(x);
            ys.push_back(y);
            zs.push_back(0.5f + x * x + 0.6f * y * y + 0.1f * std::sin(4 * x));
        }
    const std::vector<int64_t> dims = {n, n};
    *l.mutable_landscape()->mutable_x() = msTensor(dims, xs);
    *l.mutable_landscape()->mutable_y() = msTensor(dims, ys);
    *l.mutable_landscape()->mutable_z() = msTensor(dims, zs);
    std::vector<float> px, py, pz;
    for (int i = 0; i < pathLen; ++i) {
        const float t = 1.0f - static_cast<float>(i) / static_cast<float>(std::max(1, pathLen - 1));
        px.push_back(0.8f * t);
        py.push_back(-0.7f * t);
        pz.push_back(0.5f + 0.64f * t * t + 0.6f * 0.49f * t * t);
        l.mutable_loss_path()->add_intervals(i + 1);
    }
    *l.mutable_loss_path()->mutable_points()->mutable_x() = msTensor({pathLen}, px);
    *l.mutable_loss_path()->mutable_points()->mutable_y() = msTensor({pathLen}, py);
    *l.mutable_loss_path()->mutable_points()->mutable_z() = msTensor({pathLen}, pz);
    *l.mutable_convergence_point()->mutable_x() = msTensor({1}, {0.0f});
    *l.mutable_convergence_point()->mutable_y() = msTensor({1}, {0.0f});
    *l.mutable_convergence_point()->mutable_z() = msTensor({1}, {0.5f});
    l.mutable_metadata()->set_decomposition("PCA");
    l.mutable_metadata()->set_unit("step");
    l.mutable_metadata()->set_step_per_epoch(10);
    return l;
}

/// LeNet-like graph: scopes Default/network-WithLossCell/_backbone-LeNet5/<layer>/<op>.
inline mindinsight::GraphProto msGraph() {
    mindinsight::GraphProto g;
    g.set_name("train_graph");
    auto* p = g.add_parameters();
    p->set_name("conv1.weight");
    auto* pt = p->mutable_type()->mutable_tensor_type();
    pt->set_elem_type(mindinsight::DT_FLOAT32);
    for (int64_t d : {6, 1, 5, 5}) pt->mutable_shape()->add_dim()->set_size(d);
    p = g.add_parameters();
    p->set_name("x");
    const char* scope = "Default/network-WithLossCell/_backbone-LeNet5";
    struct N {
        const char* name;
        const char* op;
        const char* layer;
        std::vector<const char*> inputs;
        std::vector<int64_t> shape;
    };
    const std::vector<N> nodes = {
        {"1", "Conv2D", "conv1-Conv2d", {"x", "conv1.weight"}, {32, 6, 28, 28}},
        {"2", "ReLU", "relu-ReLU", {"1"}, {32, 6, 28, 28}},
        {"3", "MaxPool", "max_pool2d-MaxPool2d", {"2"}, {32, 6, 14, 14}},
        {"4", "MatMul", "fc1-Dense", {"3"}, {32, 120}},
        {"5", "BiasAdd", "fc1-Dense", {"4"}, {32, 120}},
        {"6", "SoftmaxCrossEntropyWithLogits", "", {"5"}, {32}},
    };
    int id = 0;
    for (const N& n : nodes) {
        auto* node = g.add_node();
        node->set_name(n.name);
        node->set_op_type(n.op);
        const std::string s = std::string(scope) + (n.layer[0] ? std::string("/") + n.layer : "");
        node->set_scope(s);
        node->set_full_name(s + "/" + n.op + "-op" + std::to_string(id++));
        for (const char* in : n.inputs) node->add_input()->set_name(in);
        auto* a = node->add_attribute();
        a->set_name("data_format");
        a->mutable_value()->set_dtype(mindinsight::DT_STRING);
        a->mutable_value()->set_str_val("NCHW");
        auto* t = node->mutable_output_type();
        t->set_data_type(mindinsight::DT_TENSOR);
        t->mutable_tensor_type()->set_elem_type(mindinsight::DT_FLOAT32);
        for (int64_t d : n.shape) t->mutable_tensor_type()->mutable_shape()->add_dim()->set_size(d);
    }
    return g;
}

inline std::string msGraphEvent(const mindinsight::GraphProto& g, double wall = 1700000000.0) {
    mindinsight::Event e;
    e.set_wall_time(wall);
    e.set_step(0);
    *e.mutable_graph_def() = g;
    return e.SerializeAsString();
}

/// What writeMindSporeSummary wrote, for assertions.
struct MindSporeSummaryContents {
    int scalarSteps = 0;     // each step: loss/auto and accuracy
    int histogramSteps = 0;  // conv1.weight/auto
    int imageSteps = 0;      // input_data/auto
    int tensorSteps = 0;     // fc1.bias/auto
    bool landscape = false, graph = false;
};

/// A MindSpore summary file as SummaryCollector writes one: version, graph, then per step
/// scalars (loss/auto, accuracy), and every few steps a histogram, an image and a tensor,
/// and a loss landscape at the end. `lossScale` makes runs differ.
inline MindSporeSummaryContents writeMindSporeSummary(const std::filesystem::path& file, int steps,
                                                      float lossScale = 1.0f) {
    MindSporeSummaryContents c;
    std::string bytes = frameRecord(msVersion());
    bytes += frameRecord(msGraphEvent(msGraph()));
    c.graph = true;
    for (int s = 1; s <= steps; ++s) {
        const float loss = lossScale * 2.3f * std::exp(-0.05f * static_cast<float>(s)) + 0.05f;
        const float acc = 1.0f - 0.9f * std::exp(-0.04f * static_cast<float>(s));
        bytes += frameRecord(msScalars(s, {{"loss/auto", loss}, {"accuracy", acc}}));
        ++c.scalarSteps;
        if (s % 5 == 0) {
            bytes += frameRecord(msValueEvent(s, "conv1.weight/auto", [&](auto* v) {
                *v->mutable_histogram() =
                    msHistogramOf(0.0, 0.2 / (1.0 + 0.05 * s), 500, s == steps ? 2 : 0);
            }));
            ++c.histogramSteps;
            bytes += frameRecord(msValueEvent(s, "input_data/auto", [&](auto* v) {
                auto* img = v->mutable_image();
                img->set_width(16);
                img->set_height(12);
                img->set_colorspace(3);
                img->set_encoded_image(makePng(16, 12, s / 5));
            }));
            ++c.imageSteps;
            bytes += frameRecord(msValueEvent(s, "fc1.bias/auto", [&](auto* v) {
                std::vector<float> vals;
                for (int i = 0; i < 24; ++i)
                    vals.push_back(0.01f * static_cast<float>(i * s % 17) - 0.05f);
                *v->mutable_tensor() = msTensor({4, 6}, vals);
            }));
            ++c.tensorSteps;
        }
    }
    bytes += frameRecord(msValueEvent(
        steps, "landscape", [&](auto* v) { *v->mutable_loss_landscape() = msLandscape(21, 8); }));
    c.landscape = true;
    writeBytes(file, bytes);
    return c;
}

/// A lineage file: TrainLineage (optimizer, lr, batch size, epochs, network, final loss),
/// EvaluationLineage (accuracy) and custom lineage data.
inline void writeMindSporeLineage(const std::filesystem::path& file, float lr, int batch,
                                  float accuracy, const std::string& optimizer = "Momentum") {
    std::string bytes;
    mindinsight::LineageEvent v;
    v.set_wall_time(1700000000.0);
    v.set_version("MindSpore.Event:1");
    bytes += frameRecord(v.SerializeAsString());
    mindinsight::LineageEvent t;
    t.set_wall_time(1700000100.0);
    auto* h = t.mutable_train_lineage()->mutable_hyper_parameters();
    h->set_optimizer(optimizer);
    h->set_learning_rate(lr);
    h->set_loss_function("SoftmaxCrossEntropyWithLogits");
    h->set_epoch(10);
    h->set_batch_size(batch);
    h->set_parallel_mode("stand_alone");
    h->set_device_num(1);
    t.mutable_train_lineage()->mutable_train_dataset()->set_train_dataset_path("/data/mnist/train");
    t.mutable_train_lineage()->mutable_train_dataset()->set_train_dataset_size(60000);
    t.mutable_train_lineage()->mutable_algorithm()->set_network("LeNet5");
    t.mutable_train_lineage()->mutable_algorithm()->set_loss(0.05f / accuracy);
    bytes += frameRecord(t.SerializeAsString());
    mindinsight::LineageEvent e;
    e.set_wall_time(1700000200.0);
    e.mutable_evaluation_lineage()->set_metric("{\"accuracy\": " + std::to_string(accuracy) + "}");
    e.mutable_evaluation_lineage()->mutable_valid_dataset()->set_valid_dataset_size(10000);
    bytes += frameRecord(e.SerializeAsString());
    mindinsight::LineageEvent u;
    u.set_wall_time(1700000300.0);
    (*u.mutable_user_defined_info()->mutable_map_str())["version"] = "v1";
    (*u.mutable_user_defined_info()->mutable_map_double())["dropout"] = 0.5;
    bytes += frameRecord(u.SerializeAsString());
    writeBytes(file, bytes);
}

// ---- TensorBoard (PyTorch SummaryWriter) events ------------------------------------------

inline std::string tbVersion() {
    tensorboard::Event e;
    e.set_wall_time(1700000000.0);
    e.set_file_version("brain.Event:2");
    return e.SerializeAsString();
}

inline std::string tbScalar(int64_t step, const std::string& tag, float v) {
    tensorboard::Event e;
    e.set_wall_time(1700000000.0 + static_cast<double>(step));
    e.set_step(step);
    auto* val = e.mutable_summary()->add_value();
    val->set_tag(tag);
    val->set_simple_value(v);
    return e.SerializeAsString();
}

/// A histogram as torch.utils.tensorboard writes one (bucket_limit = right edges).
inline std::string tbHistogram(int64_t step, const std::string& tag) {
    tensorboard::Event e;
    e.set_wall_time(1700000000.0 + static_cast<double>(step));
    e.set_step(step);
    auto* val = e.mutable_summary()->add_value();
    val->set_tag(tag);
    auto* h = val->mutable_histo();
    h->set_min(-1.0);
    h->set_max(1.0);
    h->set_num(100);
    h->set_sum(0.0);
    h->set_sum_squares(33.0);
    for (int i = 1; i <= 4; ++i) {
        h->add_bucket_limit(-1.0 + 0.5 * i);
        h->add_bucket(i == 2 || i == 3 ? 35 : 15);
    }
    return e.SerializeAsString();
}

inline std::string tbImage(int64_t step, const std::string& tag) {
    tensorboard::Event e;
    e.set_wall_time(1700000000.0 + static_cast<double>(step));
    e.set_step(step);
    auto* val = e.mutable_summary()->add_value();
    val->set_tag(tag);
    auto* img = val->mutable_image();
    img->set_height(8);
    img->set_width(8);
    img->set_colorspace(3);
    img->set_encoded_image_string(makePng(8, 8, static_cast<int>(step)));
    return e.SerializeAsString();
}

/// The three HParams records PyTorch's add_hparams writes (experiment, session start, end).
inline std::vector<std::string> tbHParams(double lr, int batch, const std::string& optimizer,
                                          const std::vector<std::string>& metricTags) {
    std::vector<std::string> out;
    auto record = [&](const char* tag, const tensorboard::HParamsPluginData& d) {
        tensorboard::Event e;
        e.set_wall_time(1700000000.0);
        auto* val = e.mutable_summary()->add_value();
        val->set_tag(tag);
        auto* pd = val->mutable_metadata()->mutable_plugin_data();
        pd->set_plugin_name("hparams");
        pd->set_content(d.SerializeAsString());
        out.push_back(e.SerializeAsString());
    };
    tensorboard::HParamsPluginData exp;
    for (const char* n : {"lr", "bsize", "optimizer"})
        exp.mutable_experiment()->add_hparam_infos()->set_name(n);
    for (const auto& m : metricTags)
        exp.mutable_experiment()->add_metric_infos()->mutable_name()->set_tag(m);
    record("_hparams_/experiment", exp);
    tensorboard::HParamsPluginData ssi;
    auto& hp = *ssi.mutable_session_start_info()->mutable_hparams();
    hp["lr"].set_number_value(lr);
    hp["bsize"].set_number_value(batch);
    hp["optimizer"].set_string_value(optimizer);
    record("_hparams_/session_start_info", ssi);
    tensorboard::HParamsPluginData sei;
    sei.mutable_session_end_info()->set_status(1);
    record("_hparams_/session_end_info", sei);
    return out;
}

}  // namespace ts::test
