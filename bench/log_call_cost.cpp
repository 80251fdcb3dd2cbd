// Cost of a log call: a disabled TS_LOG (level below the sub-module's level: one relaxed
// atomic load, no formatting) and an enabled one (record built, formatted glog-style and
// written to stderr, redirected here to /dev/null), in ns per call.
// Usage: log_call_cost [calls]   (default 20,000,000 disabled, 1/100 of that enabled)
#include <chrono>
#include <cstdio>
#include <cstdlib>

#include "core/log/logger.h"

namespace {

double nsPerCall(long calls, bool enabled) {
    using namespace ts::log;
    Logger::instance().setModuleLevel(SubModule::Engine, enabled ? Level::Debug : Level::Warning);
    volatile double loss = 2.3025;
    const auto t0 = std::chrono::steady_clock::now();
    for (long i = 0; i < calls; ++i)
        TS_LOG(ENGINE, DEBUG) << "epoch " << 1 << " step " << i << " loss " << loss;
    const auto t1 = std::chrono::steady_clock::now();
    return std::chrono::duration<double, std::nano>(t1 - t0).count() / static_cast<double>(calls);
}

}  // namespace

int main(int argc, char** argv) {
    const long calls = argc > 1 ? std::atol(argv[1]) : 20'000'000;
    if (!std::freopen("/dev/null", "w", stderr)) return 1;
    ts::log::Logger::instance().configure(ts::log::LogConfig{});
    double best[2] = {1e30, 1e30};
    for (int round = 0; round < 3; ++round) {
        const double off = nsPerCall(calls, false);
        const double on = nsPerCall(calls / 100, true);
        if (off < best[0]) best[0] = off;
        if (on < best[1]) best[1] = on;
    }
    std::printf("log call, level disabled: %.2f ns/call (%ld calls, best of 3)\n", best[0], calls);
    std::printf("log call, enabled, formatted to /dev/null: %.0f ns/call (%ld calls, best of 3)\n",
                best[1], calls / 100);
    return 0;
}
