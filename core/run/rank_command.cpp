#include "core/run/rank_command.h"

#include <filesystem>

#include "core/common/file_io.h"
#include "core/profiler/run_profiler.h"

namespace ts::run {
namespace {

Result<std::string> writeFile(const std::filesystem::path& p, const std::string& text) {
    if (auto s = writeFileAtomically(p.string(), text); !s) return Error{s.error()};
    return p.string();
}

std::string number(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", v);
    return buf;
}

}  // namespace

Result<LaunchSpec> rankedTrainingCommand(const JobOptions& o, int processes,
                                         const std::string& folder, const std::string& cli) {
    namespace fs = std::filesystem;
    std::error_code ec;
    fs::create_directories(folder, ec);
    if (ec) return Error{"cannot create " + folder + ": " + ec.message()};
    LaunchSpec s;
    s.program = cli;
    s.nproc = processes;
    s.ranks = RankScheme::Torch;
    s.pythonHooks = false;
    s.name = (o.runName.empty() ? o.train.model + " on " + o.train.dataset : o.runName) + ", " +
             std::to_string(processes) + " ranks";
    auto& a = s.args;
    engine::TrainConfig c = o.train;
    c.numShards = 1;  // the ranks shard by themselves
    c.shardId = 0;
    a = {"train",
         "--settings",
         c.toJson(),
         "-o",
         folder,
         "--name",
         o.runName.empty() ? o.train.model + " on " + o.train.dataset : o.runName,
         "--print-every",
         std::to_string(o.printEvery > 0 ? o.printEvery : 1)};
    auto opt = [&](const std::string& name, const std::string& value) {
        if (!value.empty()) {
            a.push_back("--" + name);
            a.push_back(value);
        }
    };
    opt("checkpoint-dir", o.checkpointDir);
    if (!o.checkpointDir.empty()) {
        opt("save-steps", std::to_string(o.saveSteps));
        opt("save-epochs", std::to_string(o.saveEpochs));
        opt("keep", std::to_string(o.keepCheckpoints));
    }
    opt("save-best", o.saveBestMetric);
    opt("tensorboard-dir", o.tensorboardDir);
    if (o.earlyStop) {
        opt("early-stop-monitor", o.earlyStopMonitor);
        opt("early-stop-patience", std::to_string(o.earlyStopPatience));
        if (o.earlyStopLossThreshold > 0) opt("early-stop-loss", number(o.earlyStopLossThreshold));
    }
    if (o.stopAfterSeconds > 0) opt("stop-after", number(o.stopAfterSeconds));
    std::string dump = o.dumpConfig;
    if (!o.dumpConfigJson.empty()) {
        auto f = writeFile(fs::path(folder) / "dump.json", o.dumpConfigJson);
        if (!f) return Error{f.error()};
        dump = f.value();
    }
    opt("dump", dump);
    if (o.stopOnOverflow)
        a.push_back("--stop-on-overflow");
    else if (o.overflowCheck)
        a.push_back("--overflow-check");
    opt("overflow-dump-dir", o.overflowDumpDir);
    if (o.profile) {
        const auto& p = o.profiler.schedule;
        opt("profile-schedule", std::to_string(p.wait) + "," + std::to_string(p.warmup) + "," +
                                    std::to_string(p.active) + "," + std::to_string(p.repeat) +
                                    "," + std::to_string(p.skipFirst));
        if (!o.profiler.recordShapes) a.push_back("--record-shapes=off");
        if (!o.profiler.profileMemory) a.push_back("--profile-memory=off");
    }
    std::string rdr = o.rdrConfigPath;
    if (!o.rdrConfigJson.empty()) {
        auto f = writeFile(fs::path(folder) / "rdr.json", o.rdrConfigJson);
        if (!f) return Error{f.error()};
        rdr = f.value();
    }
    opt("rdr", rdr);
    return s;
}

}  // namespace ts::run
