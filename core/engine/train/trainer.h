#pragma once
// Trainer: runs a model over a data pipeline with an optimizer, mixed precision, callbacks,
// checkpoints and per-epoch evaluation (MindSpore's Model.train / Model.eval). run() executes
// on the calling thread (the GUI calls it from a QThread); requestStop(), pause(), resume()
// and progress() are safe from any other thread (atomic flags checked between steps).
#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "core/common/result.h"
#include "core/engine/data/dataset.h"
#include "core/engine/device/device_backend.h"
#include "core/engine/model/cell.h"
#include "core/engine/model/layers.h"
#include "core/engine/tensor/dispatcher.h"
#include "core/engine/tensor/memory_pool.h"
#include "core/engine/train/callback.h"
#include "core/engine/train/optimizer.h"

namespace ts::dist {
class ProcessGroup;
}

namespace ts::engine {

class DeviceFeed;
struct StepGraph;
class GradBuckets;

struct TrainConfig {
    std::string model = "mlp";          // mlp | lenet5 | resnet8 | shufflenetv2
    std::string dataset = "synthetic";  // fashion-mnist | synthetic | csv
    std::string datasetDir;             // fashion-mnist files ("" = Debian package path)
    std::string csvPath;                // csv: training file (header row, numeric columns)
    std::string csvTestPath;            // csv: evaluation file ("" = evaluate on csvPath)
    std::string csvLabel = "label";     // csv: the class column (0-based integers)
    int64_t syntheticSamples = 2048;
    int epochs = 1;
    int64_t batchSize = 64;
    bool dropRemainder = true;
    std::string optimizer = "sgd";  // sgd | adam
    double lr = 0.05;
    double momentum = 0.9;
    bool nesterov = false;
    double weightDecay = 0.0;
    std::string lrSchedule = "constant";  // constant | step | cosine
    int64_t lrStepEpochs = 1;
    double lrGamma = 0.1;
    double clipNorm = 0.0;  // 0 = off
    uint64_t seed = 1;
    std::string amp = "O0";  // O0 | O1 | O2
    /// none | static:N | dynamic[:N] | auto (none at O0, dynamic at O1/O2). Dynamic starts at
    /// N (default 2^16), halves on an overflowing step (which is skipped) and doubles after
    /// 2000 good ones; a static scale skips overflowing steps and stays.
    std::string lossScale = "auto";
    int64_t numShards = 1, shardId = 0;
    // Data parallel (docs/DISTRIBUTED.md): this process's rank in a world of worldSize; set by
    // Trainer::setDataParallel (every rank reads its shard: numShards = worldSize).
    int worldSize = 1, rank = 0;
    int64_t limitSteps = 0;      // stop after this many global steps (0 = off)
    bool evalEachEpoch = false;  // evaluate on the test split after every epoch
    bool evalAtEnd = true;       // evaluate on the test split after the last epoch
    int64_t evalLimit = 0;       // evaluate on at most this many test samples (0 = all)
    bool memReuse = true;
    int threads = 0;             // intra-op threads (0 = the default, see intraOpThreads())
    double bucketMb = 25.0;      // data parallel: MB of gradients an allreduce carries at most
    std::string resumeFrom;      // checkpoint to resume from
    std::string device = "cpu";  // cpu | cuda: where tensors live and ops run (docs/GPU.md)
    /// On a device: record the training step into a CUDA Graph once and replay it (where the
    /// run allows it: docs/GPU.md, "CUDA Graphs"); off: every op is launched every step.
    bool cudaGraph = true;
    /// JSON object of every setting (stored with the run, keys in snake_case).
    std::string toJson() const;
    /// Settings from toJson()'s output; keys it lacks keep `base`'s values, unknown ones are
    /// ignored. Error only when the text is not a JSON object.
    static Result<TrainConfig> fromJson(const std::string& json);
    static Result<TrainConfig> fromJson(const std::string& json, const TrainConfig& base);
};

/// How a run on a device went (docs/GPU.md): what the step ran as, and the backend's counts.
/// The counts are over the steps after the first two (warm-up, and the graph's recording),
/// per step where they say so.
struct DeviceRunStats {
    bool deviceData = false;     // the training data was on the device (batches gathered there)
    std::string hostDataReason;  // why not
    bool graph = false;          // the step ran as a CUDA Graph
    std::string graphReason;     // why not (or why it stopped)
    int64_t graphSteps = 0;      // steps run by a graph launch
    bool lateStepEnds = false;   // step ends ran one step late (no wait for the device per step)
    int64_t steps = 0;           // steps counted below
    double enqueuedPerStep = 0;  // DeviceCounters::enqueued per step
    int64_t allocations = 0;     // device allocations in those steps (the pool: none expected)
    int64_t hostWaits = 0;       // host waits in those steps (epoch starts copy their order)
    int64_t readbacks = 0;       // loss readbacks collected in the whole run (one per step)
    /// Samples per second of those steps, wall clock from the start of step 3 to the end of
    /// the training loop (TrainResult::samplesPerS counts the warm-up steps too).
    double samplesPerSAfterWarmup = 0;
};

struct TrainResult {
    std::string status = "failed";  // completed | stopped | failed
    std::string reason;
    int epochs = 0;     // epochs completed
    int64_t steps = 0;  // global steps completed
    double samplesPerS = 0;
    double trainSeconds = 0;
    double finalLoss = 0;
    std::map<std::string, double> eval;
    int64_t overflowSteps = 0;
    int64_t peakBytes = 0;      // most bytes the run's memory pool had handed out at once
    int64_t reservedBytes = 0;  // bytes the pool held at the end (in use + cached for reuse)
    std::vector<std::string> warnings;  // checkpoint load warnings, ...
    DeviceRunStats device;              // device runs only
};

/// Thread-safe snapshot for progress bars.
struct TrainProgress {
    int epoch = 0, epochs = 0;
    int64_t step = 0, totalSteps = 0;
    double loss = 0, lr = 0, lossScale = 1, samplesPerS = 0, elapsedS = 0;
    int64_t overflowSteps = 0;
    int64_t bytesInUse = 0, peakBytes = 0;  // the run's memory pool
    bool paused = false, running = false;
    bool holding = false;  // the pause took effect: the training thread waits between steps
};

class Trainer {
public:
    explicit Trainer(TrainConfig config);
    ~Trainer();
    Trainer(const Trainer&) = delete;
    Trainer& operator=(const Trainer&) = delete;

    /// Builds model, data, optimizer (from the config) and loads `resumeFrom`. run() calls it
    /// when not yet done; call it first to inspect the model or to replace parts below.
    Status prepare();
    /// Replaces the network / data after prepare() (tests, custom models). The loss is
    /// softmax cross entropy on int32 labels.
    void setNetwork(std::shared_ptr<Cell> net);
    void setTrainData(std::unique_ptr<DataPipeline> data);
    void setEvalData(std::unique_ptr<DataPipeline> data);

    void addCallback(std::shared_ptr<Callback> cb);
    /// Trains this process's share of a data-parallel job over `group` (before prepare()):
    /// it reads shard rank of world, starts from rank 0's parameters, averages the gradients
    /// with an allreduce after backward (an "AllReduce" op the observers see), stops when
    /// any rank stops (with that rank's reason), and evaluates on rank 0 only.
    void setDataParallel(dist::ProcessGroup* group);
    /// Intra-op threads of this run (before run(); 0 = the default).
    void setThreads(int threads) { m_config.threads = threads; }
    dist::ProcessGroup* processGroup() const { return m_group; }
    /// The dispatcher all ops of this trainer run through: attach OpObservers here.
    Dispatcher& dispatcher() { return m_dispatcher; }
    /// The pool the run's tensors come from: the device's on a device (prepared), else the
    /// host's. Its figures are the run's memory figures.
    MemoryPool& memoryPool() { return m_devicePool ? *m_devicePool : m_pool; }
    /// Where the run's tensors live (set by prepare() from TrainConfig::device).
    Device device() const { return m_device; }

    /// Trains; never throws (an exception from an op ends the run with status "failed").
    TrainResult run();
    /// Evaluates `data` (default: the eval split) with defaultMetrics.
    Result<std::map<std::string, double>> evaluate(DataPipeline* data = nullptr);

    void requestStop(const std::string& reason = "stop requested");
    void pause();
    void resume();
    bool paused() const { return m_paused.load(); }
    TrainProgress progress() const;

    const TrainConfig& config() const { return m_config; }
    Cell* network() { return m_net.get(); }
    Optimizer* optimizer() { return m_opt.get(); }
    DataPipeline* trainData() { return m_train.get(); }
    int64_t stepsPerEpoch() const;
    double lossScale() const { return m_lossScale; }
    /// Writes a checkpoint of the current state (epoch/step completed so far).
    Status saveCheckpoint(const std::string& path) const;

private:
    /// A step whose end (callbacks, observers, progress) has not run yet: on a device its
    /// loss is read back asynchronously, and with late step ends it runs after the next step
    /// was put on the device (trainer_device.cpp).
    struct StepEnd {
        StepInfo info;
        int64_t stepInEpoch = 0;
        double lr = 0, lossScaleUsed = 1;
        int64_t samples = 0;
        bool lossPending = false;  // the loss is in readback slot `slot`
        int slot = 0;
    };

    bool trainStep(std::vector<Tensor>& batch, RunContext& ctx);
    /// Forward, loss and backward of one batch; the loss read (CPU) or its readback started
    /// (device) unless `readLoss` is false.
    Tensor forwardBackward(std::vector<Tensor>& batch, RunContext& ctx, bool readLoss = true);
    /// The optimizer phase after backward; true when the gradients overflowed.
    bool update(RunContext& ctx);
    /// Runs a step's end: its loss, log lines, callbacks, observers and progress.
    void endStep(StepEnd& s, RunContext& ctx, TrainResult& result);
    // The device path (trainer_device.cpp).
    /// Sets up a device run: the data on the device, late step ends, the step's graph.
    void startDeviceRun(TrainResult& result);
    void endDeviceRun(TrainResult& result);
    /// The batch from the device feed, or the host pipeline's copied to the device.
    bool nextBatch(std::vector<Tensor>& batch);
    /// Forward and backward as a graph: warm-up, recording, then launches; an undefined
    /// tensor when this step cannot run as one (it then runs op by op).
    Tensor graphForwardBackward(std::vector<Tensor>& batch, RunContext& ctx);
    /// Starts reading back a device loss into the next readback slot (or reads a host one).
    void takeLoss(const Tensor& loss, RunContext& ctx);
    void countDeviceStep();
    // Data parallel (trainer_parallel.cpp).
    void broadcastParameters();
    int64_t agreeOnBatches(int64_t local);
    /// Before backward: the step's buckets (made the first time) with this rank's stop vote;
    /// returns the GradReadyHook that starts their allreduces during backward.
    std::function<void(const Tensor&)> startGradientBuckets(RunContext& ctx);
    /// After backward: every bucket summed, the mean in the gradients, the votes taken.
    void allreduceGradients();
    std::pair<float, float> stopVote(RunContext& ctx);
    bool agreeToStop(RunContext& ctx);
    void notifyPhase(Phase p, bool begin);
    void publish(const RunContext& ctx);
    /// Parameters and optimizer state to the run's device (trainer_setup.cpp).
    Status moveToDevice();
    /// A batch from the pipeline (host tensors) to the run's device.
    void batchToDevice(std::vector<Tensor>& batch) const;

    TrainConfig m_config;
    MemoryPool m_pool;
    Device m_device = Device::CPU;
    std::unique_ptr<MemoryPool> m_devicePool;  // the device's memory (device runs)
    Dispatcher m_dispatcher;
    std::shared_ptr<Cell> m_net;
    std::unique_ptr<Optimizer> m_opt;
    std::unique_ptr<DataPipeline> m_train, m_eval;
    std::vector<std::shared_ptr<Callback>> m_callbacks;
    LrSchedule m_schedule;
    AmpLevel m_amp = AmpLevel::O0;
    bool m_dynamicScale = false;
    double m_lossScale = 1.0;
    int64_t m_goodSteps = 0;
    int64_t m_classes = 10;
    int m_startEpoch = 1;
    int64_t m_startStep = 0;
    int m_epochsDone = 0;
    int64_t m_stepsDone = 0;
    bool m_prepared = false;

    std::atomic<bool> m_stop{false};
    std::atomic<bool> m_paused{false};
    std::atomic<bool> m_holding{false};
    mutable std::mutex m_progressMutex;
    TrainProgress m_progress;
    std::string m_stopReason;
    std::vector<std::string> m_resumeWarnings;
    dist::ProcessGroup* m_group = nullptr;   // null: a single process
    std::unique_ptr<GradBuckets> m_buckets;  // the gradients' allreduce buckets
    std::string m_commAttrs;                 // the AllReduce op's attributes for the profile
    std::pair<float, float> m_votes{0, 0};   // the last allreduce's (stopping, failing) ranks
    bool m_voted = false;                    // this rank said why it stops
    // Device runs (trainer_device.cpp).
    std::unique_ptr<DeviceFeed> m_feed;  // the training data on the device
    std::unique_ptr<StepGraph> m_graph;  // the step as a CUDA Graph
    bool m_lateEnds = false;             // step ends run one step late
    std::string m_graphFailure;          // why the graph's recording failed
    int64_t m_graphBytes = 0;            // device memory the graph's pool held
    bool m_lossPending = false;          // the current step's loss is being read back
    int m_lossSlot = 0;                  // its readback slot
    int64_t m_deviceSteps = 0;           // steps run on the device in this run
    // The training loop's clock: seconds of training so far (pauses and callbacks left
    // out), samples of the steps that ended, and where the clock last started.
    double m_trainTime = 0;
    int64_t m_samples = 0;
    double m_clock = 0;
    bool m_agreedStop = false;       // data parallel: the ranks agreed to stop
    DeviceCounters m_runCounters{};  // the backend's counts as the run started
    DeviceCounters m_counted{};      // and as step 3 started
    double m_steadyStart = 0;        // when step 3 started
    int64_t m_samplesStarted = 0;    // samples of the steps started so far
    int64_t m_steadySamples = 0;     // of the steps before step 3
};

}  // namespace ts::engine
