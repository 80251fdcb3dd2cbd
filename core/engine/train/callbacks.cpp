#include "core/engine/train/callbacks.h"

#include <cmath>
#include <filesystem>

#include "core/engine/train/trainer.h"
#include "core/log/logger.h"

namespace ts::engine {

void LossMonitor::stepEnd(RunContext& ctx) {
    const RunArgs& a = ctx.originalArgs();
    const double loss = a.net_outputs;
    if (!std::isfinite(loss)) {
        std::string why = "loss is ";
        why += std::isnan(loss) ? "NaN" : "Inf";
        why += " at epoch " + std::to_string(a.cur_epoch_num);
        why += " step " + std::to_string(a.cur_step_num);
        why += "; training stopped (lower the learning rate or enable loss scaling)";
        ctx.requestStop(why, true);
        TS_LOG(ENGINE, ERROR) << ctx.stopReason();
        if (m_print) m_print(ctx.stopReason());
        return;
    }
    if (m_print && m_every > 0 && a.cur_step_num % m_every == 0) {
        char buf[160];
        std::snprintf(buf, sizeof buf, "epoch: %d step: %lld, loss is %.6f", a.cur_epoch_num,
                      static_cast<long long>(a.step_in_epoch), loss);
        m_print(buf);
    }
}

void ModelCheckpoint::save(RunContext& ctx) {
    const RunArgs& a = ctx.originalArgs();
    if (!a.trainer || a.cur_step_num == m_lastSavedStep) return;
    std::error_code ec;
    std::filesystem::create_directories(m_dir, ec);
    const std::string path = m_dir + "/" + m_prefix + "-" + std::to_string(a.cur_epoch_num) + "_" +
                             std::to_string(a.step_in_epoch) + ".ckpt";
    if (auto s = a.trainer->saveCheckpoint(path); !s) {
        m_error = s.error();
        TS_LOG(CHECKPOINT, WARNING) << "ModelCheckpoint: " << m_error;
        return;
    }
    m_lastSavedStep = a.cur_step_num;
    m_saved.push_back(path);
    while (m_keep > 0 && static_cast<int>(m_saved.size()) > m_keep) {
        std::filesystem::remove(m_saved.front(), ec);
        m_saved.pop_front();
    }
}

void ModelCheckpoint::stepEnd(RunContext& ctx) {
    if (m_steps > 0 && ctx.originalArgs().cur_step_num % m_steps == 0) save(ctx);
}

void ModelCheckpoint::epochEnd(RunContext& ctx) {
    if (m_epochs > 0 && ctx.originalArgs().cur_epoch_num % m_epochs == 0) save(ctx);
}

void ModelCheckpoint::end(RunContext& ctx) {
    // A stopped run keeps its last state so it can be resumed.
    const Trainer* t = ctx.originalArgs().trainer;
    if (t && ctx.originalArgs().cur_step_num > 0 &&
        (ctx.stopRequested() || t->progress().step > m_lastSavedStep))
        save(ctx);
}

void EarlyStop::stepEnd(RunContext& ctx) {
    const double loss = ctx.originalArgs().net_outputs;
    m_sum += loss;
    ++m_n;
    if (m_threshold > 0 && loss < m_threshold)
        ctx.requestStop("early stop: loss " + std::to_string(loss) + " below threshold " +
                        std::to_string(m_threshold));
}

void EarlyStop::epochEnd(RunContext& ctx) {
    const RunArgs& a = ctx.originalArgs();
    double value;
    bool lower;
    if (m_monitor == "loss") {
        if (m_n == 0) return;
        value = m_sum / static_cast<double>(m_n);
        lower = true;
    } else {
        // "eval_loss" is the evaluation's "loss"; other names are evaluation metrics.
        const std::string key = m_monitor == "eval_loss" ? "loss" : m_monitor;
        auto it = a.eval_results.find(key);
        if (it == a.eval_results.end()) return;
        value = it->second;
        lower = key == "loss";
    }
    const bool better =
        !m_haveBest || (lower ? value < m_best - m_minDelta : value > m_best + m_minDelta);
    if (better) {
        m_best = value;
        m_haveBest = true;
        m_bad = 0;
    } else if (++m_bad >= m_patience) {
        ctx.requestStop("early stop: " + m_monitor + " did not improve for " +
                        std::to_string(m_patience) + " epochs");
    }
}

void StopAtTime::stepEnd(RunContext& ctx) {
    const double s =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - m_start).count();
    if (s >= m_seconds)
        ctx.requestStop("stop at time: " + std::to_string(m_seconds) + " s reached");
}

void SaveBestCheckpoint::epochEnd(RunContext& ctx) {
    const RunArgs& a = ctx.originalArgs();
    auto it = a.eval_results.find(m_metric);
    if (it == a.eval_results.end() || !a.trainer) return;
    const double v = it->second;
    if (m_have && (m_lower ? v >= m_best : v <= m_best)) return;
    std::error_code ec;
    std::filesystem::create_directories(m_dir, ec);
    const std::string path = m_dir + "/best.ckpt";
    if (a.trainer->saveCheckpoint(path)) {
        m_have = true;
        m_best = v;
        m_path = path;
    }
}

SummaryCollector::SummaryCollector(RunRecorder* recorder, std::string tbDir, int64_t collectFreq)
    : m_rec(recorder), m_tbDir(std::move(tbDir)), m_freq(std::max<int64_t>(1, collectFreq)) {}

void SummaryCollector::scalar(const std::string& tag, int64_t step, double v) {
    if (m_rec) m_rec->addScalar(tag, step, v);
    if (m_tb) m_tb->addScalar(tag, step, static_cast<float>(v));
}

void SummaryCollector::begin(RunContext&) {
    if (!m_tbDir.empty()) {
        std::error_code ec;
        std::filesystem::create_directories(m_tbDir, ec);
        auto w = tb::EventWriter::open(m_tbDir);
        if (w) {
            m_tb = std::move(w.value());
            m_eventPath = m_tb->path();
        } else {
            m_error = w.error();
        }
    }
}

void SummaryCollector::stepEnd(RunContext& ctx) {
    const RunArgs& a = ctx.originalArgs();
    if (a.cur_step_num % m_freq != 0 && !a.overflow) return;
    scalar("train/loss", a.cur_step_num, a.net_outputs);
    scalar("lr", a.cur_step_num, a.lr);
    // The scale this step ran with: an overflow marker then sits on the value that overflowed.
    scalar("loss_scale", a.cur_step_num, a.loss_scale_used);
    // The step ran with the scale before it was lowered.
    if (a.overflow && m_rec) m_rec->addOverflow(a.cur_step_num, a.loss_scale_used);
}

void SummaryCollector::epochEnd(RunContext& ctx) {
    const RunArgs& a = ctx.originalArgs();
    for (const auto& [k, v] : a.eval_results)
        if (k.find('/') == std::string::npos) scalar("eval/" + k, a.cur_step_num, v);
    if (!a.eval_results.empty()) m_lastEvalStep = a.cur_step_num;
    scalar("samples_per_s", a.cur_step_num, a.samples_per_s);
    if (m_rec) (void)m_rec->flush();
    if (m_tb) m_tb->flush();
}

void SummaryCollector::end(RunContext& ctx) {
    const RunArgs& a = ctx.originalArgs();
    // The evaluation after the last epoch, unless the per-epoch one already gave this step's.
    if (!a.eval_results.empty() && a.cur_step_num != m_lastEvalStep)
        for (const auto& [k, v] : a.eval_results)
            if (k.find('/') == std::string::npos) scalar("eval/" + k, a.cur_step_num, v);
    if (m_rec) (void)m_rec->flush();
    if (m_tb) m_tb->flush();
}

void ProgressCallback::stepEnd(RunContext& ctx) {
    const auto now = std::chrono::steady_clock::now();
    if (now - m_last >= std::chrono::milliseconds(m_interval)) {
        m_last = now;
        m_fn(ctx.originalArgs());
    }
}

}  // namespace ts::engine
