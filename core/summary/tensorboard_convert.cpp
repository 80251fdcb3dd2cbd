#include "core/summary/tensorboard_convert.h"

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstdlib>
#include <cstring>

#include "core/common/json.h"
#include "core/engine/tensor/tensor.h"
#include "core/proto/mindinsight_summary.pb.h"

namespace ts::summary {
namespace {

constexpr uint64_t kMaxConvertedElements = uint64_t{1} << 26;  // 64 Mi values

/// A TensorBoard count (a double) as an int64: NaN and negatives 0, huge ones INT64_MAX.
int64_t countOf(double c) {
    if (!(c > 0)) return 0;
    return c < 9.2e18 ? static_cast<int64_t>(std::llround(c)) : INT64_MAX;
}

float bf16ToFloat(uint16_t b) {
    const uint32_t bits = uint32_t{b} << 16;
    float f;
    std::memcpy(&f, &bits, 4);
    return f;
}

/// Element count of a TensorBoard shape; false for unknown, negative or too many.
bool shapeCount(const tensorboard::TensorShapeProto& s, std::vector<int64_t>& dims,
                uint64_t& count) {
    if (s.unknown_rank()) return false;
    count = 1;
    for (const auto& d : s.dim()) {
        if (d.size() < 0) return false;
        dims.push_back(d.size());
        count *= static_cast<uint64_t>(d.size());
        if (count > kMaxConvertedElements) return false;
    }
    return true;
}

/// The values of a numeric TensorBoard tensor as doubles (tensor_content or the typed
/// repeated field; TensorFlow's version-0 rule: one value fills the shape).
bool tensorDoubles(const tensorboard::TensorProto& t, uint64_t count, std::vector<double>& out) {
    out.clear();
    const std::string& raw = t.tensor_content();
    auto fromRaw = [&](size_t size, auto read) {
        if (raw.size() != count * size) return false;
        out.resize(count);
        for (uint64_t i = 0; i < count; ++i) out[i] = read(raw.data() + i * size);
        return true;
    };
    auto fill = [&](const auto& rep, auto conv) {
        if (rep.size() == 0) return false;
        if (static_cast<uint64_t>(rep.size()) != count && rep.size() != 1) return false;
        out.resize(count);
        for (uint64_t i = 0; i < count; ++i)
            out[i] = conv(rep.Get(rep.size() == 1 ? 0 : static_cast<int>(i)));
        return true;
    };
    auto as = [](auto x) { return static_cast<double>(x); };
    switch (t.dtype()) {
        case tensorboard::DT_FLOAT:
            if (!raw.empty())
                return fromRaw(4, [](const char* p) {
                    float f;
                    std::memcpy(&f, p, 4);
                    return static_cast<double>(f);
                });
            return fill(t.float_val(), as);
        case tensorboard::DT_DOUBLE:
            if (!raw.empty())
                return fromRaw(8, [](const char* p) {
                    double d;
                    std::memcpy(&d, p, 8);
                    return d;
                });
            return fill(t.double_val(), as);
        case tensorboard::DT_HALF:
        case tensorboard::DT_BFLOAT16: {
            const bool bf = t.dtype() == tensorboard::DT_BFLOAT16;
            auto conv = [bf](uint16_t h) {
                return static_cast<double>(bf ? bf16ToFloat(h) : engine::halfToFloat(h));
            };
            if (!raw.empty())
                return fromRaw(2, [&](const char* p) {
                    uint16_t h;
                    std::memcpy(&h, p, 2);
                    return conv(h);
                });
            return fill(t.half_val(), [&](int32_t h) { return conv(static_cast<uint16_t>(h)); });
        }
        case tensorboard::DT_INT32:
        case tensorboard::DT_INT16:
        case tensorboard::DT_INT8:
        case tensorboard::DT_UINT8:
        case tensorboard::DT_UINT16: {
            if (!raw.empty()) {
                switch (t.dtype()) {
                    case tensorboard::DT_INT32:
                        return fromRaw(4, [](const char* p) {
                            int32_t v;
                            std::memcpy(&v, p, 4);
                            return static_cast<double>(v);
                        });
                    case tensorboard::DT_INT16:
                        return fromRaw(2, [](const char* p) {
                            int16_t v;
                            std::memcpy(&v, p, 2);
                            return static_cast<double>(v);
                        });
                    case tensorboard::DT_UINT16:
                        return fromRaw(2, [](const char* p) {
                            uint16_t v;
                            std::memcpy(&v, p, 2);
                            return static_cast<double>(v);
                        });
                    case tensorboard::DT_INT8:
                        return fromRaw(
                            1, [](const char* p) { return static_cast<double>(int8_t(*p)); });
                    default:
                        return fromRaw(
                            1, [](const char* p) { return static_cast<double>(uint8_t(*p)); });
                }
            }
            return fill(t.int_val(), as);
        }
        case tensorboard::DT_INT64:
            if (!raw.empty())
                return fromRaw(8, [](const char* p) {
                    int64_t v;
                    std::memcpy(&v, p, 8);
                    return static_cast<double>(v);
                });
            return fill(t.int64_val(), as);
        case tensorboard::DT_UINT32:
            if (!raw.empty())
                return fromRaw(4, [](const char* p) {
                    uint32_t v;
                    std::memcpy(&v, p, 4);
                    return static_cast<double>(v);
                });
            return fill(t.uint32_val(), as);
        case tensorboard::DT_UINT64:
            if (!raw.empty())
                return fromRaw(8, [](const char* p) {
                    uint64_t v;
                    std::memcpy(&v, p, 8);
                    return static_cast<double>(v);
                });
            return fill(t.uint64_val(), as);
        case tensorboard::DT_BOOL:
            if (!raw.empty()) return fromRaw(1, [](const char* p) { return *p ? 1.0 : 0.0; });
            return fill(t.bool_val(), [](bool b) { return b ? 1.0 : 0.0; });
        default:
            return false;
    }
}

/// A numeric TensorBoard tensor as MindSpore's TensorProto: the values as float64
/// (double_data), except float32/float16/bfloat16 tensors, kept as float32 (float_data).
bool toMindSporeTensor(const tensorboard::TensorProto& t, mindinsight::TensorProto& out,
                       std::string& why) {
    std::vector<int64_t> dims;
    uint64_t count = 0;
    if (!shapeCount(t.tensor_shape(), dims, count)) {
        why = "tensorboard_tensor_bad_shape";
        return false;
    }
    std::vector<double> vals;
    if (!tensorDoubles(t, count, vals)) {
        why = t.dtype() == tensorboard::DT_STRING ? "tensorboard_string_tensor"
                                                  : "tensorboard_tensor_unreadable";
        return false;
    }
    for (int64_t d : dims) out.add_dims(d);
    const bool f32 = t.dtype() == tensorboard::DT_FLOAT || t.dtype() == tensorboard::DT_HALF ||
                     t.dtype() == tensorboard::DT_BFLOAT16;
    if (f32) {
        out.set_data_type(mindinsight::DT_FLOAT32);
        out.mutable_float_data()->Reserve(static_cast<int>(vals.size()));
        for (double v : vals) out.add_float_data(static_cast<float>(v));
    } else {
        out.set_data_type(mindinsight::DT_FLOAT64);
        out.mutable_double_data()->Reserve(static_cast<int>(vals.size()));
        for (double v : vals) out.add_double_data(v);
    }
    return true;
}

/// HistogramProto -> MindSpore buckets. Bucket i holds (limit[i-1], limit[i]]; the first
/// starts at the histogram's min and the last ends at its max (TensorFlow's outer limits
/// are -DBL_MAX and DBL_MAX), empty buckets are dropped.
mindinsight::Summary::Histogram fromHistogramProto(const tensorboard::HistogramProto& h) {
    mindinsight::Summary::Histogram out;
    const int n = std::min(h.bucket_limit_size(), h.bucket_size());
    double prev = h.min();
    for (int i = 0; i < n; ++i) {
        double right = h.bucket_limit(i);
        if (right >= DBL_MAX || right > h.max()) right = h.max();
        const double left = i == 0 ? h.min() : std::max(prev, h.min());
        prev = right;
        const double c = h.bucket(i);
        if (c <= 0) continue;
        auto* b = out.add_buckets();
        b->set_left(left);
        b->set_width(std::max(0.0, right - left));
        b->set_count(countOf(c));
    }
    out.set_min(h.min());
    out.set_max(h.max());
    out.set_sum(h.sum());
    out.set_count(countOf(h.num()));
    out.set_nan_count(0);
    out.set_pos_inf_count(0);
    out.set_neg_inf_count(0);
    return out;
}

/// TF2 histogram tensor: shape [k, 3] of (left, right, count).
bool fromHistogramTensor(const tensorboard::TensorProto& t, mindinsight::Summary::Histogram& out) {
    std::vector<int64_t> dims;
    uint64_t count = 0;
    std::vector<double> v;
    if (!shapeCount(t.tensor_shape(), dims, count) || dims.size() != 2 || dims[1] != 3 ||
        !tensorDoubles(t, count, v))
        return false;
    double lo = INFINITY, hi = -INFINITY, total = 0, sum = 0;
    for (int64_t i = 0; i < dims[0]; ++i) {
        const double l = v[static_cast<size_t>(i * 3)], r = v[static_cast<size_t>(i * 3 + 1)],
                     c = v[static_cast<size_t>(i * 3 + 2)];
        if (c <= 0) continue;
        auto* b = out.add_buckets();
        b->set_left(l);
        b->set_width(std::max(0.0, r - l));
        b->set_count(countOf(c));
        lo = std::min(lo, l);
        hi = std::max(hi, r);
        total += c;
        sum += c * (l + r) / 2;
    }
    out.set_min(out.buckets_size() ? lo : NAN);
    out.set_max(out.buckets_size() ? hi : NAN);
    out.set_sum(sum);
    out.set_count(countOf(total));
    return true;
}

void writeValue(json::Writer& w, const google::protobuf::Value& v) {
    switch (v.kind_case()) {
        case google::protobuf::Value::kNumberValue:
            json::finiteOrNull(w, v.number_value());
            break;
        case google::protobuf::Value::kStringValue:
            json::str(w, v.string_value());
            break;
        case google::protobuf::Value::kBoolValue:
            w.Bool(v.bool_value());
            break;
        default:
            w.Null();
            break;
    }
}

/// The HParams plugin's record as JSON: {"session_start": {"hparams": {...}, "group": ".."}},
/// {"session_end": {"status": n}} or {"experiment": {"hparams": [...], "metrics": [...]}}.
SummaryItem hparamsItem(const tensorboard::Summary::Value& v) {
    tensorboard::HParamsPluginData d;
    const std::string& content = v.metadata().plugin_data().content();
    if (!d.ParseFromString(content)) return skippedItem(v.tag(), "tensorboard_hparams_unreadable");
    rapidjson::StringBuffer buf;
    json::Writer w(buf);
    w.StartObject();
    switch (d.data_case()) {
        case tensorboard::HParamsPluginData::kSessionStartInfo: {
            const auto& s = d.session_start_info();
            w.Key("session_start");
            w.StartObject();
            w.Key("hparams");
            w.StartObject();
            // protobuf maps have no order: sort the names so the JSON is stable.
            std::vector<std::string> keys;
            for (const auto& [k, _] : s.hparams()) keys.push_back(k);
            std::sort(keys.begin(), keys.end());
            for (const auto& k : keys) {
                w.Key(k.c_str(), static_cast<rapidjson::SizeType>(k.size()));
                writeValue(w, s.hparams().at(k));
            }
            w.EndObject();
            w.Key("group");
            w.String(s.group_name().c_str());
            w.EndObject();
            break;
        }
        case tensorboard::HParamsPluginData::kSessionEndInfo:
            w.Key("session_end");
            w.StartObject();
            w.Key("status");
            w.Int(d.session_end_info().status());
            w.EndObject();
            break;
        case tensorboard::HParamsPluginData::kExperiment: {
            const auto& e = d.experiment();
            w.Key("experiment");
            w.StartObject();
            w.Key("hparams");
            w.StartArray();
            for (const auto& h : e.hparam_infos()) w.String(h.name().c_str());
            w.EndArray();
            w.Key("metrics");
            w.StartArray();
            for (const auto& m : e.metric_infos()) w.String(m.name().tag().c_str());
            w.EndArray();
            w.EndObject();
            break;
        }
        case tensorboard::HParamsPluginData::DATA_NOT_SET:
            return skippedItem(v.tag(), "tensorboard_hparams_empty");
    }
    w.EndObject();
    SummaryItem it;
    it.tag = v.tag();
    it.kind = ValueKind::HParams;
    it.data = buf.GetString();
    return it;
}

}  // namespace

SummaryItem skippedItem(std::string tag, std::string reason) {
    SummaryItem it;
    it.tag = std::move(tag);
    it.kind = ValueKind::Skipped;
    it.skipReason = std::move(reason);
    return it;
}

SummaryItem messageItem(std::string tag, ValueKind kind, const google::protobuf::MessageLite& m) {
    // A parse of the event leaves required fields unchecked (one bad value must not cost the
    // record), and writing such a message again would abort in protobuf: say it here.
    if (!m.IsInitialized()) return skippedItem(std::move(tag), "value_missing_required_fields");
    SummaryItem it;
    it.tag = std::move(tag);
    it.kind = kind;
    if (!m.SerializePartialToString(&it.data)) return skippedItem(it.tag, "value_not_serializable");
    return it;
}

SummaryItem convertTensorBoardValue(const tensorboard::Summary::Value& v, std::string_view plugin) {
    if (plugin == "hparams") return hparamsItem(v);
    switch (v.value_case()) {
        case tensorboard::Summary::Value::kSimpleValue: {
            SummaryItem it;
            it.tag = v.tag();
            it.kind = ValueKind::Scalar;
            it.scalar = v.simple_value();
            return it;
        }
        case tensorboard::Summary::Value::kHisto:
            return messageItem(v.tag(), ValueKind::Histogram, fromHistogramProto(v.histo()));
        case tensorboard::Summary::Value::kImage: {
            mindinsight::Summary::Image img;
            img.set_height(v.image().height());
            img.set_width(v.image().width());
            img.set_colorspace(v.image().colorspace());
            img.set_encoded_image(v.image().encoded_image_string());
            if (img.encoded_image().empty()) return skippedItem(v.tag(), "image_without_data");
            return messageItem(v.tag(), ValueKind::Image, img);
        }
        case tensorboard::Summary::Value::kTensor: {
            const auto& t = v.tensor();
            if (plugin == "histograms") {
                mindinsight::Summary::Histogram h;
                if (!fromHistogramTensor(t, h))
                    return skippedItem(v.tag(), "tensorboard_histogram_unreadable");
                return messageItem(v.tag(), ValueKind::Histogram, h);
            }
            if (plugin == "images") {
                // TF2: a string tensor [width, height, png, png, ...]; the first image.
                if (t.string_val_size() < 3)
                    return skippedItem(v.tag(), "tensorboard_image_unreadable");
                mindinsight::Summary::Image img;
                img.set_width(std::atoi(t.string_val(0).c_str()));
                img.set_height(std::atoi(t.string_val(1).c_str()));
                img.set_colorspace(0);
                img.set_encoded_image(t.string_val(2));
                return messageItem(v.tag(), ValueKind::Image, img);
            }
            if (plugin == "text") return skippedItem(v.tag(), "tensorboard_text");
            mindinsight::TensorProto ms;
            std::string why;
            if (!toMindSporeTensor(t, ms, why)) return skippedItem(v.tag(), why.c_str());
            uint64_t n = 1;
            for (int64_t d : ms.dims()) n *= static_cast<uint64_t>(d);
            if (n == 1 && (plugin.empty() || plugin == "scalars")) {
                SummaryItem it;
                it.tag = v.tag();
                it.kind = ValueKind::Scalar;
                it.scalar = ms.float_data_size() ? ms.float_data(0) : ms.double_data(0);
                return it;
            }
            return messageItem(v.tag(), ValueKind::Tensor, ms);
        }
        case tensorboard::Summary::Value::kAudio:
            return skippedItem(v.tag(), "tensorboard_audio");
        case tensorboard::Summary::Value::kObsoleteOldStyleHistogram:
            return skippedItem(v.tag(), "tensorboard_old_style_histogram");
        case tensorboard::Summary::Value::VALUE_NOT_SET:
            break;
    }
    return skippedItem(v.tag(), "value_of_unknown_kind");
}

}  // namespace ts::summary
