// Benchmark: data-parallel training of the engine on this machine (issues 15, 31). For each
// model and seed: one process with the global batch and every core, then `--nproc 2` with half
// of the batch and of the cores per rank; prints samples/s of both, the speed-up, rank 0's time
// in AllReduce per step (from its profile), and the test accuracy of both (mean over the seeds).
// In the same run, the peer: PyTorch (bench/peer_torch_ddp.py) 1 process against 2 ranks of
// DistributedDataParallel on gloo, with the same model, data, batch, steps and threads per rank,
// and its speed-up beside the engine's. Prints figures; not a test.
//   dp_speedup [--model mlp|lenet5|resnet8]... [--seeds N] [--steps N] [--batch B]
//              [--bucket-mb MB] [--no-peer]
#include <rapidjson/document.h>

#include <unistd.h>
#include <algorithm>
#include <cstdio>
#include <cstdlib>
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

// One PyTorch run of bench/peer_torch_ddp.py: `world` ranks started here with the env://
// variables, each with `threads` threads; rank 0's samples/s and accuracy, {0, 0} when it fails.
std::pair<double, double> peerRun(const std::string& model, int world, int batch, int steps,
                                  int seed, int threads) {
    static int port = 29500 + ::getpid() % 20000;
    ++port;
    const std::string script = std::string(TRAINSCOPE_SOURCE_DIR) + "/bench/peer_torch_ddp.py";
    std::string cmd = "(";
    for (int r = 0; r < world; ++r)
        cmd +=
            "LD_LIBRARY_PATH=/usr/lib/x86_64-linux-gnu/openblas-pthread OPENBLAS_NUM_THREADS=1 "
            "RANK=" +
            std::to_string(r) + " WORLD_SIZE=" + std::to_string(world) +
            " MASTER_ADDR=127.0.0.1 MASTER_PORT=" + std::to_string(port) + " /usr/bin/python3 '" +
            script + "' " + model + " " + std::to_string(batch) + " " + std::to_string(steps) +
            " " + std::to_string(seed) + " " + std::to_string(threads) + " 2>/dev/null & ";
    cmd += "wait)";
    std::unique_ptr<FILE, int (*)(FILE*)> p(::popen(cmd.c_str(), "r"), ::pclose);
    char buf[4096];
    double rate = 0, acc = 0;
    while (p && fgets(buf, sizeof buf, p.get())) {
        if (const char* at = std::strstr(buf, "samples/s=")) rate = std::atof(at + 10);
        if (const char* at = std::strstr(buf, "acc=")) acc = std::atof(at + 4);
    }
    return {rate, acc};
}

}  // namespace

int main(int argc, char** argv) {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);  // each figure as it comes, also into a file
    std::vector<std::string> models;
    int seeds = 3, steps = 900, batch = 64;
    std::string bucketMb;
    bool peer = true;
    for (int i = 1; i < argc; ++i) {
        const bool value = i + 1 < argc;
        if (!std::strcmp(argv[i], "--no-peer"))
            peer = false;
        else if (value && !std::strcmp(argv[i], "--model"))
            models.push_back(argv[++i]);
        else if (value && !std::strcmp(argv[i], "--seeds"))
            seeds = std::atoi(argv[++i]);
        else if (value && !std::strcmp(argv[i], "--steps"))
            steps = std::atoi(argv[++i]);
        else if (value && !std::strcmp(argv[i], "--batch"))
            batch = std::atoi(argv[++i]);
        else if (value && !std::strcmp(argv[i], "--bucket-mb"))
            bucketMb = argv[++i];
    }
    if (peer && std::system("/usr/bin/python3 -c 'import torch' >/dev/null 2>&1") != 0) {
        std::printf("pytorch: not installed (apt-get install -y python3-torch); engine only\n");
        peer = false;
    }
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    const int perRank = std::max(1, cores / 2);
    if (models.empty()) models = {"lenet5", "resnet8"};
    if (FILE* f = std::fopen("/proc/loadavg", "r")) {  // the figures depend on it: say it
        char load[64] = {};
        if (std::fgets(load, sizeof load, f)) std::printf("load average: %s", load);
        std::fclose(f);
    }
    const fs::path dir =
        fs::temp_directory_path() / ("trainscope-bench-dp-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::printf(
        "data parallel on %d cores: 1 process x batch %d x %d threads against 2 ranks x batch %d "
        "x %d threads (ring allreduce over loopback TCP), %d steps, %d seeds; the peer: PyTorch "
        "1 process against 2 ranks of DDP on gloo, the same batches and threads\n",
        cores, batch, cores, batch / 2, perRank, steps, seeds);
    for (const std::string& model : models) {
        double r1 = 0, r2 = 0, a1 = 0, a2 = 0, p1 = 0, p2 = 0;
        for (int seed = 1; seed <= seeds; ++seed) {
            const std::string common = " --model " + model +
                                       " --dataset fashion-mnist --limit-steps " +
                                       std::to_string(steps) + " --seed " + std::to_string(seed) +
                                       " --eval-limit 5000 --json 2>/dev/null";
            const std::string bucket = bucketMb.empty() ? "" : " --bucket-mb " + bucketMb;
            const std::string s1 =
                (dir / (model + "_one_" + std::to_string(seed) + ".tscope")).string();
            const std::string f2 = (dir / (model + "_two_" + std::to_string(seed))).string();
            auto one = runJson(cli() + " train --threads " + std::to_string(cores) +
                               " --batch-size " + std::to_string(batch) + " -o " + s1 + common);
            auto two = runJson(cli() + " train --nproc 2 --threads " + std::to_string(perRank) +
                               " --batch-size " + std::to_string(batch / 2) + bucket +
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
            if (peer) {
                const auto [q1, b1] = peerRun(model, 1, batch, steps, seed, cores);
                const auto [q2, b2] = peerRun(model, 2, batch, steps, seed, perRank);
                std::printf(
                    "      pytorch: 1 process %8.0f samples/s (acc %.4f) | 2 ranks DDP %8.0f "
                    "samples/s (acc %.4f) | speed-up %.2fx\n",
                    q1, b1, q2, b2, q1 > 0 ? q2 / q1 : 0.0);
                p1 += q1;
                p2 += q2;
            }
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
        if (peer)
            std::printf(
                "%-6s pytorch: 1 process %.0f samples/s, 2 ranks DDP %.0f samples/s, speed-up "
                "%.2fx | engine speed-up %.2fx (%s)\n",
                model.c_str(), p1 / seeds, p2 / seeds, p1 > 0 ? p2 / p1 : 0.0, r2 / r1,
                r2 / r1 >= (p1 > 0 ? p2 / p1 : 0.0) ? "ahead of the peer" : "behind the peer");
    }
    std::error_code ec;
    fs::remove_all(dir, ec);
    return 0;
}
