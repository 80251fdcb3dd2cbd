#pragma once
// The lineage table across the runs of a session, as MindInsight's model-lineage
// comparison and TensorBoard's HParams dashboard show it: one row per run with its
// hyper-parameters and final metrics (run_params: lineage files, TensorBoard HParams), and
// optionally the last value of each scalar tag as a metric ("last:<tag>"). No Qt.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/common/result.h"

namespace ts::store {
class TraceStore;
}

namespace ts::summary {

struct ParamValue {
    std::optional<double> number;
    std::string text;
    bool numeric() const { return number.has_value(); }
};

struct LineageRow {
    int64_t runId = 0;
    std::string run, status;
    std::map<std::string, ParamValue> hparams, metrics;
};

struct LineageTable {
    std::vector<LineageRow> rows;         // by run id
    std::vector<std::string> hparamKeys;  // union over rows, sorted
    std::vector<std::string> metricKeys;  // union over rows, sorted ("last:" keys after)
};

/// Every run with parameters or (when `lastScalars`) scalars.
Result<LineageTable> readLineageTable(store::TraceStore& store, bool lastScalars);

}  // namespace ts::summary
