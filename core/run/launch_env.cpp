#include "core/run/launch_env.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "core/debug/rdr/rdr_config.h"

extern char** environ;

namespace ts::run {
namespace {

namespace fs = std::filesystem;

std::string levelDigit(log::Level l) {
    return std::to_string(static_cast<int>(l));
}

// ASCEND_GLOBAL_LOG_LEVEL: 0 DEBUG, 1 INFO, 2 WARNING, 3 ERROR (4 is "no output").
std::string ascendLevel(log::Level l) {
    return std::to_string(std::min(static_cast<int>(l), 3));
}

// TORCH_CPP_LOG_LEVEL: c10's INFO, WARNING, ERROR, FATAL.
std::string torchLevel(log::Level l) {
    switch (l) {
        case log::Level::Debug:
        case log::Level::Info:
            return "INFO";
        case log::Level::Warning:
            return "WARNING";
        case log::Level::Error:
            return "ERROR";
        case log::Level::Critical:
            return "FATAL";
    }
    return "WARNING";
}

class EnvBuilder {
public:
    explicit EnvBuilder(const EnvList& base) {
        for (const auto& [k, v] : base) m_vars[k] = v;
    }
    void set(const std::string& name, const std::string& value, const std::string& origin) {
        m_vars[name] = value;
        auto it = std::find_if(m_changes.begin(), m_changes.end(),
                               [&](const EnvChange& c) { return c.name == name; });
        if (it != m_changes.end()) m_changes.erase(it);
        m_changes.push_back({name, value, origin});
    }
    std::string get(const std::string& name) const {
        auto it = m_vars.find(name);
        return it == m_vars.end() ? std::string() : it->second;
    }
    bool has(const std::string& name) const { return m_vars.count(name) != 0; }
    ProcessEnvironment finish() {
        ProcessEnvironment out;
        out.full.assign(m_vars.begin(), m_vars.end());
        out.changes = std::move(m_changes);
        return out;
    }

private:
    std::map<std::string, std::string> m_vars;
    std::vector<EnvChange> m_changes;
};

void applyLogLevels(const std::vector<LogLevelSetting>& levels, EnvBuilder& env) {
    std::string submodules, ascendModules;
    for (const LogLevelSetting& l : levels) {
        const std::string origin = "log levels";
        if (l.module.empty()) {
            env.set("GLOG_v", levelDigit(l.level), origin);
            env.set("GLOG_stderrthreshold", levelDigit(l.level), origin);
            env.set("ASCEND_GLOBAL_LOG_LEVEL", ascendLevel(l.level), origin);
            env.set("TORCH_CPP_LOG_LEVEL", torchLevel(l.level), origin);
            if (l.level == log::Level::Debug) env.set("TORCH_DISTRIBUTED_DEBUG", "INFO", origin);
        } else if (l.module == "TORCH") {
            env.set("TORCH_CPP_LOG_LEVEL", torchLevel(l.level), origin);
        } else if (l.module == "ASCEND") {
            env.set("ASCEND_GLOBAL_LOG_LEVEL", ascendLevel(l.level), origin);
        } else if (l.module.rfind("ASCEND:", 0) == 0) {
            if (!ascendModules.empty()) ascendModules += ':';
            ascendModules += l.module.substr(7) + "=" + ascendLevel(l.level);
        } else if (l.module == "EVENT") {
            env.set("ASCEND_GLOBAL_EVENT_ENABLE", l.eventsOn ? "1" : "0", origin);
        } else {
            if (!submodules.empty()) submodules += ',';
            submodules += l.module + ":" + levelDigit(l.level);
        }
    }
    if (!submodules.empty()) env.set("MS_SUBMODULE_LOG_v", "{" + submodules + "}", "log levels");
    if (!ascendModules.empty()) env.set("ASCEND_MODULE_LOG_LEVEL", ascendModules, "log levels");
}

void applyRanks(const LaunchSpec& spec, int rank, int port, EnvBuilder& env) {
    const std::string r = std::to_string(rank), n = std::to_string(spec.nproc);
    env.set("TRAINSCOPE_RANK", r, "rank");
    // One id for the job's ranks, another for any other job (the rendezvous checks it).
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    env.set("TRAINSCOPE_JOB_ID",
            std::string(host) + "-" + std::to_string(::getpid()) + "-" + std::to_string(port),
            "rank");
    if (spec.ranks == RankScheme::Torch) {
        env.set("RANK", r, "rank");
        env.set("LOCAL_RANK", r, "rank");
        env.set("WORLD_SIZE", n, "rank");
        env.set("LOCAL_WORLD_SIZE", n, "rank");
        env.set("MASTER_ADDR", spec.masterAddr, "rank");
        env.set("MASTER_PORT", std::to_string(port), "rank");
    } else if (spec.ranks == RankScheme::MindSpore) {
        env.set("RANK_ID", r, "rank");
        env.set("RANK_SIZE", n, "rank");
        env.set("DEVICE_ID", r, "rank");
    }
}

std::string scheduleText(const profiler::ProfileSchedule& s) {
    return "skip_first=" + std::to_string(s.skipFirst) + ",wait=" + std::to_string(s.wait) +
           ",warmup=" + std::to_string(s.warmup) + ",active=" + std::to_string(s.active) +
           ",repeat=" + std::to_string(s.repeat);
}

std::string absolute(const std::string& path, const std::string& cwd) {
    if (path.empty()) return path;
    fs::path p(path);
    if (p.is_relative()) p = (cwd.empty() ? fs::current_path() : fs::path(cwd)) / p;
    return p.lexically_normal().string();
}

void applyPythonPackage(const LaunchSpec& spec, const RunPaths& paths, int rank, EnvBuilder& env) {
    if (!spec.pythonHooks || paths.pythonDir.empty()) return;
    const std::string origin = "python package";
    const std::string old = env.get("PYTHONPATH");
    env.set("PYTHONPATH", old.empty() ? paths.pythonDir : paths.pythonDir + ":" + old, origin);
    env.set("TRAINSCOPE_HOOKS", "1", origin);
    env.set("TRAINSCOPE_EVENTS", paths.eventsPattern(rank), origin);
    if (spec.recordLoss) env.set("TRAINSCOPE_LOSS", "1", origin);
    if (spec.profile) {
        env.set("TRAINSCOPE_PROFILE", scheduleText(spec.profileSchedule), origin);
        env.set("TRAINSCOPE_PROFILE_DIR", paths.profileDir, origin);
        std::string opts;
        if (spec.recordShapes) opts = "record_shapes";
        if (spec.profileMemory) opts += opts.empty() ? "profile_memory" : ",profile_memory";
        env.set("TRAINSCOPE_PROFILE_OPTIONS", opts, origin);
    }
    if (!spec.dumpConfig.empty())
        env.set("TRAINSCOPE_DUMP_CONFIG", absolute(spec.dumpConfig, spec.cwd), origin);
    if (spec.overflowCheck || spec.stopOnOverflow)
        env.set("TRAINSCOPE_OVERFLOW", spec.stopOnOverflow ? "stop" : "1", origin);
}

Status applyRdr(const LaunchSpec& spec, const RunPaths& paths, EnvBuilder& env,
                std::string& rdrPath) {
    if (spec.rdrConfig.empty() && spec.rdrConfigJson.empty()) return {};
    std::string file = "the crash recorder settings";
    std::string text = spec.rdrConfigJson;
    if (text.empty()) {
        file = absolute(spec.rdrConfig, spec.cwd);
        std::ifstream in(file);
        if (!in) return Error{"--rdr: cannot read '" + file + "'"};
        std::stringstream ss;
        ss << in.rdbuf();
        text = ss.str();
    }
    rdr::EnvMap vars;
    for (const char* k : {"MS_RDR_ENABLE", "MS_RDR_MODE", "MS_RDR_PATH", "RANK_ID"})
        if (env.has(k)) vars[k] = env.get(k);
    if (vars.count("MS_RDR_PATH") == 0 || vars["MS_RDR_PATH"].empty())
        vars["MS_RDR_PATH"] = paths.rdrDir;
    auto cfg = rdr::parseRdrConfig(text, vars);
    if (!cfg) return Error{"--rdr " + file + ": " + cfg.error()};
    const std::string origin = "crash records";
    env.set("MS_RDR_ENABLE", cfg->enable ? "1" : "0", origin);
    env.set("MS_RDR_MODE", std::to_string(cfg->mode), origin);
    if (cfg->enable) {
        env.set("MS_RDR_PATH", cfg->path, origin);
        rdrPath = cfg->path;
    }
    return {};
}

}  // namespace

std::string RunPaths::eventsPattern(int rank) const {
    return runDir + "/events.rank" + std::to_string(rank) + ".{pid}.jsonl";
}

RunPaths runPathsFor(const std::string& sessionPath, int64_t runId, const std::string& pythonDir) {
    fs::path s = fs::absolute(sessionPath).lexically_normal();
    std::string stem = s.filename().string();
    if (stem.size() > 7 && stem.ends_with(".tscope")) stem.resize(stem.size() - 7);
    RunPaths p;
    p.runDir = (s.parent_path() / (stem + "-runs") / ("run-" + std::to_string(runId))).string();
    p.profileDir = p.runDir + "/profile";
    p.rdrDir = p.runDir + "/rdr";
    p.cudaDir = p.runDir + "/cuda";
    p.pythonDir = pythonDir;
    return p;
}

std::vector<EnvChange> logLevelVariables(const std::vector<LogLevelSetting>& levels) {
    EnvBuilder env({});
    applyLogLevels(levels, env);
    return env.finish().changes;
}

Result<ProcessEnvironment> buildProcessEnvironment(const LaunchSpec& spec, const EnvList& base,
                                                   const RunPaths& paths, int rank,
                                                   int masterPort) {
    EnvBuilder env(base);
    env.set("PYTHONUNBUFFERED", "1", "streams");
    env.set("GLOG_logtostderr", "1", "streams");
    env.set("ASCEND_SLOG_PRINT_TO_STDOUT", "1", "streams");
    applyLogLevels(spec.logLevels, env);
    applyRanks(spec, rank, masterPort, env);
    std::string rdrPath;
    if (auto s = applyRdr(spec, paths, env, rdrPath); !s) return Error{s.error()};
    applyPythonPackage(spec, paths, rank, env);
    if (spec.recordCuda) {
        if (paths.cuptiLibrary.empty())
            return Error{"record CUDA activity: the CUPTI collector is not available"};
        const std::string origin = "cuda recording";
        env.set("CUDA_INJECTION64_PATH", paths.cuptiLibrary, origin);
        env.set("NVTX_INJECTION64_PATH", paths.cuptiLibrary, origin);
        env.set("TRAINSCOPE_CUPTI_DIR", paths.cudaDir, origin);
    }
    for (const auto& [k, v] : spec.env) env.set(k, v, "user");
    ProcessEnvironment out = env.finish();
    out.rdrPath = rdrPath;
    return out;
}

EnvList currentEnvironment() {
    EnvList out;
    for (char** e = environ; e && *e; ++e) {
        const std::string_view kv(*e);
        const size_t eq = kv.find('=');
        if (eq == std::string_view::npos || eq == 0) continue;
        out.emplace_back(std::string(kv.substr(0, eq)), std::string(kv.substr(eq + 1)));
    }
    return out;
}

int pickFreePort(const std::string& addr) {
    const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return 29500;
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = 0;
    if (::inet_pton(AF_INET, addr.c_str(), &a.sin_addr) != 1)
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    int port = 29500;
    socklen_t len = sizeof a;
    if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
        ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
        port = ntohs(a.sin_port);
    ::close(fd);
    return port;
}

}  // namespace ts::run
