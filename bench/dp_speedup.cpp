// Benchmark: data-parallel training of the engine on this machine (issue 15). For each model
// and seed: one process with the global batch, then `--nproc 2` with half of it per rank;
// prints samples/s of both, the speed-up, rank 0's time in AllReduce per step (from its
// profile), and the test accuracy of both (mean over the seeds). Prints figures; not a test.
//   dp_speedup [--model mlp|lenet5]... [--seeds N] [--steps N] [--batch B]
#include <rapidjson/document.h>

#include <unistd.h>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "core/store/trace_store.h"

namespace fs = std::filesystem;

namespace {

std::string cli() {
    return (fs::read_symlink("/proc/self/exe").parent_path() / ".." / "app" / "trainscope-cli")
        .lexically_normal()
        .string();
}

rapidjson::Document runJson(const std::string& command) {
    rapidjson::Document d;
    std::unique_ptr<FILE, int (*)(FILE*)> p(::popen(command.c_str(), "r"), ::pclose);
    std::string out;
    char buf[65536];
    while (p && fgets(buf, sizeof buf, p.get())) out += buf;
    d.Parse(out.c_str());
    return d;
}

// Rank 0's AllReduce: total ms over the profiled steps, and how many steps.
std::pair<double, int64_t> allreduceMs(const std::string& session) {
    auto st = ts::store::TraceStore::open(session, ts::store::TraceStore::Mode::ReadOnly);
    if (!st) return {0, 0};
    auto& db = st.value()->db();
    const int64_t ns = db.queryInt(
                             "SELECT coalesce(sum(s.dur), 0) FROM slices s JOIN strings n ON "
                             "n.id = s.name_id WHERE n.str = 'AllReduce'")
                           .value();
    const int64_t steps = db.queryInt(
                                "SELECT count(*) FROM slices s JOIN strings n ON n.id = s.name_id "
                                "WHERE n.str LIKE 'ProfilerStep#%'")
                              .value();
    const int64_t stepNs = db.queryInt(
                                 "SELECT coalesce(sum(s.dur), 0) FROM slices s JOIN strings n ON "
                                 "n.id = s.name_id WHERE n.str LIKE 'ProfilerStep#%'")
                               .value();
    std::printf(
        "      rank 0 profile: %lld steps, %.3f ms a step, AllReduce %.3f ms a step (%.0f%%)\n",
        static_cast<long long>(steps), steps ? stepNs / 1e6 / static_cast<double>(steps) : 0.0,
        steps ? ns / 1e6 / static_cast<double>(steps) : 0.0, stepNs ? 100.0 * ns / stepNs : 0.0);
    return {ns / 1e6, steps};
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> models;
    int seeds = 3, steps = 900, batch = 64;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!std::strcmp(argv[i], "--model")) models.push_back(argv[i + 1]);
        if (!std::strcmp(argv[i], "--seeds")) seeds = std::atoi(argv[i + 1]);
        if (!std::strcmp(argv[i], "--steps")) steps = std::atoi(argv[i + 1]);
        if (!std::strcmp(argv[i], "--batch")) batch = std::atoi(argv[i + 1]);
    }
    if (models.empty()) models = {"mlp", "lenet5"};
    const fs::path dir =
        fs::temp_directory_path() / ("trainscope-bench-dp-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::printf(
        "data parallel on %u cores: 1 process x batch %d against 2 ranks x %d (Gloo ring "
        "allreduce over loopback TCP), %d steps, %d seeds\n",
        std::thread::hardware_concurrency(), batch, batch / 2, steps, seeds);
    for (const std::string& model : models) {
        double r1 = 0, r2 = 0, a1 = 0, a2 = 0;
        for (int seed = 1; seed <= seeds; ++seed) {
            const std::string common = " --model " + model +
                                       " --dataset fashion-mnist --limit-steps " +
                                       std::to_string(steps) + " --seed " + std::to_string(seed) +
                                       " --eval-limit 5000 --json 2>/dev/null";
            const std::string s1 =
                (dir / (model + "_one_" + std::to_string(seed) + ".tscope")).string();
            const std::string f2 = (dir / (model + "_two_" + std::to_string(seed))).string();
            auto one = runJson(cli() + " train --batch-size " + std::to_string(batch) + " -o " +
                               s1 + common);
            auto two =
                runJson(cli() + " train --nproc 2 --batch-size " + std::to_string(batch / 2) +
                        " --profile --profile-schedule 5,0,50,1 -o " + f2 + common);
            if (!one.IsObject() || !two.IsObject() || !one.HasMember("samples_per_s") ||
                !two.HasMember("samples_per_s")) {
                std::printf("  %s seed %d: a run failed\n", model.c_str(), seed);
                continue;
            }
            const double s1r = one["samples_per_s"].GetDouble(),
                         s2r = two["samples_per_s"].GetDouble();
            const double acc1 = one["eval"]["accuracy"].GetDouble(),
                         acc2 = two["eval"]["accuracy"].GetDouble();
            std::printf(
                "  %-6s seed %d: 1 process %8.0f samples/s (acc %.4f) | 2 ranks %8.0f samples/s "
                "(acc %.4f) | speed-up %.2fx\n",
                model.c_str(), seed, s1r, acc1, s2r, acc2, s2r / s1r);
            allreduceMs(f2 + "/rank_0.tscope");
            r1 += s1r;
            r2 += s2r;
            a1 += acc1;
            a2 += acc2;
        }
        std::printf(
            "%-6s mean: 1 process %.0f samples/s, 2 ranks %.0f samples/s, speed-up %.2fx; "
            "accuracy %.4f vs %.4f (difference %.2f points)\n",
            model.c_str(), r1 / seeds, r2 / seeds, r2 / r1, a1 / seeds, a2 / seeds,
            100.0 * (a2 - a1) / seeds);
    }
    std::error_code ec;
    fs::remove_all(dir, ec);
    return 0;
}
