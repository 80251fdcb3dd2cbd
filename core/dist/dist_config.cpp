#include "core/dist/dist_config.h"

#include <unistd.h>

#include <charconv>
#include <cstdlib>

namespace ts::dist {
namespace {

std::optional<int64_t> toInt(const std::string& s) {
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (s.empty() || ec != std::errc() || p != s.data() + s.size()) return std::nullopt;
    return v;
}

std::string nonEmpty(const EnvLookup& env, std::string_view name) {
    auto v = env(name);
    return v ? *v : std::string();
}

bool isLoopback(const std::string& host) {
    return host == "localhost" || host.rfind("127.", 0) == 0 || host == "::1";
}

}  // namespace

std::string DistConfig::describe() const {
    std::string s =
        "rank " + std::to_string(rank) + " of " + std::to_string(worldSize) + " (" + launcher;
    if (!rendezvous.empty()) s += ", " + rendezvous;
    return s + ")";
}

std::string DistConfig::identity() const {
    return "job " + (jobId.empty() ? std::string("(no id)") : jobId) + ", world size " +
           std::to_string(worldSize) + ", settings " +
           (signature.empty() ? std::string("(none)") : signature);
}

bool parseTcpUrl(std::string_view url, std::string* host, int* port) {
    if (!url.starts_with("tcp://")) return false;
    url.remove_prefix(6);
    const size_t colon = url.rfind(':');
    if (colon == std::string_view::npos || colon == 0) return false;
    int p = 0;
    const std::string_view ps = url.substr(colon + 1);
    auto [end, ec] = std::from_chars(ps.data(), ps.data() + ps.size(), p);
    if (ec != std::errc() || end != ps.data() + ps.size() || p <= 0 || p > 65535) return false;
    if (host) *host = std::string(url.substr(0, colon));
    if (port) *port = p;
    return true;
}

EnvLookup processEnvironment() {
    return [](std::string_view name) -> std::optional<std::string> {
        const char* v = std::getenv(std::string(name).c_str());
        if (!v || !*v) return std::nullopt;
        return std::string(v);
    };
}

Result<DistConfig> distConfigFromEnv(const EnvLookup& env) {
    struct Family {
        const char* launcher;
        const char* rank;
        const char* size;
    };
    static const Family kFamilies[] = {{"torch", "RANK", "WORLD_SIZE"},
                                       {"mpi", "OMPI_COMM_WORLD_RANK", "OMPI_COMM_WORLD_SIZE"},
                                       {"mpi", "PMI_RANK", "PMI_SIZE"},
                                       {"slurm", "SLURM_PROCID", "SLURM_NTASKS"},
                                       {"mindspore", "RANK_ID", "RANK_SIZE"}};
    DistConfig c;
    for (const Family& f : kFamilies) {
        const std::string r = nonEmpty(env, f.rank), n = nonEmpty(env, f.size);
        if (n.empty()) continue;  // a rank alone (RANK_ID for the crash recorder) is no job
        const auto rank = toInt(r.empty() ? "0" : r);
        const auto size = toInt(n.empty() ? "1" : n);
        if (!rank) return Error{std::string(f.rank) + "='" + r + "' is not a rank"};
        if (!size || *size < 1 || *size > 65536)
            return Error{std::string(f.size) + "='" + n + "' is not a world size"};
        if (*rank < 0 || *rank >= *size)
            return Error{std::string(f.rank) + "=" + r + " is outside the world of " + n +
                         " processes"};
        c.rank = static_cast<int>(*rank);
        c.worldSize = static_cast<int>(*size);
        c.launcher = f.launcher;
        break;
    }
    if (auto t = env("TRAINSCOPE_DIST_TIMEOUT")) {
        const auto s = toInt(*t);
        if (!s || *s < 1)
            return Error{"TRAINSCOPE_DIST_TIMEOUT='" + *t + "' is not a number of seconds"};
        c.timeout = std::chrono::seconds(*s);
    }
    if (!c.distributed()) return c;
    for (const char* var :
         {"TRAINSCOPE_JOB_ID", "TORCHELASTIC_RUN_ID", "SLURM_JOB_ID", "OMPI_MCA_orte_ess_jobid"})
        if (auto id = env(var)) {
            c.jobId = *id;
            break;
        }
    std::string masterHost;
    if (auto r = env("TRAINSCOPE_RENDEZVOUS")) {
        c.rendezvous = *r;
        if (!c.rendezvous.starts_with("file:") && !parseTcpUrl(c.rendezvous, &masterHost, nullptr))
            return Error{"TRAINSCOPE_RENDEZVOUS='" + *r +
                         "': expected tcp://HOST:PORT or file:/DIR"};
    } else {
        std::string addr = nonEmpty(env, "MASTER_ADDR"), port = nonEmpty(env, "MASTER_PORT");
        if (addr.empty() && port.empty()) {
            addr = nonEmpty(env, "MS_SCHED_HOST");
            port = nonEmpty(env, "MS_SCHED_PORT");
        }
        if (addr.empty() || port.empty())
            return Error{
                "world size " + std::to_string(c.worldSize) +
                " but nowhere to meet: set MASTER_ADDR and MASTER_PORT (rank 0's host and a "
                "free port), or TRAINSCOPE_RENDEZVOUS=file:/a/folder/every/rank/sees"};
        c.rendezvous = "tcp://" + addr + ":" + port;
        int p = 0;
        if (!parseTcpUrl(c.rendezvous, &masterHost, &p))
            return Error{"MASTER_PORT='" + port + "' is not a port"};
    }
    if (auto h = env("TRAINSCOPE_DIST_HOST")) {
        c.host = *h;
    } else if (isLoopback(masterHost)) {
        c.host = "127.0.0.1";  // a job on this machine: keep it on loopback
    } else {
        char name[256] = {};
        ::gethostname(name, sizeof name - 1);
        c.host = name;
    }
    return c;
}

}  // namespace ts::dist
