#pragma once
// MindSpore lineage files (events.summary.<time>.<host>_lineage): TFRecord-framed
// LineageEvents (core/proto/mindinsight_lineage.proto) that SummaryRecord writes for a
// training (TrainLineage: optimizer, learning rate, loss function, epochs, batch size,
// parallel mode, devices, dataset, network, final loss, model file), an evaluation
// (EvaluationLineage: metric JSON, validation dataset), the dataset pipeline (DatasetGraph)
// and the user's custom_lineage_data (UserDefinedInfo). Read into the hyper-parameters and
// metrics MindInsight's comparison dashboard shows. No Qt.
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "core/common/result.h"

namespace ts::summary {

struct LineageParam {
    std::optional<double> value;  // numeric
    std::string text;             // otherwise
};

struct Lineage {
    std::map<std::string, LineageParam> hparams;  // "learning_rate", "optimizer", "user/<key>"
    std::map<std::string, LineageParam> metrics;  // "accuracy", "loss" (training's final loss)
    int64_t records = 0, badCrc = 0, undecodable = 0;
    bool damaged = false;  // a record length failed its CRC: reading stopped
    uint64_t damagedAt = 0;
    uint64_t cutAt = 0;                    // > 0: the file ends inside a record there
    std::map<std::string, int64_t> kinds;  // records by kind: "train", "eval", "dataset_graph", ...
    std::vector<std::string> problems;
};

/// Reads a lineage file; error when it cannot be opened or holds no LineageEvent at all.
Result<Lineage> readLineageFile(const std::string& path);

/// True when the file name is a MindSpore lineage file's ("..._lineage").
bool isLineageFileName(const std::string& fileName);

}  // namespace ts::summary
