#include "app/cli/train_ranks.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <mutex>
#include <thread>

#include "core/common/data_paths.h"
#include "core/common/json_read.h"
#include "core/run/command_run.h"
#include "core/run/run_summary.h"
#include "core/store/trace_store.h"

namespace ts::cli {
namespace {

namespace fs = std::filesystem;

std::atomic<int> g_interrupts{0};

extern "C" void onTrainInterrupt(int) {
    g_interrupts.fetch_add(1);
}

// The options again, as one process of the job gets them (without --nproc and --json).
std::vector<std::string> rankArguments(const Args& args) {
    std::vector<std::string> out = {"train"};
    for (const auto& [name, values] : args.options) {
        if (name == "nproc") continue;
        for (const std::string& v : values) out.push_back("--" + name + (v.empty() ? "" : "=" + v));
    }
    return out;
}

std::string folderOf(const std::string& output) {
    fs::path p(output);
    if (p.extension() == ".tscope") p.replace_extension("");
    return p.string();
}

}  // namespace

bool trainInterrupted() {
    return g_interrupts.load() > 0;
}

void installTrainInterruptHandler() {
    struct sigaction sa {};
    sa.sa_handler = onTrainInterrupt;
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);
}

int runTrainRanks(const Args& args, int nproc) {
    const std::string output = args.valueOr("output", "");
    if (output.empty())
        throw CliError{"-o FOLDER is required: each rank records FOLDER/rank_<r>.tscope"};
    const std::string folder = folderOf(output);
    run::CommandRunOptions o;
    o.spec.program = siblingProgram("trainscope-cli");
    o.spec.args = rankArguments(args);
    o.spec.nproc = nproc;
    o.spec.ranks = run::RankScheme::Torch;
    o.spec.pythonHooks = false;
    o.spec.name = "train x " + std::to_string(nproc);
    std::mutex outMutex;
    o.echo = [&, json = args.json](int rank, bool isErr, std::string_view line) {
        std::lock_guard<std::mutex> lock(outMutex);
        FILE* f = json || isErr ? stderr : stdout;
        std::fprintf(f, "[rank %d] %.*s\n", rank, static_cast<int>(line.size()), line.data());
    };
    installTrainInterruptHandler();
    run::CommandRun job(std::move(o));
    job.start();
    if (auto s = job.waitStarted(); !s) {
        job.wait();
        throw CliError{s.error()};
    }
    bool asked = false;
    while (job.progress().state != run::CommandState::Ended) {
        if (trainInterrupted() && !asked) {
            asked = true;
            job.requestStop();
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    const run::CommandResult& r = job.wait();

    // What each rank recorded: the last run of its session.
    rapidjson::Document rank0;
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    double jobRate = 0;
    std::vector<std::string> perRank;
    for (int rank = 0; rank < nproc; ++rank) {
        const std::string session =
            (fs::path(folder) / ("rank_" + std::to_string(rank) + ".tscope")).string();
        std::string summary = "{}", status = "failed", reason = "the rank recorded nothing";
        int64_t steps = 0;
        if (auto st = store::TraceStore::open(session, store::TraceStore::Mode::ReadWrite)) {
            if (auto runs = st.value()->runs(); runs && !runs.value().empty()) {
                const auto& last = runs.value().back();
                summary = last.summary.empty() ? "{}" : last.summary;
                status = store::statusName(last.status);
                reason = last.reason;
                // A killed rank wrote no summary: the steps its scalars recorded.
                if (last.summary.empty()) steps = run::recordedSteps(*st.value(), last.id);
            }
        }
        rapidjson::Document d;
        (void)json::parse(d, summary);
        const double rate =
            d.IsObject() && d.HasMember("samples_per_s") && d["samples_per_s"].IsNumber()
                ? d["samples_per_s"].GetDouble()
                : 0.0;
        if (d.IsObject() && d.HasMember("steps") && d["steps"].IsInt64())
            steps = d["steps"].GetInt64();
        jobRate += rate;
        rapidjson::StringBuffer rb;
        rapidjson::Writer<rapidjson::StringBuffer> rw(rb);
        rw.StartObject();
        rw.Key("rank");
        rw.Int(rank);
        rw.Key("status");
        rw.String(status.c_str());
        rw.Key("reason");
        rw.String(reason.c_str());
        rw.Key("steps");
        rw.Int64(steps);
        rw.Key("samples_per_s");
        rw.Double(rate);
        rw.Key("session");
        rw.String(session.c_str());
        rw.EndObject();
        perRank.emplace_back(rb.GetString());
        if (rank == 0) (void)json::parse(rank0, summary);
        if (!args.json)
            std::cout << "rank " << rank << ": " << status << " (" << reason << "), " << steps
                      << " steps, " << static_cast<int64_t>(rate) << " samples/s -> " << session
                      << "\n";
    }
    if (args.json) {
        w.StartObject();
        if (rank0.IsObject())
            for (auto it = rank0.MemberBegin(); it != rank0.MemberEnd(); ++it) {
                const std::string key = it->name.GetString();
                if (key == "samples_per_s" || key == "world_size" || key == "rank") continue;
                w.Key(it->name.GetString());
                it->value.Accept(w);
            }
        if (!rank0.IsObject() || !rank0.HasMember("status")) {
            kv(w, "status", store::statusName(r.status));
            kv(w, "reason", r.reason);
        }
        kv(w, "world_size", nproc);
        w.Key("samples_per_s");
        w.Double(jobRate);
        w.Key("job");
        w.StartObject();
        kv(w, "status", store::statusName(r.status));
        kv(w, "reason", r.reason);
        kv(w, "folder", folder);
        w.EndObject();
        w.Key("ranks");
        w.StartArray();
        for (const std::string& p : perRank)
            w.RawValue(p.c_str(), p.size(), rapidjson::kObjectType);
        w.EndArray();
        w.EndObject();
        std::cout << buf.GetString() << std::endl;
    } else {
        std::cout << "job: " << store::statusName(r.status) << " (" << r.reason << "), "
                  << static_cast<int64_t>(jobRate) << " samples/s in all, sessions in " << folder
                  << "\n";
    }
    return r.status == store::RunStatus::Completed ? 0
           : r.shellExitCode() == 0                ? 1
                                                   : r.shellExitCode();
}

}  // namespace ts::cli
