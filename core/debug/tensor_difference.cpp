#include "core/debug/tensor_difference.h"

#include <cmath>

#include "core/hdf5/h5_read.h"

namespace ts::debug {

namespace {

/// The next block of `r` as doubles (BlockReader gives floats for float16/32 sources).
Result<uint64_t> nextDoubles(h5::BlockReader& r, std::vector<float>& f, std::vector<double>& d) {
    auto n = r.next(f, d);
    if (!n) return n;
    if (r.floatBlocks()) d.assign(f.begin(), f.begin() + static_cast<std::ptrdiff_t>(n.value()));
    return n;
}

}  // namespace

Result<TensorDifference> tensorDifference(const std::string& fileA, const std::string& pathA,
                                          const std::string& fileB, const std::string& pathB,
                                          size_t points, JobControl* job) {
    auto fa = h5::File::open(fileA);
    if (!fa) return Error{"A: " + fa.error()};
    auto fb = h5::File::open(fileB);
    if (!fb) return Error{"B: " + fb.error()};
    auto ra = h5::BlockReader::open(fa.value(), pathA);
    if (!ra) return Error{"A " + pathA + ": " + ra.error()};
    auto rb = h5::BlockReader::open(fb.value(), pathB);
    if (!rb) return Error{"B " + pathB + ": " + rb.error()};
    const uint64_t total = ra.value().info().count;
    if (rb.value().info().count != total)
        return Error{"A has " + std::to_string(total) + " elements, B " +
                     std::to_string(rb.value().info().count)};
    TensorDifference out;
    points = std::max<size_t>(points, 1);
    out.bucketSize = std::max<uint64_t>(1, (total + points - 1) / points);
    out.series.assign(static_cast<size_t>((total + out.bucketSize - 1) / out.bucketSize), 0.0);
    if (job) job->setTotal(total);
    std::vector<float> fa1, fb1;
    std::vector<double> da, db;
    size_t ia = 0, ib = 0;  // next unread position in da / db
    uint64_t index = 0, finite = 0;
    double sum = 0, sumSq = 0;
    while (index < total) {
        if (ia == da.size()) {
            auto n = nextDoubles(ra.value(), fa1, da);
            if (!n) return Error{"A: " + n.error()};
            da.resize(n.value());
            ia = 0;
            if (n.value() == 0) break;
        }
        if (ib == db.size()) {
            auto n = nextDoubles(rb.value(), fb1, db);
            if (!n) return Error{"B: " + n.error()};
            db.resize(n.value());
            ib = 0;
            if (n.value() == 0) break;
        }
        const size_t n = std::min(da.size() - ia, db.size() - ib);
        for (size_t k = 0; k < n; ++k, ++index) {
            const double a = da[ia + k], b = db[ib + k];
            if (!std::isfinite(a) || !std::isfinite(b)) {
                ++out.nonFinite;
                continue;
            }
            const double d = a - b;
            ++finite;
            sum += d;
            sumSq += d * d;
            if (std::fabs(d) > out.maxAbs) {
                out.maxAbs = std::fabs(d);
                out.maxAt = index;
                out.aAtMax = a;
                out.bAtMax = b;
            }
            double& bucket = out.series[static_cast<size_t>(index / out.bucketSize)];
            if (std::fabs(d) > std::fabs(bucket)) bucket = d;
        }
        ia += n;
        ib += n;
        if (job) {
            job->addDone(n);
            if (job->cancelled()) return Error{"cancelled"};
        }
    }
    out.count = index;
    if (finite) {
        out.mean = sum / static_cast<double>(finite);
        out.rms = std::sqrt(sumSq / static_cast<double>(finite));
    }
    return out;
}

}  // namespace ts::debug
