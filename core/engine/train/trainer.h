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
    std::string resumeFrom;      // checkpoint to resume from
    std::string device = "cpu";  // cpu | cuda: where tensors live and ops run (docs/GPU.md)
    /// JSON object of every setting (stored with the run, keys in snake_case).
    std::string toJson() const;
    /// Settings from toJson()'s output; keys it lacks keep `base`'s values, unknown ones are
    /// ignored. Error only when the text is not a JSON object.
    static Result<TrainConfig> fromJson(const std::string& json);
    static Result<TrainConfig> fromJson(const std::string& json, const TrainConfig& base);
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
    bool trainStep(std::vector<Tensor>& batch, RunContext& ctx);
    // Data parallel (trainer_parallel.cpp).
    void broadcastParameters();
    int64_t agreeOnBatches(int64_t local);
    void allreduceGradients(RunContext& ctx);
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
    dist::ProcessGroup* m_group = nullptr;  // null: a single process
    Tensor m_gradBuffer;                    // the flat gradients of one allreduce
    std::string m_commAttrs;                // the AllReduce op's attributes for the profile
    std::pair<float, float> m_votes{0, 0};  // the last allreduce's (stopping, failing) ranks
    bool m_voted = false;                   // this rank said why it stops
};

}  // namespace ts::engine
