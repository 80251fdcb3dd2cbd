// trainscope-cli train: runs the engine headless through the same ts::run::TrainingJob as the
// studio's Training panel, records the run and its scalars into a session, and prints
// {"status","reason","epochs","steps","samples_per_s","train_seconds","final":{"loss"},
//  "eval":{"accuracy","loss","precision","recall","f1"}, ...} with --json.
// --profile, --dump, --overflow-check and --rdr attach the profiler, the dumper, the overflow
// check and the crash recorder (see JobOptions in core/run/training_job.h).
#include <atomic>
#include <chrono>
#include <cmath>
#include <filesystem>
#include <iostream>
#include <thread>

#include "app/cli/command.h"
#include "app/cli/train_ranks.h"
#include "core/engine/device/device.h"
#include "core/run/training_job.h"

namespace ts::cli {
namespace {

/// A flag that is on unless given as --name=off (absent: on).
bool switchOn(const Args& args, const std::string& name) {
    const std::string v = args.valueOr(name, "on");
    if (v.empty() || v == "on" || v == "true" || v == "1") return true;
    if (v == "off" || v == "false" || v == "0") return false;
    throw CliError{"--" + name + ": expects on or off, got '" + v + "'"};
}

/// Profiler, dumps, overflow check and crash recorder options.
void instrumentation(const Args& args, run::JobOptions& o) {
    // Dumps and overflow checks (core/debug/debug_job.h).
    o.dumpConfig = args.valueOr("dump", "");
    o.overflowCheck = args.has("overflow-check") || args.has("stop-on-overflow");
    o.stopOnOverflow = args.has("stop-on-overflow");
    o.overflowDumpDir = args.valueOr("overflow-dump-dir", "");
    // Profiler: --profile (any of the three options below implies it).
    o.profile = args.has("profile") || args.has("profile-schedule") || args.has("record-shapes") ||
                args.has("profile-memory");
    if (auto sched = args.value("profile-schedule")) {
        std::string error;
        if (!profiler::parseScheduleText(*sched, &o.profiler.schedule, &error))
            throw CliError{"--profile-schedule: " + error};
    }
    o.profiler.recordShapes = switchOn(args, "record-shapes");
    o.profiler.profileMemory = switchOn(args, "profile-memory");
    o.rdrConfigPath = args.valueOr("rdr", "");  // RDR: the file wins over MS_RDR_*
}

engine::TrainConfig trainConfig(const Args& args) {
    // --settings: a whole configuration (keys as runs.config holds them; the studio passes
    // its form this way); the options given beside it win.
    engine::TrainConfig c;
    c.dataset = "fashion-mnist";
    if (auto json = args.value("settings")) {
        auto parsed = engine::TrainConfig::fromJson(*json, c);
        if (!parsed) throw CliError{"--settings: " + parsed.error()};
        c = parsed.value();
    }
    c.model = args.valueOr("model", c.model);
    c.dataset = args.valueOr("dataset", c.dataset);
    c.datasetDir = args.valueOr("data-dir", c.datasetDir);
    c.csvPath = args.valueOr("csv", c.csvPath);
    c.csvTestPath = args.valueOr("csv-test", c.csvTestPath);
    c.csvLabel = args.valueOr("label-column", c.csvLabel);
    c.epochs = static_cast<int>(intOption(args, "epochs", c.epochs, {.min = 1}));
    c.batchSize = intOption(args, "batch-size", c.batchSize, {.min = 1});
    c.optimizer = args.valueOr("optimizer", c.optimizer);
    c.lr = numberOption(args, "lr", c.lr);
    c.momentum = numberOption(args, "momentum",
                              args.has("settings")   ? c.momentum
                              : c.optimizer == "sgd" ? 0.9
                                                     : 0.0);
    c.nesterov = c.nesterov || args.has("nesterov");
    c.weightDecay = numberOption(args, "weight-decay", c.weightDecay);
    c.lrSchedule = args.valueOr("lr-schedule", c.lrSchedule);
    c.lrStepEpochs = intOption(args, "lr-step-epochs", c.lrStepEpochs, {.min = 1});
    c.lrGamma = numberOption(args, "lr-gamma", c.lrGamma);
    c.clipNorm = numberOption(args, "clip-norm", c.clipNorm);
    c.bucketMb = numberOption(args, "bucket-mb", c.bucketMb);
    if (!(c.bucketMb > 0)) throw CliError{"--bucket-mb: a size above 0 (megabytes)"};
    c.seed =
        static_cast<uint64_t>(intOption(args, "seed", static_cast<int64_t>(c.seed), {.min = 0}));
    c.amp = args.valueOr("amp", c.amp);
    c.lossScale = args.valueOr("loss-scale", c.lossScale);
    c.numShards = intOption(args, "num-shards", c.numShards, {.min = 1});
    c.shardId = intOption(args, "shard-id", c.shardId, {.min = 0});
    c.limitSteps = intOption(args, "limit-steps", c.limitSteps, {.min = 0});
    c.syntheticSamples = intOption(args, "synthetic-samples", c.syntheticSamples, {.min = 1});
    c.evalLimit = intOption(args, "eval-limit", c.evalLimit, {.min = 0});
    c.evalEachEpoch = c.evalEachEpoch || args.has("eval-each-epoch");
    const std::string reuse = args.valueOr("mem-reuse", c.memReuse ? "on" : "off");
    if (reuse != "on" && reuse != "off") throw CliError{"--mem-reuse: on or off"};
    c.memReuse = reuse == "on";
    c.threads = static_cast<int>(intOption(args, "threads", c.threads, {.min = 0}));
    c.resumeFrom = args.valueOr("resume", c.resumeFrom);
    c.device = args.valueOr("device", c.device);
    if (args.has("cuda-graph")) c.cudaGraph = switchOn(args, "cuda-graph");
    if (!engine::parseDevice(c.device))
        throw CliError{"--device: cpu or cuda, got '" + c.device + "'"};
    c.worldSize = 1;  // the environment says which rank this process is (docs/DISTRIBUTED.md)
    c.rank = 0;
    return c;
}

int runTrain(const Args& args) {
    const int nproc = static_cast<int>(intOption(args, "nproc", 1, {.min = 1}));
    if (nproc > 1024) throw CliError{"--nproc: at most 1024 processes"};
    if (nproc > 1 && args.valueOr("device", "cpu") != "cpu")
        throw CliError{"--device " + args.valueOr("device", "") +
                       " with --nproc: data-parallel training runs on the CPU only"};
    if (nproc > 1) return runTrainRanks(args, nproc);
    installTrainInterruptHandler();
    run::JobOptions o;
    o.train = trainConfig(args);
    // No device, no run: said before the session is touched ({"error"} with --json, exit 1).
    if (o.train.device != "cpu")
        if (auto b = engine::cudaBackend(); !b) throw CliError{b.error()};
    o.sessionPath = args.valueOr("output", "");
    if (o.sessionPath.empty())
        throw CliError{"-o SESSION is required (the session file the run is recorded in)"};
    o.runName = args.valueOr("name", "");
    if (!args.json) {
        o.printEvery = intOption(args, "print-every", 100, {.min = 0});
        o.print = [](const std::string& line) { std::cerr << line << "\n"; };
    }
    o.tensorboardDir = args.valueOr("tensorboard-dir", "");
    o.checkpointDir = args.valueOr("checkpoint-dir", "");
    o.saveSteps = intOption(args, "save-steps", 0, {.min = 0});
    o.saveEpochs = static_cast<int>(intOption(args, "save-epochs", 1, {.min = 0}));
    o.keepCheckpoints = static_cast<int>(intOption(args, "keep", 5, {.min = 1}));
    o.saveBestMetric = args.valueOr("save-best", "");
    if (args.has("early-stop-patience") || args.has("early-stop-loss")) {
        o.earlyStop = true;
        o.earlyStopMonitor = args.valueOr("early-stop-monitor", "loss");
        o.earlyStopPatience =
            static_cast<int>(intOption(args, "early-stop-patience", 3, {.min = 1}));
        o.earlyStopLossThreshold = numberOption(args, "early-stop-loss", 0.0);
    }
    o.stopAfterSeconds = numberOption(args, "stop-after", 0.0);
    instrumentation(args, o);
    const int64_t maxMemoryMb = intOption(args, "max-memory-mb", 0, {.min = 0});

    run::TrainingJob job(std::move(o));
    // A run that cannot start (unknown model, missing dataset, unwritable session) is a failed
    // run: --json prints the same object with status "failed" and the reason.
    engine::TrainResult r;
    if (auto s = job.prepare(); !s) {
        if (!args.json) throw CliError{s.error()};
        r.status = "failed";
        r.reason = s.error();
    } else {
        if (maxMemoryMb > 0) job.trainer().memoryPool().setLimit(maxMemoryMb << 20);
        // Ctrl-C (or the launcher's SIGINT) ends the run after its current step, as the
        // studio's Stop does; the ranks of a job then agree to stop together.
        std::atomic<bool> done{false};
        std::thread watch([&] {
            while (!done.load()) {
                if (trainInterrupted()) {
                    job.trainer().requestStop("interrupted (SIGINT or SIGTERM)");
                    break;
                }
                std::this_thread::sleep_for(std::chrono::milliseconds(50));
            }
        });
        r = job.run();
        done = true;
        watch.join();
    }
    for (const auto& w : r.warnings) std::cerr << "warning: " << w << "\n";

    if (args.json) {
        std::cout << job.summaryJson(r) << std::endl;
    } else {
        std::cout << "status: " << r.status << " (" << r.reason << ")\nepochs: " << r.epochs
                  << "  steps: " << r.steps << "\nsamples/s: " << r.samplesPerS
                  << "  train seconds: " << r.trainSeconds << "\nfinal loss: " << r.finalLoss
                  << "\npeak memory: " << r.peakBytes << " bytes\nrun: " << job.runId() << "\n";
        for (const char* k : {"accuracy", "loss", "precision", "recall", "f1"})
            if (r.eval.count(k)) std::cout << "eval " << k << ": " << r.eval.at(k) << "\n";
        for (const auto& c : job.checkpoints()) std::cout << "checkpoint: " << c << "\n";
        if (job.options().profile) {
            const auto& p = job.profileOutcome();
            if (p.sourceId > 0)
                std::cout << "profile: source " << p.sourceId << ", " << p.steps << " steps, "
                          << p.slices << " slices (trainscope-cli analyze SESSION --run "
                          << job.runId() << ")\n";
            else
                std::cout << "profile: nothing recorded\n";
        }
        if (!job.rdrExportDir().empty())
            std::cout << "crash record: " << job.rdrExportDir() << "\n";
    }
    return r.status == "failed" ? 1 : 0;
}

}  // namespace

TS_CLI_COMMAND(
    "train", "Train a model with the built-in engine and record the run in a session",
    "--model mlp|lenet5|resnet8|shufflenetv2 --dataset fashion-mnist|synthetic|csv --epochs N "
    "--batch-size B "
    "--optimizer sgd|adam --lr X [--momentum M] [--weight-decay W] --seed S -o SESSION "
    "[--amp O0|O1|O2] [--loss-scale static:N|dynamic] [--checkpoint-dir D] [--resume CKPT] "
    "[--profile [--profile-schedule W,U,A,R]] [--dump CONFIG] [--overflow-check] [--rdr CONFIG] "
    "[--json]",
    {{"model", true, "mlp | lenet5 | resnet8 | shufflenetv2"},
     {"nproc", true,
      "data parallel: start N local ranks (Gloo allreduce); -o names a folder, each rank records "
      "FOLDER/rank_<r>.tscope (docs/DISTRIBUTED.md)"},
     {"settings", true,
      "a whole configuration as JSON (keys as runs.config holds them); options beside it win"},
     {"dataset", true, "fashion-mnist | synthetic | csv (default fashion-mnist)"},
     {"data-dir", true, "folder with the IDX .gz files (default: the Debian package's)"},
     {"csv", true, "csv dataset: training file (header row, numeric columns)"},
     {"csv-test", true, "csv dataset: evaluation file (default: the training file)"},
     {"label-column", true, "csv dataset: the class column (default label)"},
     {"epochs", true, "epochs to train"},
     {"batch-size", true, "batch size"},
     {"optimizer", true, "sgd | adam"},
     {"lr", true, "learning rate"},
     {"momentum", true, "SGD momentum (default 0.9)"},
     {"nesterov", false, "Nesterov momentum"},
     {"weight-decay", true, "L2 weight decay"},
     {"lr-schedule", true, "constant | step | cosine"},
     {"lr-step-epochs", true, "step schedule: decay every N epochs (default 1)"},
     {"lr-gamma", true, "step schedule: decay factor (default 0.1)"},
     {"clip-norm", true, "clip gradients to this global norm"},
     {"bucket-mb", true,
      "data parallel: gradients per allreduce bucket, in MB (default 25, as PyTorch DDP); "
      "each bucket's allreduce starts while backward runs"},
     {"seed", true, "random seed (same seed, same loss curve)"},
     {"output", true, "(-o) session file to record the run in"},
     {"name", true, "run name (default '<model> on <dataset>')"},
     {"amp", true, "O0 | O1 | O2 (float16 rounding of matmul/conv inputs; O2 also outputs)"},
     {"loss-scale", true, "none | static:N | dynamic | auto (dynamic at O1/O2)"},
     {"num-shards", true, "data shards"},
     {"shard-id", true, "this run's shard"},
     {"checkpoint-dir", true, "save checkpoints here"},
     {"save-steps", true, "checkpoint every N steps"},
     {"save-epochs", true, "checkpoint every N epochs (default 1)"},
     {"keep", true, "checkpoints to keep (default 5)"},
     {"save-best", true,
      "keep <checkpoint-dir>/best.ckpt by this eval metric (accuracy, loss, ...)"},
     {"resume", true, "checkpoint to resume from"},
     {"early-stop-patience", true, "stop when the monitored value has not improved for N epochs"},
     {"early-stop-monitor", true, "loss (epoch-mean train loss) or an eval metric"},
     {"early-stop-loss", true, "stop once the step loss falls below this"},
     {"stop-after", true, "stop after this many seconds of training"},
     {"limit-steps", true, "stop after N global steps"},
     {"synthetic-samples", true, "samples of the synthetic dataset (default 2048)"},
     {"eval-limit", true, "evaluate on at most N test samples"},
     {"eval-each-epoch", false, "evaluate after every epoch (eval/* scalars)"},
     {"mem-reuse", true, "on | off (memory pool block reuse)"},
     {"threads", true, "intra-op threads (default: TS_NUM_THREADS or the core count)"},
     {"device", true,
      "cpu | cuda: where tensors live and ops run (default cpu); cuda needs the CUDA backend "
      "and an NVIDIA GPU (docs/GPU.md)"},
     {"cuda-graph", true,
      "on | off: on cuda, record the training step into a CUDA Graph once and launch it as one "
      "call (default on where the run allows it; off while profiling, dumping or with hooks; "
      "docs/GPU.md)"},
     {"print-every", true, "print the loss every N steps without --json (default 100)"},
     {"tensorboard-dir", true, "also write a TensorBoard event file here"},
     {"dump", true,
      "dump.json: per-op HDF5 tensor dumps (dump_path, dump_mode, dump_list, steps, op_filter, "
      "file_per, load_file_path)"},
     {"overflow-check", false,
      "count NaN/Inf after every op; findings go to the session and the log, offending ops are "
      "dumped"},
     {"stop-on-overflow", false, "stop the run at the first NaN/Inf (implies --overflow-check)"},
     {"overflow-dump-dir", true, "where offending ops are dumped (default: <session>.dumps)"},
     {"profile", false,
      "profile the run: ops, steps, phases, memory, counters -> the run's profile in the session"},
     {"profile-schedule", true,
      "wait,warmup,active,repeat[,skip_first] as torch.profiler.schedule (default 0,0,20,1: the "
      "first 20 steps; repeat 0 = until the end)"},
     {"record-shapes", false, "input shapes and dtypes per op (default on; =off)"},
     {"profile-memory", false, "bytes per op, allocations and memory counters (default on; =off)"},
     {"rdr", true,
      "Running Data Recorder config file {\"rdr\":{\"enable\",\"mode\",\"path\"}} (wins over "
      "MS_RDR_ENABLE/MS_RDR_MODE/MS_RDR_PATH)"},
     {"max-memory-mb", true, "cap the engine's memory pool (an allocation past it fails)"}},
    &runTrain, 0, 0);

}  // namespace ts::cli
