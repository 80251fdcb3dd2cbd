// The trainer on a device (docs/GPU.md, "The step on a device"):
// - the training data on the device (DeviceFeed): each batch gathered there by the shuffled
//   order, no host batch and no copy per step;
// - the loss read back asynchronously into page-locked memory (an event per slot), and, when
//   every callback allows it (Callback::lateStepEnd) and nothing observes the ops, the step's
//   end run once the next step is on the device: no step waits for the device;
// - forward and backward recorded into a CUDA Graph once and launched as one call after
//   (StepGraph): step 1 runs op by op on the graph's own memory pool (warm-up: the pool
//   learns the step's blocks, cuBLAS its workspace), step 2 is recorded and launched, every
//   later step of that batch size is a launch. The optimizer's update runs after the launch
//   (its learning rate and Adam's bias correction change per step), one launch per chunk of
//   parameters. A run the graph cannot serve says why (DeviceRunStats::graphReason) and runs
//   op by op; a recording that fails falls back the same way.
#include <algorithm>

#include "core/engine/data/device_feed.h"
#include "core/engine/device/device.h"
#include "core/engine/train/step_graph.h"
#include "core/engine/train/trainer.h"
#include "core/engine/train/trainer_context.h"
#include "core/log/logger.h"

namespace ts::engine {

namespace {

/// The first cell of `c`'s tree that a graph cannot replay (a Dropout draws its mask on the
/// host; a hook runs host code on every call), or nullptr.
const Cell* replayBlocker(Cell& c, std::string* why) {
    for (const auto& [path, cell] : c.namedCells()) {
        if (cell->typeName() == "Dropout") {
            *why = "Dropout (" + path + ") draws its mask on the host every step";
            return cell;
        }
        if (cell->hooked()) {
            *why = "a hook on " + (path.empty() ? cell->typeName() : path) +
                   " runs host code every step";
            return cell;
        }
    }
    return nullptr;
}

}  // namespace

void Trainer::startDeviceRun(TrainResult& result) {
    DeviceRunStats& st = result.device;
    m_deviceSteps = 0;
    m_samplesStarted = 0;
    m_runCounters = backendOf(m_device).counters();
    m_graphFailure.clear();
    m_graph.reset();
    m_feed.reset();
    if (auto f = DeviceFeed::create(*m_train, m_device))
        m_feed = std::move(f.value());
    else
        st.hostDataReason = f.error();
    st.deviceData = m_feed != nullptr;

    m_lateEnds = !m_dispatcher.observed() && !m_group &&
                 std::all_of(m_callbacks.begin(), m_callbacks.end(),
                             [](const auto& cb) { return cb->lateStepEnd(); });
    st.lateStepEnds = m_lateEnds;

    std::string why;
    if (!m_config.cudaGraph)
        why = "off (cuda_graph false)";
    else if (m_dispatcher.observed())
        why =
            "the run is observed (a profile, dumps, overflow checks or the crash recorder "
            "see every op), so its ops are launched one by one";
    else if (!m_feed)
        why = "the training data is not on the device (" + st.hostDataReason + ")";
    else if (m_lossScale != 1.0 || m_dynamicScale)
        why = "loss scaling changes the step's gradient seed";
    else if (!m_config.memReuse)
        why = "the memory pool's reuse is off";
    else
        replayBlocker(*m_net, &why);
    st.graphReason = why;
    if (why.empty()) {
        m_graph = std::make_unique<StepGraph>();
        m_graph->batch = m_config.batchSize;
        m_graph->backend = &backendOf(m_device);
        m_graph->pool = makeDevicePool(m_device);
    }
    TS_LOG(ENGINE, INFO) << "device run on " << backendOf(m_device).deviceName() << ": data "
                         << (st.deviceData ? "on the device"
                                           : "from the host (" + st.hostDataReason + ")")
                         << ", step " << (m_graph ? "as a CUDA Graph" : "op by op (" + why + ")")
                         << (m_lateEnds ? ", step ends one step late" : "");
}

void Trainer::endDeviceRun(TrainResult& result) {
    DeviceRunStats& st = result.device;
    if (m_graph) {
        st.graph = m_graph->launches > 0;
        st.graphSteps = m_graph->launches;
    }
    if (!m_graphFailure.empty()) {
        st.graphReason = m_graphFailure;
        result.warnings.push_back("CUDA Graph: " + m_graphFailure + "; the run went on op by op");
    }
    if (m_deviceSteps > 2) {
        const DeviceCounters now = backendOf(m_device).counters();
        st.steps = m_deviceSteps - 2;
        st.enqueuedPerStep =
            static_cast<double>(now.enqueued - m_counted.enqueued) / static_cast<double>(st.steps);
        st.allocations = now.allocations - m_counted.allocations;
        st.hostWaits = now.hostWaits - m_counted.hostWaits;
        const double seconds = detail::nowS() - m_steadyStart;
        if (seconds > 0)
            st.samplesPerSAfterWarmup =
                static_cast<double>(m_samplesStarted - m_steadySamples) / seconds;
    }
    st.readbacks = backendOf(m_device).counters().readbacks - m_runCounters.readbacks;
    if (m_graph) {
        // The graph's blocks were the run's for its whole length: they count in its figures.
        m_graphBytes = m_graph->pool->reservedBytes();
    }
    if (m_opt) m_opt->zeroGrad();  // no gradient may outlive the graph's pool
    m_graph.reset();               // its blocks go back to the device
    m_feed.reset();
    m_lateEnds = false;
}

void Trainer::countDeviceStep() {
    // The warm-up steps (the first op-by-op step, the graph's recording) are not counted:
    // the counts start as step 3 does.
    if (++m_deviceSteps != 3) return;
    m_counted = backendOf(m_device).counters();
    m_steadyStart = detail::nowS();
    m_steadySamples = m_samplesStarted;
}

bool Trainer::nextBatch(std::vector<Tensor>& batch) {
    if (m_feed) return m_feed->next(*m_train, batch);
    if (!m_train->next(batch)) return false;
    batchToDevice(batch);
    return true;
}

void Trainer::takeLoss(const Tensor& loss, RunContext& ctx) {
    if (!onDevice(loss)) {
        ctx.originalArgs().net_outputs = loss.item();
        m_lossPending = false;
        return;
    }
    m_lossSlot = (m_lossSlot + 1) % DeviceBackend::kReadbackSlots;
    backendOf(loss.device()).readbackAsync(m_lossSlot, loss.raw(), sizeof(float));
    m_lossPending = true;
}

Tensor Trainer::graphForwardBackward(std::vector<Tensor>& batch, RunContext& ctx) {
    StepGraph& g = *m_graph;
    if (batch[0].dim(0) != g.batch) return Tensor();  // another batch size: op by op
    const std::vector<NamedParam>& params = m_opt->params();
    if (g.state == StepGraph::State::Launch) {
        g.backend->launchGraph(g.id);
        ++g.launches;
        for (size_t i = 0; i < params.size(); ++i)
            if (g.grads[i].defined()) {
                Tensor w = params[i].tensor;
                w.setGrad(g.grads[i]);
            }
        takeLoss(g.loss, ctx);
        return g.loss;
    }
    MemoryPool* outer = installDevicePool(g.pool.get());
    struct Restore {
        MemoryPool* pool;
        ~Restore() { installDevicePool(pool); }
    } restore{outer};
    if (g.state == StepGraph::State::WarmUp) {
        Tensor loss = forwardBackward(batch, ctx);
        g.state = StepGraph::State::Record;
        return loss;
    }
    // Record: nothing runs until the launch below.
    Tensor loss;
    try {
        g.backend->beginCapture();
        try {
            loss = forwardBackward(batch, ctx, false);
        } catch (...) {
            m_opt->zeroGrad();
            loss = Tensor();
            try {  // ends the recording (which may have failed already)
                g.backend->destroyGraph(g.backend->endCapture());
            } catch (const std::exception&) {
            }
            throw;
        }
        g.id = g.backend->endCapture();
    } catch (const std::exception& e) {
        TS_LOG(ENGINE, WARNING) << "the step could not be recorded as a CUDA Graph (" << e.what()
                                << "); the run goes on op by op";
        m_graphFailure = std::string("the recording failed: ") + e.what();
        m_graph.reset();
        installDevicePool(outer);
        restore.pool = outer;
        m_opt->zeroGrad();
        return forwardBackward(batch, ctx);
    }
    g.loss = loss.view(loss.shape());  // the value, without the autograd graph
    g.grads.clear();
    for (const NamedParam& p : params) g.grads.push_back(p.tensor.grad());
    g.state = StepGraph::State::Launch;
    g.backend->launchGraph(g.id);
    ++g.launches;
    takeLoss(g.loss, ctx);
    return loss;
}

}  // namespace ts::engine
