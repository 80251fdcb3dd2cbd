// Trainer, data parallel (docs/DISTRIBUTED.md): every rank trains the same model on its shard;
// rank 0's parameters are broadcast at the start; the gradients of all ranks are summed in
// buckets (grad_buckets.h: 25 MB by default, as PyTorch DDP), each bucket's allreduce started on
// a comm thread as soon as backward has finished its gradients, and divided by the world size,
// so each rank applies the same mean gradient; the last bucket carries each rank's vote on
// stopping, so a stop or a failure on one rank (asked after step k) ends every rank after step
// k + 1, the same step, with that rank's reason.
#include <stdexcept>

#include "core/dist/process_group.h"
#include "core/engine/train/grad_buckets.h"
#include "core/engine/train/trainer.h"
#include "core/log/logger.h"

namespace ts::engine {

void Trainer::setDataParallel(dist::ProcessGroup* group) {
    m_group = group && group->size() > 1 ? group : nullptr;
    if (!m_group) return;
    m_config.worldSize = m_group->size();
    m_config.rank = m_group->rank();
    m_config.numShards = m_group->size();
    m_config.shardId = m_group->rank();
    if (m_group->rank() != 0) {  // evaluation once, on rank 0
        m_config.evalEachEpoch = false;
        m_config.evalAtEnd = false;
    }
    // The ring's neighbours are the peers each rank exchanges gradient segments with.
    const int r = m_group->rank(), n = m_group->size();
    const int prev = (r + n - 1) % n, next = (r + 1) % n;
    m_commAttrs = "\"algorithm\":\"" + m_group->algorithm() +
                  "\",\"world_size\":" + std::to_string(n) + ",\"rank\":" + std::to_string(r) +
                  ",\"peers\":[" + std::to_string(prev) +
                  (next != prev ? "," + std::to_string(next) : "") + "]";
}

void Trainer::broadcastParameters() {
    if (!m_group) return;
    for (auto& p : m_opt->params()) {
        if (!p.tensor.defined() || p.tensor.dtype() != DType::Float32) continue;
        if (auto s = m_group->broadcast(p.tensor.f32(), static_cast<size_t>(p.tensor.numel()), 0);
            !s)
            throw std::runtime_error("the parameters could not be taken from rank 0: " + s.error());
    }
    TS_LOG(ENGINE, INFO) << "rank " << m_group->rank() << " of " << m_group->size()
                         << ": parameters taken from rank 0";
}

int64_t Trainer::agreeOnBatches(int64_t local) {
    if (!m_group) return local;
    // Shards differ by at most one sample: the ranks run the fewest steps any of them has,
    // so every allreduce has all ranks in it.
    const double mine = static_cast<double>(local);
    std::vector<double> all(static_cast<size_t>(m_group->size()));
    if (auto s = m_group->allgather(&mine, 1, all.data()); !s)
        throw std::runtime_error("the ranks could not agree on the steps per epoch: " + s.error());
    double least = mine;
    for (double v : all) least = std::min(least, v);
    if (least < mine)
        TS_LOG(ENGINE, INFO) << "rank " << m_group->rank() << ": " << local
                             << " batches in the shard, " << static_cast<int64_t>(least)
                             << " per epoch as the other ranks";
    return static_cast<int64_t>(least);
}

std::function<void(const Tensor&)> Trainer::startGradientBuckets(RunContext& ctx) {
    if (!m_buckets) {
        std::vector<Tensor> params;
        for (const auto& p : m_opt->params())
            if (p.tensor.defined() && p.tensor.dtype() == DType::Float32)
                params.push_back(p.tensor);
        const auto bytes = static_cast<int64_t>(m_config.bucketMb * 1024 * 1024);
        m_buckets = std::make_unique<GradBuckets>(*m_group, std::move(params), bytes);
        TS_LOG(ENGINE, INFO) << "rank " << m_group->rank() << ": gradients in "
                             << m_buckets->buckets() << " allreduce bucket(s) of at most "
                             << m_config.bucketMb << " MB";
    }
    // The vote now, on this thread: it travels in the last bucket, which may start in backward.
    m_buckets->beginStep(stopVote(ctx));
    return [this](const Tensor& leaf) { m_buckets->ready(leaf); };
}

void Trainer::allreduceGradients() {
    const std::string buckets = ",\"buckets\":" + std::to_string(m_buckets->buckets());
    int64_t ownNs = 0;  // the collectives' own time, on the comm thread
    m_votes = m_buckets->finish([&](size_t bucket, int64_t bytes, const Tensor& flat,
                                    const std::function<void(int64_t*)>& wait) {
        // One op a bucket: what this thread waits for its sum (the rest of the collective ran
        // during backward) and the copy back; the attributes say which bucket and its bytes.
        const std::string attrs = "\"bytes\":" + std::to_string(bytes) +
                                  ",\"bucket\":" + std::to_string(bucket) + buckets + "," +
                                  m_commAttrs;
        m_dispatcher.run(
            "AllReduce", {flat},
            [&](const std::vector<Tensor>& in) {
                int64_t ns = 0;
                wait(&ns);
                ownNs += ns;
                m_dispatcher.setEndAttrs("\"comm_ns\":" + std::to_string(ns));
                return std::vector<Tensor>{in[0]};
            },
            /*backward=*/false, attrs);
    });
    TS_LOG(ENGINE, DEBUG) << "rank " << m_group->rank() << ": " << m_buckets->buckets()
                          << " allreduce bucket(s), " << static_cast<double>(ownNs) / 1e6
                          << " ms on the comm thread";
}

std::pair<float, float> Trainer::stopVote(RunContext& ctx) {
    const bool failing = ctx.stopRequested() && ctx.stopIsFailure();
    const bool stopping = m_stop || ctx.stopRequested();
    if (stopping && !m_voted) {  // say why, where the other ranks look
        std::string why = ctx.stopRequested() ? ctx.stopReason() : std::string();
        if (why.empty()) {
            std::lock_guard lock(m_progressMutex);
            why = m_stopReason;
        }
        m_group->reportFailure((failing ? "failed: " : "stopped: ") + why);
        m_voted = true;
    }
    return {stopping ? 1.0f : 0.0f, failing ? 1.0f : 0.0f};
}

bool Trainer::agreeToStop(RunContext& ctx) {
    if (!m_group) return false;
    const auto [stops, failures] = m_votes;
    m_votes = {0, 0};
    if (stops == 0) return false;
    if (!m_stop && !ctx.stopRequested()) {  // another rank stops: this one with its reason
        std::string why = m_group->peerFailures();
        if (why.empty()) why = "another rank stopped";
        ctx.requestStop(why, failures > 0);
    }
    return true;
}

}  // namespace ts::engine
