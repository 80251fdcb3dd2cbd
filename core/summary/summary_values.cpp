#include "core/summary/summary_values.h"

#include <algorithm>
#include <cmath>
#include <cstring>

#include "core/engine/tensor/tensor.h"
#include "core/proto/mindinsight_summary.pb.h"
#include "core/summary/protobuf_log.h"

namespace ts::summary {

namespace {

template <class T>
double rawAt(const char* p) {
    T v;
    std::memcpy(&v, p, sizeof v);
    return static_cast<double>(v);
}

/// Bytes per element and reader of raw_data for an element type; 0 when not numeric.
size_t rawElementSize(int t, double (**read)(const char*)) {
    switch (t) {
        case mindinsight::DT_BOOL:
        case mindinsight::DT_UINT8:
            *read = &rawAt<uint8_t>;
            return 1;
        case mindinsight::DT_INT8:
            *read = &rawAt<int8_t>;
            return 1;
        case mindinsight::DT_INT16:
            *read = &rawAt<int16_t>;
            return 2;
        case mindinsight::DT_UINT16:
            *read = &rawAt<uint16_t>;
            return 2;
        case mindinsight::DT_FLOAT16:
            *read = [](const char* p) {
                uint16_t h;
                std::memcpy(&h, p, 2);
                return static_cast<double>(engine::halfToFloat(h));
            };
            return 2;
        case mindinsight::DT_INT32:
            *read = &rawAt<int32_t>;
            return 4;
        case mindinsight::DT_UINT32:
            *read = &rawAt<uint32_t>;
            return 4;
        case mindinsight::DT_FLOAT32:
            *read = &rawAt<float>;
            return 4;
        case mindinsight::DT_INT64:
            *read = &rawAt<int64_t>;
            return 8;
        case mindinsight::DT_UINT64:
            *read = &rawAt<uint64_t>;
            return 8;
        case mindinsight::DT_FLOAT64:
            *read = &rawAt<double>;
            return 8;
        default:
            return 0;
    }
}

Result<TensorValues> tensorValues(const mindinsight::TensorProto& t) {
    TensorValues out;
    uint64_t count = 1;
    for (int64_t d : t.dims()) {
        if (d < 0) return Error{"tensor has a negative dimension (" + std::to_string(d) + ")"};
        out.dims.push_back(d);
        if (d != 0 && count > kMaxTensorElements / static_cast<uint64_t>(d))
            return Error{"tensor too large to show (more than 2^26 elements)"};
        count *= static_cast<uint64_t>(d);
    }
    out.dtype = mindsporeDtypeName(t.data_type());
    auto take = [&](const auto& rep) -> Status {
        if (static_cast<uint64_t>(rep.size()) != count)
            return Error{"tensor of shape with " + std::to_string(count) + " elements holds " +
                         std::to_string(rep.size()) + " values"};
        out.values.reserve(count);
        for (const auto& v : rep) out.values.push_back(static_cast<double>(v));
        return {};
    };
    Status s;
    if (t.has_raw_data()) {
        double (*read)(const char*) = nullptr;
        const size_t size = rawElementSize(t.data_type(), &read);
        if (size == 0) return Error{"tensor of element type " + out.dtype + " cannot be shown"};
        if (t.raw_data().size() != count * size)
            return Error{"tensor raw data holds " + std::to_string(t.raw_data().size()) +
                         " bytes, " + std::to_string(count * size) + " expected"};
        out.values.resize(count);
        for (uint64_t i = 0; i < count; ++i) out.values[i] = read(t.raw_data().data() + i * size);
    } else if (t.float_data_size()) {
        s = take(t.float_data());
    } else if (t.double_data_size()) {
        s = take(t.double_data());
    } else if (t.int32_data_size()) {
        s = take(t.int32_data());
    } else if (t.int64_data_size()) {
        s = take(t.int64_data());
    } else if (t.uint64_data_size()) {
        s = take(t.uint64_data());
    } else if (count != 0) {
        return Error{"tensor holds no values"};
    }
    if (!s) return Error{s.error()};
    return out;
}

/// Values of one landscape coordinate tensor (empty when absent).
Result<std::vector<double>> coordinate(const mindinsight::LossLandscape::Point& p, int which,
                                       std::vector<int64_t>* dims = nullptr) {
    const mindinsight::TensorProto& t = which == 0 ? p.x() : which == 1 ? p.y() : p.z();
    if ((which == 0 && !p.has_x()) || (which == 1 && !p.has_y()) || (which == 2 && !p.has_z()))
        return std::vector<double>{};
    auto v = tensorValues(t);
    if (!v) return Error{v.error()};
    if (dims) *dims = v->dims;
    return std::move(v->values);
}

}  // namespace

std::string mindsporeDtypeName(int t) {
    switch (t) {
        case mindinsight::DT_BOOL:
            return "bool";
        case mindinsight::DT_INT8:
            return "int8";
        case mindinsight::DT_INT16:
            return "int16";
        case mindinsight::DT_INT32:
            return "int32";
        case mindinsight::DT_INT64:
            return "int64";
        case mindinsight::DT_UINT8:
            return "uint8";
        case mindinsight::DT_UINT16:
            return "uint16";
        case mindinsight::DT_UINT32:
            return "uint32";
        case mindinsight::DT_UINT64:
            return "uint64";
        case mindinsight::DT_FLOAT16:
            return "float16";
        case mindinsight::DT_FLOAT32:
            return "float32";
        case mindinsight::DT_FLOAT64:
            return "float64";
        default:
            return "dtype_" + std::to_string(t);
    }
}

Result<TensorValues> decodeTensor(std::string_view bytes) {
    routeProtobufLog();
    mindinsight::TensorProto t;
    if (!t.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
        return Error{"damaged tensor value (protobuf decoding failed)"};
    return tensorValues(t);
}

Result<HistogramValues> decodeHistogram(std::string_view bytes) {
    mindinsight::Summary::Histogram h;
    if (!h.ParsePartialFromArray(bytes.data(), static_cast<int>(bytes.size())))
        return Error{"damaged histogram value (protobuf decoding failed)"};
    HistogramValues out;
    for (const auto& b : h.buckets()) {
        if (!std::isfinite(b.left()) || !std::isfinite(b.width()) || b.width() < 0 || b.count() < 0)
            return Error{"histogram bucket with a non-finite edge or a negative width or count"};
        out.buckets.push_back({b.left(), b.width(), b.count()});
    }
    std::sort(out.buckets.begin(), out.buckets.end(),
              [](const HistogramBucket& a, const HistogramBucket& b) { return a.left < b.left; });
    out.nan = h.nan_count();
    out.posInf = h.pos_inf_count();
    out.negInf = h.neg_inf_count();
    out.min = h.min();
    out.max = h.max();
    out.sum = h.sum();
    out.count = h.count();
    if (!h.has_count()) {
        out.count = out.nan + out.posInf + out.negInf;
        for (const auto& b : out.buckets) out.count += b.count;
    }
    return out;
}

const std::vector<int>& distributionBasisPoints() {
    static const std::vector<int> bps = {0, 668, 1587, 3085, 5000, 6915, 8413, 9332, 10000};
    return bps;
}

std::vector<double> distributionPercentiles(const HistogramValues& h) {
    double total = 0;
    for (const auto& b : h.buckets) total += static_cast<double>(b.count);
    if (total <= 0) return {};
    std::vector<double> out;
    for (int bp : distributionBasisPoints()) {
        const double target = total * bp / 10000.0;
        double seen = 0;
        double v = h.buckets.back().left + h.buckets.back().width;
        for (const auto& b : h.buckets) {
            const double c = static_cast<double>(b.count);
            if (c > 0 && seen + c >= target) {
                const double frac = std::clamp((target - seen) / c, 0.0, 1.0);
                v = b.left + frac * b.width;
                break;
            }
            seen += c;
        }
        out.push_back(v);
    }
    return out;
}

Result<ImageValue> decodeImage(std::string_view bytes) {
    mindinsight::Summary::Image img;
    if (!img.ParsePartialFromArray(bytes.data(), static_cast<int>(bytes.size())))
        return Error{"damaged image value (protobuf decoding failed)"};
    if (img.encoded_image().empty()) return Error{"image value without image data"};
    ImageValue out;
    out.width = img.width();
    out.height = img.height();
    out.colorspace = img.colorspace();
    out.encoded = img.encoded_image();
    return out;
}

Result<LandscapeValues> decodeLandscape(std::string_view bytes) {
    mindinsight::LossLandscape l;
    if (!l.ParsePartialFromArray(bytes.data(), static_cast<int>(bytes.size())))
        return Error{"damaged loss landscape (protobuf decoding failed)"};
    LandscapeValues out;
    std::vector<int64_t> xd, yd, zd;
    auto x = coordinate(l.landscape(), 0, &xd), y = coordinate(l.landscape(), 1, &yd),
         z = coordinate(l.landscape(), 2, &zd);
    if (!x || !y || !z)
        return Error{"loss landscape surface: " + (!x ? x.error() : !y ? y.error() : z.error())};
    const size_t nz = z->size();
    if (nz == 0) return Error{"loss landscape without loss values (z)"};
    if (y->empty() && x->size() == nz) {
        out.is1D = true;
        out.xs = std::move(x.value());
        out.z = std::move(z.value());
    } else if (x->size() == nz && y->size() == nz && zd.size() == 2) {
        // Mesh form (numpy.meshgrid): x varies along the columns, y along the rows.
        const size_t rows = static_cast<size_t>(zd[0]), cols = static_cast<size_t>(zd[1]);
        for (size_t c = 0; c < cols; ++c) out.xs.push_back((*x)[c]);
        for (size_t r = 0; r < rows; ++r) out.ys.push_back((*y)[r * cols]);
        out.z = std::move(z.value());
    } else if (!x->empty() && !y->empty() && x->size() * y->size() == nz) {
        out.xs = std::move(x.value());
        out.ys = std::move(y.value());
        out.z = std::move(z.value());
    } else {
        return Error{"loss landscape surface of an unknown shape (" + std::to_string(x->size()) +
                     " x, " + std::to_string(y->size()) + " y, " + std::to_string(nz) +
                     " z values)"};
    }
    auto px = coordinate(l.loss_path().points(), 0), py = coordinate(l.loss_path().points(), 1),
         pz = coordinate(l.loss_path().points(), 2);
    if (px && py && pz && px->size() == pz->size() && (py->empty() || py->size() == pz->size())) {
        out.pathX = std::move(px.value());
        out.pathY = std::move(py.value());
        out.pathZ = std::move(pz.value());
    }
    out.pathIntervals.assign(l.loss_path().intervals().begin(), l.loss_path().intervals().end());
    auto cx = coordinate(l.convergence_point(), 0), cy = coordinate(l.convergence_point(), 1),
         cz = coordinate(l.convergence_point(), 2);
    if (cx && cy && cz && !cx->empty() && !cz->empty()) {
        out.hasConvergence = true;
        out.convergenceX = cx->front();
        out.convergenceY = cy->empty() ? 0 : cy->front();
        out.convergenceZ = cz->front();
    }
    out.decomposition = l.metadata().decomposition();
    out.unit = l.metadata().unit();
    out.stepPerEpoch = l.metadata().step_per_epoch();
    return out;
}

}  // namespace ts::summary
