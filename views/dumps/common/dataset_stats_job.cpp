#include "views/dumps/common/dataset_stats_job.h"

#include <chrono>

#include "core/debug/dataset_stats.h"
#include "core/hdf5/h5_read.h"

HistogramData computeHistogram(const ts::h5::File& file, const QString& path,
                               const ts::debug::TensorStats& stats, int bins, bool logBins,
                               ts::JobControl& jc, QString* error) {
    HistogramData h;
    h.log = logBins;
    if (stats.finite == 0) return h;
    auto r = ts::h5::BlockReader::open(file, path.toStdString());
    if (!r) {
        if (error) *error = QString::fromStdString(r.error());
        return h;
    }
    ts::debug::Histogram lin(stats.min, stats.max, std::max(1, bins), false);
    ts::debug::MagnitudeHistogram mag;
    std::vector<float> fb;
    std::vector<double> db;
    for (;;) {
        auto n = r->next(fb, db);
        if (!n) {
            if (error) *error = QString::fromStdString(n.error());
            return h;
        }
        if (n.value() == 0 || jc.cancelled()) break;
        if (r->floatBlocks()) {
            if (logBins)
                mag.add(fb.data(), n.value());
            else
                lin.add(fb.data(), n.value());
        } else {
            if (logBins)
                mag.add(db.data(), n.value());
            else
                lin.add(db.data(), n.value());
        }
        jc.addDone(n.value());
    }
    if (logBins) {
        const auto [a, b] = mag.usedRange();
        for (int i = a; i < b; ++i) {
            h.lower.push_back(ts::debug::MagnitudeHistogram::lowerEdge(i));
            h.upper.push_back(ts::debug::MagnitudeHistogram::lowerEdge(i + 1));
            h.counts.push_back(static_cast<double>(mag.counts()[static_cast<size_t>(i)]));
        }
        h.zeros = mag.zeros;
    } else {
        for (int i = 0; i < lin.bins(); ++i) {
            h.lower.push_back(lin.edge(i));
            h.upper.push_back(lin.edge(i + 1));
            h.counts.push_back(static_cast<double>(lin.counts()[static_cast<size_t>(i)]));
        }
        h.outside = lin.underflow + lin.overflow;
    }
    return h;
}

DatasetStatsResult computeDatasetStats(const ts::h5::File& file, const QString& path, int bins,
                                       bool logBins, ts::JobControl& jc) {
    DatasetStatsResult out;
    out.path = path;
    auto info = file.datasetInfo(path.toStdString());
    if (!info) {
        out.error = QString::fromStdString(info.error());
        return out;
    }
    if (!info->numeric()) {
        out.error =
            QObject::tr("no statistics for %1 values").arg(QString::fromStdString(info->dtype));
        return out;
    }
    out.bytes = info->count * info->elementSize;
    // Progress runs to the end twice: the statistics pass, then the histogram pass.
    const auto t0 = std::chrono::steady_clock::now();
    auto s = ts::debug::datasetStats(file, path.toStdString(), &jc);
    out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (jc.cancelled()) return out;
    if (!s) {
        out.error = QString::fromStdString(s.error());
        return out;
    }
    out.stats = s.value();
    jc.setTotal(info->count);
    jc.setDone(0);
    QString err;
    out.histogram = computeHistogram(file, path, out.stats, bins, logBins, jc, &err);
    if (!err.isEmpty()) {
        out.error = err;
        return out;
    }
    out.ok = true;
    return out;
}
