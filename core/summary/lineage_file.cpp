#include "core/summary/lineage_file.h"

#include <rapidjson/document.h>

#include "core/proto/mindinsight_lineage.pb.h"
#include "core/summary/protobuf_log.h"
#include "core/summary/record_stream.h"

namespace ts::summary {
namespace {

constexpr int kMaxUserInfoDepth = 16;
constexpr int kMaxDatasetDepth = 64;

void number(std::map<std::string, LineageParam>& m, const std::string& k, double v) {
    m[k] = LineageParam{v, {}};
}
void text(std::map<std::string, LineageParam>& m, const std::string& k, const std::string& v) {
    if (!v.empty()) m[k] = LineageParam{std::nullopt, v};
}

void userInfo(const mindinsight::UserDefinedInfo& u, const std::string& prefix, Lineage& out,
              int depth) {
    if (depth > kMaxUserInfoDepth) {
        out.problems.push_back("custom lineage data nested deeper than 16 levels (cut)");
        return;
    }
    for (const auto& [k, v] : u.map_int32()) number(out.hparams, prefix + k, v);
    for (const auto& [k, v] : u.map_double()) number(out.hparams, prefix + k, v);
    for (const auto& [k, v] : u.map_str()) text(out.hparams, prefix + k, v);
    for (const auto& [k, v] : u.map_dict()) userInfo(v, prefix + k + "/", out, depth + 1);
    for (const auto& v : u.user_info()) userInfo(v, prefix, out, depth + 1);
}

/// The pipeline's operations from the root down ("Batch <- Map <- MnistDataset").
void datasetOps(const mindinsight::DatasetGraph& g, std::vector<std::string>& ops, int depth) {
    if (depth > kMaxDatasetDepth || ops.size() > 256) return;
    const auto& p = g.parameter().mapstr();
    if (auto it = p.find("op_type"); it != p.end())
        ops.push_back(it->second);
    else if (auto m = p.find("op_module"); m != p.end())
        ops.push_back(m->second);
    for (const auto& c : g.children()) datasetOps(c, ops, depth + 1);
}

void train(const mindinsight::TrainLineage& t, Lineage& out) {
    const auto& h = t.hyper_parameters();
    if (h.has_optimizer()) text(out.hparams, "optimizer", h.optimizer());
    if (h.has_learning_rate()) number(out.hparams, "learning_rate", h.learning_rate());
    if (h.has_loss_function()) text(out.hparams, "loss_function", h.loss_function());
    if (h.has_epoch()) number(out.hparams, "epoch", h.epoch());
    if (h.has_parallel_mode()) text(out.hparams, "parallel_mode", h.parallel_mode());
    if (h.has_device_num()) number(out.hparams, "device_num", h.device_num());
    if (h.has_batch_size()) number(out.hparams, "batch_size", h.batch_size());
    if (t.train_dataset().has_train_dataset_path())
        text(out.hparams, "train_dataset_path", t.train_dataset().train_dataset_path());
    if (t.train_dataset().has_train_dataset_size())
        number(out.hparams, "train_dataset_size", t.train_dataset().train_dataset_size());
    if (t.algorithm().has_network()) text(out.hparams, "network", t.algorithm().network());
    if (t.algorithm().has_loss()) number(out.metrics, "loss", t.algorithm().loss());
    if (t.model().has_path()) text(out.hparams, "model_path", t.model().path());
    if (t.model().has_size())
        number(out.hparams, "model_size", static_cast<double>(t.model().size()));
}

void eval(const mindinsight::EvaluationLineage& e, Lineage& out) {
    if (e.valid_dataset().has_valid_dataset_path())
        text(out.hparams, "valid_dataset_path", e.valid_dataset().valid_dataset_path());
    if (e.valid_dataset().has_valid_dataset_size())
        number(out.hparams, "valid_dataset_size", e.valid_dataset().valid_dataset_size());
    if (e.metric().empty()) return;
    rapidjson::Document d;
    d.Parse(e.metric().c_str(), e.metric().size());
    if (d.HasParseError() || !d.IsObject()) {
        out.problems.push_back("evaluation metric is not a JSON object: " +
                               e.metric().substr(0, 80));
        return;
    }
    for (const auto& m : d.GetObject()) {
        const std::string k = m.name.GetString();
        if (m.value.IsNumber())
            number(out.metrics, k, m.value.GetDouble());
        else if (m.value.IsString())
            text(out.metrics, k, m.value.GetString());
    }
}

}  // namespace

bool isLineageFileName(const std::string& name) {
    constexpr std::string_view suffix = "_lineage";
    return name.size() >= suffix.size() &&
           name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

Result<Lineage> readLineageFile(const std::string& path) {
    routeProtobufLog();
    auto stream = RecordStream::open(path);
    if (!stream) return Error{stream.error()};
    Lineage out;
    std::string_view rec;
    uint64_t offset = 0;
    int64_t events = 0;
    for (bool more = true; more;) {
        const auto o = stream.value()->next(rec, offset);
        switch (o) {
            case RecordStream::Outcome::Pending:
                out.cutAt = stream.value()->pendingBytes() ? offset : 0;
                more = false;
                continue;
            case RecordStream::Outcome::ReadError:
                return Error{path + ": read error at byte " + std::to_string(offset)};
            case RecordStream::Outcome::Damaged:
            case RecordStream::Outcome::TooLarge:
                ++out.records;
                out.damaged = true;
                out.damagedAt = offset;
                out.problems.push_back("byte " + std::to_string(offset) +
                                       ": record length fails its CRC: the rest cannot be read");
                more = false;
                continue;
            case RecordStream::Outcome::BadCrc:
                ++out.records;
                ++out.badCrc;
                out.problems.push_back("byte " + std::to_string(offset) +
                                       ": record payload fails its CRC (skipped)");
                continue;
            case RecordStream::Outcome::Record:
                break;
        }
        ++out.records;
        mindinsight::LineageEvent ev;
        if (!ev.ParsePartialFromArray(rec.data(), static_cast<int>(rec.size())) ||
            !ev.has_wall_time()) {
            ++out.undecodable;
            out.problems.push_back("byte " + std::to_string(offset) + ": not a LineageEvent");
            continue;
        }
        ++events;
        switch (ev.what_case()) {
            case mindinsight::LineageEvent::kVersion:
                ++out.kinds["version"];
                break;
            case mindinsight::LineageEvent::kTrainLineage:
                ++out.kinds["train"];
                train(ev.train_lineage(), out);
                break;
            case mindinsight::LineageEvent::kEvaluationLineage:
                ++out.kinds["eval"];
                eval(ev.evaluation_lineage(), out);
                break;
            case mindinsight::LineageEvent::kDatasetGraph: {
                ++out.kinds["dataset_graph"];
                std::vector<std::string> ops;
                datasetOps(ev.dataset_graph(), ops, 0);
                std::string chain;
                for (const auto& op : ops) chain += (chain.empty() ? "" : " <- ") + op;
                text(out.hparams, "dataset_pipeline", chain);
                break;
            }
            case mindinsight::LineageEvent::kUserDefinedInfo:
                ++out.kinds["user_defined"];
                userInfo(ev.user_defined_info(), "user/", out, 0);
                break;
            case mindinsight::LineageEvent::WHAT_NOT_SET:
                ++out.kinds["empty"];
                break;
        }
    }
    if (events == 0)
        return Error{path + ": no LineageEvent (not a MindSpore lineage file?)" +
                     (out.problems.empty() ? "" : " " + out.problems.front())};
    return out;
}

}  // namespace ts::summary
