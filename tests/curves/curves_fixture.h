#pragma once
// A synthetic training session for the curves tests: runs and scalars written with SQL
// through TraceStore, the way the engine's run recorder writes them.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>

#include "core/store/scalar_writer.h"
#include "core/store/trace_store.h"
#include "tests/common/test_support.h"

namespace ts::test {

/// A writable session in a fresh temp folder; add runs and rows while readers read.
class CurvesSession {
public:
    explicit CurvesSession(const std::string& tag = "curves") {
        m_path = (tempDir(tag) / "train.tscope").string();
        auto s = store::TraceStore::open(m_path, store::TraceStore::Mode::Create);
        EXPECT_TRUE(s.ok()) << (s.ok() ? "" : s.error());
        m_store = std::move(s.value());
    }
    const std::string& path() const { return m_path; }
    store::TraceStore& store() { return *m_store; }

    int64_t beginRun(std::string_view name) { return m_store->beginRun(name, "{}").value(); }
    void finishRun(int64_t run, store::RunStatus status = store::RunStatus::Completed) {
        EXPECT_TRUE(m_store->finishRun(run, status, "done").ok());
    }
    /// Sets the run's start time (wall-time axis tests; fixture rows are at 1 s + step ms).
    void setStartedAt(int64_t run, int64_t ns) {
        auto st = m_store->db().prepare("UPDATE runs SET started_at = ?1 WHERE id = ?2");
        EXPECT_TRUE(st.bind(1, ns).bind(2, run).run().ok());
    }
    void scalar(int64_t run, std::string_view tag, int64_t step, double value, int64_t wallNs = 0) {
        store::ScalarWriter w(*m_store, run);
        auto row = w.add(tag, step, wallNs ? wallNs : 1'000'000'000 + step * 1'000'000, value);
        EXPECT_TRUE(row.ok()) << row.error();
    }
    void overflow(int64_t run, int64_t step) {
        auto st = m_store->db().prepare(
            "INSERT INTO overflow_findings(run_id, step, origin, ts) VALUES(?1, ?2, 'loss_scale', "
            "?3)");
        st.bind(1, run).bind(2, step).bind(3, 1'000'000'000 + step * 1'000'000);
        EXPECT_TRUE(st.run().ok()) << st.error();
    }
    /// A typical run: train/loss at steps 1..steps, lr, loss_scale, eval/* every `perEpoch`.
    void fillRun(int64_t run, int steps, int perEpoch = 5) {
        for (int s = 1; s <= steps; ++s) {
            scalar(run, "train/loss", s, 2.0 / s);
            scalar(run, "lr", s, 0.1);
            scalar(run, "loss_scale", s, s < 3 ? 1024.0 : 512.0);
            if (s % perEpoch == 0) {
                scalar(run, "eval/loss", s, 1.0 / s);
                scalar(run, "eval/accuracy", s, 0.5 + 0.01 * s);
            }
        }
    }

private:
    std::string m_path;
    std::unique_ptr<store::TraceStore> m_store;
};

}  // namespace ts::test
