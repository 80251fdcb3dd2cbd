// Trainer, data parallel (docs/DISTRIBUTED.md): every rank trains the same model on its shard;
// rank 0's parameters are broadcast at the start; after backward the gradients of all ranks
// are summed by one allreduce over a flat buffer (one bucket, after backward: not overlapped
// with it) and divided by the world size, so each rank applies the same mean gradient; the
// same allreduce carries each rank's vote on stopping, so a stop or a failure on one rank
// (asked after step k) ends every rank after step k + 1, the same step, with that rank's
// reason.
#include <cstring>
#include <stdexcept>

#include "core/dist/process_group.h"
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

void Trainer::allreduceGradients(RunContext& ctx) {
    if (!m_group) return;
    int64_t total = 0;
    for (const auto& p : m_opt->params())
        if (p.tensor.defined() && p.tensor.dtype() == DType::Float32) total += p.tensor.numel();
    // Two more floats carry the stop vote (ranks stopping, ranks failing): one collective a
    // step, not two.
    if (!m_gradBuffer.defined() || m_gradBuffer.numel() != total + 2)
        m_gradBuffer = Tensor::empty({total + 2});
    const std::string attrs = "\"bytes\":" + std::to_string(total * 4) + "," + m_commAttrs;
    const auto vote = stopVote(ctx);
    m_dispatcher.run(
        "AllReduce", {m_gradBuffer},
        [&](const std::vector<Tensor>& in) {
            float* flat = in[0].f32();
            int64_t at = 0;
            for (const auto& p : m_opt->params()) {
                if (!p.tensor.defined() || p.tensor.dtype() != DType::Float32) continue;
                const int64_t n = p.tensor.numel();
                Tensor g = p.tensor.grad();
                if (g.defined())
                    std::memcpy(flat + at, g.f32(), static_cast<size_t>(n) * sizeof(float));
                else
                    std::memset(flat + at, 0, static_cast<size_t>(n) * sizeof(float));
                at += n;
            }
            flat[total] = vote.first;
            flat[total + 1] = vote.second;
            if (auto s = m_group->allreduceSum(flat, static_cast<size_t>(total + 2)); !s)
                throw std::runtime_error(s.error());
            m_votes = {flat[total], flat[total + 1]};
            const float inv = 1.0f / static_cast<float>(m_group->size());
            for (int64_t i = 0; i < total; ++i) flat[i] *= inv;
            at = 0;
            for (const auto& p : m_opt->params()) {
                if (!p.tensor.defined() || p.tensor.dtype() != DType::Float32) continue;
                const int64_t n = p.tensor.numel();
                Tensor g = p.tensor.grad();
                if (g.defined())
                    std::memcpy(g.f32(), flat + at, static_cast<size_t>(n) * sizeof(float));
                at += n;
            }
            return std::vector<Tensor>{in[0]};
        },
        /*backward=*/false, attrs);
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
