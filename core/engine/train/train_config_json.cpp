// TrainConfig <-> JSON: the config stored with every run (runs.config) and read back when the
// studio reopens a run's settings.
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include "core/common/json_read.h"
#include "core/engine/train/trainer.h"

namespace ts::engine {

namespace {

/// One field of TrainConfig under its JSON key; the table below drives both directions.
struct Field {
    const char* key;
    enum Kind { Str, Int, Real, Bool } kind;
    std::string TrainConfig::*str = nullptr;
    int64_t TrainConfig::*i64 = nullptr;
    int TrainConfig::*i32 = nullptr;
    double TrainConfig::*real = nullptr;
    bool TrainConfig::*flag = nullptr;
    uint64_t TrainConfig::*u64 = nullptr;
};

Field s(const char* k, std::string TrainConfig::*m) {
    Field f{k, Field::Str};
    f.str = m;
    return f;
}
Field i(const char* k, int64_t TrainConfig::*m) {
    Field f{k, Field::Int};
    f.i64 = m;
    return f;
}
Field i(const char* k, int TrainConfig::*m) {
    Field f{k, Field::Int};
    f.i32 = m;
    return f;
}
Field u(const char* k, uint64_t TrainConfig::*m) {
    Field f{k, Field::Int};
    f.u64 = m;
    return f;
}
Field r(const char* k, double TrainConfig::*m) {
    Field f{k, Field::Real};
    f.real = m;
    return f;
}
Field b(const char* k, bool TrainConfig::*m) {
    Field f{k, Field::Bool};
    f.flag = m;
    return f;
}

const std::vector<Field>& fields() {
    using C = TrainConfig;
    static const std::vector<Field> table = {
        s("model", &C::model),
        s("dataset", &C::dataset),
        s("dataset_dir", &C::datasetDir),
        s("csv", &C::csvPath),
        s("csv_test", &C::csvTestPath),
        s("csv_label", &C::csvLabel),
        i("synthetic_samples", &C::syntheticSamples),
        i("epochs", &C::epochs),
        i("batch_size", &C::batchSize),
        b("drop_remainder", &C::dropRemainder),
        s("optimizer", &C::optimizer),
        r("lr", &C::lr),
        r("momentum", &C::momentum),
        b("nesterov", &C::nesterov),
        r("weight_decay", &C::weightDecay),
        s("lr_schedule", &C::lrSchedule),
        i("lr_step_epochs", &C::lrStepEpochs),
        r("lr_gamma", &C::lrGamma),
        r("clip_norm", &C::clipNorm),
        u("seed", &C::seed),
        s("amp", &C::amp),
        s("loss_scale", &C::lossScale),
        i("num_shards", &C::numShards),
        i("shard_id", &C::shardId),
        i("world_size", &C::worldSize),
        i("rank", &C::rank),
        i("limit_steps", &C::limitSteps),
        b("eval_each_epoch", &C::evalEachEpoch),
        b("eval_at_end", &C::evalAtEnd),
        i("eval_limit", &C::evalLimit),
        b("mem_reuse", &C::memReuse),
        i("threads", &C::threads),
        r("bucket_mb", &C::bucketMb),
        s("resume", &C::resumeFrom),
        s("device", &C::device),
        b("cuda_graph", &C::cudaGraph),
    };
    return table;
}

}  // namespace

std::string TrainConfig::toJson() const {
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    w.StartObject();
    for (const Field& f : fields()) {
        w.Key(f.key);
        switch (f.kind) {
            case Field::Str:
                w.String((this->*f.str).c_str());
                break;
            case Field::Int:
                if (f.i64)
                    w.Int64(this->*f.i64);
                else if (f.i32)
                    w.Int(this->*f.i32);
                else
                    w.Uint64(this->*f.u64);
                break;
            case Field::Real:
                w.Double(this->*f.real);
                break;
            case Field::Bool:
                w.Bool(this->*f.flag);
                break;
        }
    }
    w.EndObject();
    return buf.GetString();
}

Result<TrainConfig> TrainConfig::fromJson(const std::string& json) {
    return fromJson(json, TrainConfig{});
}

Result<TrainConfig> TrainConfig::fromJson(const std::string& json, const TrainConfig& base) {
    rapidjson::Document d;
    if (!ts::json::parse(d, json) || !d.IsObject())
        return Error{"the run's settings are not a JSON object"};
    TrainConfig c = base;
    for (const Field& f : fields()) {
        auto it = d.FindMember(f.key);
        if (it == d.MemberEnd()) continue;
        const auto& v = it->value;
        switch (f.kind) {
            case Field::Str:
                if (v.IsString()) c.*f.str = v.GetString();
                break;
            case Field::Int:
                if (!v.IsNumber()) break;
                if (f.i64)
                    c.*f.i64 = static_cast<int64_t>(v.GetDouble());
                else if (f.i32)
                    c.*f.i32 = static_cast<int>(v.GetDouble());
                else
                    c.*f.u64 = v.IsUint64() ? v.GetUint64() : static_cast<uint64_t>(v.GetDouble());
                break;
            case Field::Real:
                if (v.IsNumber()) c.*f.real = v.GetDouble();
                break;
            case Field::Bool:
                // Older sessions wrote flags as 0/1.
                if (v.IsBool())
                    c.*f.flag = v.GetBool();
                else if (v.IsNumber())
                    c.*f.flag = v.GetDouble() != 0;
                break;
        }
    }
    return c;
}

}  // namespace ts::engine
