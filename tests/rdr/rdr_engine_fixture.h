#pragma once
// Engine runs that fail on purpose, for the RDR tests: a network whose forward pass runs an
// extra op at a chosen call (an op that throws, one that allocates past the pool's cap, one
// that dereferences a null pointer), and a TrainingJob set up with an RDR config file.
#include <sys/resource.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "core/engine/model/models.h"
#include "core/engine/tensor/dispatcher.h"
#include "core/run/training_job.h"
#include "tests/common/test_support.h"

namespace ts::rdr::test {

inline int* volatile g_nullTarget = nullptr;

/// The extra op a FailingNet runs: "Explode" throws, "AllocHuge" allocates 64 MiB, "Segv"
/// writes through a null pointer; anything else passes its input through.
class FailingNet : public engine::Cell {
public:
    FailingNet(std::string op, int atCall) : Cell("FailingNet"), m_op(std::move(op)), m_at(atCall) {
        m_body = addChild("body", engine::makeMlp(3));
    }
    engine::Tensor forward(const engine::Tensor& x) override {
        engine::Tensor y = (*m_body)(x);
        if (++m_calls != m_at) return y;
        const std::string op = m_op;
        auto outs = engine::Dispatcher::current().run(
            m_op, {y}, [op](std::vector<engine::Tensor>& in) -> std::vector<engine::Tensor> {
                if (op == "Explode") throw std::runtime_error("Explode: injected failure");
                if (op == "AllocHuge") return {engine::Tensor::empty({int64_t{1} << 24})};
                if (op == "Segv") *g_nullTarget = 42;
                return {in[0]};
            });
        return outs.at(0);
    }

private:
    std::shared_ptr<engine::Cell> m_body;
    std::string m_op;
    int m_at;
    int m_calls = 0;
};

/// A small synthetic MLP run recorded in `dir`/session.tscope.
inline run::JobOptions smallJob(const std::filesystem::path& dir) {
    run::JobOptions o;
    o.train.model = "mlp";
    o.train.dataset = "synthetic";
    o.train.syntheticSamples = 256;
    o.train.batchSize = 32;
    o.train.epochs = 1;
    o.train.lr = 0.01;
    o.train.seed = 5;
    o.train.evalAtEnd = false;
    o.sessionPath = (dir / "session.tscope").string();
    o.rdrUseEnvironment = false;
    return o;
}

/// Writes an RDR config file enabling `mode` with exports under `root`; returns its path.
inline std::string writeRdrConfig(const std::filesystem::path& dir,
                                  const std::filesystem::path& root, int mode) {
    const auto path = dir / "rdr_config.json";
    std::ofstream(path) << R"({"rdr": {"enable": true, "mode": )" << mode << R"(, "path": ")"
                        << root.string() << "\"}}\n";
    return path.string();
}

inline void noCoreFile() {
    struct rlimit none {};
    setrlimit(RLIMIT_CORE, &none);
}

}  // namespace ts::rdr::test
