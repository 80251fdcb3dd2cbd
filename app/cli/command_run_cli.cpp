#include "app/cli/command_run_cli.h"

#include <signal.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <iostream>
#include <mutex>
#include <thread>

#include "core/common/cuda_paths.h"
#include "core/run/command_run.h"
#include "importers/run_artifacts.h"

namespace ts::cli {
namespace {

std::atomic<int> g_interrupts{0};

extern "C" void onRunInterrupt(int) {
    g_interrupts.fetch_add(1);
}

void printSummary(const run::CommandResult& r, const std::string& verb) {
    char seconds[32];
    std::snprintf(seconds, sizeof seconds, "%.2f", r.durationS);
    std::cerr << "trainscope-cli " << verb << ": run " << r.runId << " "
              << store::statusName(r.status) << " (" << r.reason << ") in " << seconds << " s, "
              << r.logLines << " lines";
    for (const auto& [tag, n] : r.scalars) std::cerr << ", " << tag << ": " << n << " points";
    std::cerr << "\n";
    for (const auto& t : r.traces)
        std::cerr << "  trace " << t.path << ": " << t.slices << " slices (" << t.statusText()
                  << ")\n";
    for (const auto& d : r.dumps) std::cerr << "  dump " << d << "\n";
    for (const auto& d : r.rdr) std::cerr << "  crash record " << d << "\n";
    if (r.overflowFindings > 0) std::cerr << "  NaN/Inf findings: " << r.overflowFindings << "\n";
    for (const auto& w : r.warnings) std::cerr << "  warning: " << w << "\n";
}

/// --record-cuda needs the collector (built with the toolkit) and a driver to load it:
/// without either nothing could be recorded, so the run is not started.
std::string cuptiLibraryOrThrow() {
    auto lib = cuptiForRecording();
    if (!lib)
        throw CliError{"cannot record CUDA activity: " + lib.error() +
                       " (trainscope-cli launch runs the command without recording)"};
    return lib.value();
}

}  // namespace

run::LaunchSpec commandLaunchSpec(const Args& args, const std::string& verb) {
    run::LaunchSpec s;
    if (args.rest.empty())
        throw CliError{"no command to run: trainscope-cli " + verb +
                       " -o SESSION -- COMMAND [ARGS...]"};
    s.program = args.rest.front();
    s.args.assign(args.rest.begin() + 1, args.rest.end());
    s.name = args.valueOr("name", "");
    s.cwd = args.valueOr("cwd", "");
    for (const std::string& kv : args.values("env")) {
        const size_t eq = kv.find('=');
        if (eq == std::string::npos || eq == 0)
            throw CliError{"--env '" + kv + "': expected NAME=VALUE"};
        s.env.emplace_back(kv.substr(0, eq), kv.substr(eq + 1));
    }
    return s;
}

int runCommandRun(const Args& args, run::LaunchSpec spec, const std::string& verb) {
    run::CommandRunOptions o;
    o.sessionPath = args.valueOr("output", "");
    if (o.sessionPath.empty())
        throw CliError{"-o SESSION is required (the session the run is recorded in)"};
    if (spec.recordCuda) o.cuptiLibrary = cuptiLibraryOrThrow();
    o.spec = std::move(spec);
    o.importArtifact = importers::runArtifactImporter();
    const bool quiet = args.has("quiet");
    const bool many = o.spec.nproc > 1;
    std::mutex outMutex;
    if (!quiet) {
        o.echo = [&, json = args.json](int rank, bool isErr, std::string_view line) {
            std::lock_guard<std::mutex> lock(outMutex);
            FILE* f = json || isErr ? stderr : stdout;
            if (many) std::fprintf(f, "[rank %d] ", rank);
            std::fwrite(line.data(), 1, line.size(), f);
            std::fputc('\n', f);
        };
    }
    struct sigaction sa {};
    sa.sa_handler = onRunInterrupt;
    sigemptyset(&sa.sa_mask);
    for (int sig : {SIGINT, SIGTERM, SIGHUP}) sigaction(sig, &sa, nullptr);

    run::CommandRun runner(std::move(o));
    runner.start();
    if (auto s = runner.waitStarted(); !s && !args.json) {
        runner.wait();
        throw CliError{s.error()};
    }
    int seen = 0;
    while (!runner.finished()) {
        if (runner.progress().state == run::CommandState::Ended) break;
        if (const int n = g_interrupts.load(); n != seen) {
            seen = n;
            runner.requestStop();
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
    const run::CommandResult& r = runner.wait();
    std::fflush(stdout);
    if (args.json)
        std::cout << r.toJson() << std::endl;
    else
        printSummary(r, verb);
    return r.shellExitCode();
}

}  // namespace ts::cli
