#include "core/dist/process_group.h"

#ifdef TRAINSCOPE_HAVE_GLOO
#include "core/dist/gloo/gloo_group.h"
#endif

namespace ts::dist {
namespace {

// A world of one: every collective is the identity.
class LocalGroup : public ProcessGroup {
public:
    int rank() const override { return 0; }
    int size() const override { return 1; }
    Status allreduceSum(float*, size_t) override { return {}; }
    Status allreduceSum(double*, size_t) override { return {}; }
    Status broadcast(float*, size_t, int) override { return {}; }
    Status allgather(const double* in, size_t n, double* out) override {
        std::copy(in, in + n, out);
        return {};
    }
    Status barrier() override { return {}; }
    std::string algorithm() const override { return "local"; }
    void reportFailure(const std::string&) override {}
    std::string peerFailures() override { return {}; }
};

}  // namespace

bool haveCollectives() {
#ifdef TRAINSCOPE_HAVE_GLOO
    return true;
#else
    return false;
#endif
}

Result<std::unique_ptr<ProcessGroup>> connectProcessGroup(const DistConfig& config) {
    if (!config.distributed()) return std::unique_ptr<ProcessGroup>(new LocalGroup);
#ifdef TRAINSCOPE_HAVE_GLOO
    return connectGlooGroup(config);
#else
    return Error{
        "this build of TrainScope has no collective library (Gloo was not found when it "
        "was built: apt-get install libgloo-dev, then build again), so it cannot join a "
        "world of " +
        std::to_string(config.worldSize) + " processes"};
#endif
}

}  // namespace ts::dist
