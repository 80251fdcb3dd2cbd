#include "core/debug/dataset_stats.h"

#include <vector>

#include "core/hdf5/h5_read.h"

namespace ts::debug {

Result<TensorStats> datasetStats(const h5::File& file, const std::string& path, JobControl* job,
                                 bool progress) {
    auto r = h5::BlockReader::open(file, path);
    if (!r) return Error{r.error()};
    StatsAccumulator acc;
    std::vector<float> fb;
    std::vector<double> db;
    if (job && progress) job->setTotal(r->info().count);
    for (;;) {
        auto n = r->next(fb, db);
        if (!n) return Error{n.error()};
        if (n.value() == 0) break;
        if (r->floatBlocks())
            acc.add(fb.data(), n.value());
        else
            acc.add(db.data(), n.value());
        if (job) {
            if (progress) job->addDone(n.value());
            if (job->cancelled()) return Error{"cancelled"};
        }
    }
    return acc.result();
}

}  // namespace ts::debug
