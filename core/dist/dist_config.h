#pragma once
// DistConfig: where this process stands in a data-parallel job, read from the variables the
// standard launchers set (docs/DISTRIBUTED.md):
//   PyTorch launchers (torchrun, our --nproc):  RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT
//   Open MPI (mpirun):  OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE;  MPICH/Hydra: PMI_RANK,
//                       PMI_SIZE;  Slurm (srun): SLURM_PROCID, SLURM_NTASKS
//   MindSpore:          RANK_ID, RANK_SIZE (and MS_SCHED_HOST, MS_SCHED_PORT)
// The first family present wins, in that order. The rendezvous (how the processes find each
// other before Gloo connects them) is TRAINSCOPE_RENDEZVOUS (tcp://HOST:PORT, or file:DIR
// on a folder every rank sees), else MASTER_ADDR:MASTER_PORT (or MS_SCHED_HOST:PORT) as a
// TCP store that rank 0 serves; its keys are the job's (jobId), and a rank of another job
// that reaches it is refused (DistConfig::identity()). Pure: the environment comes in as a
// lookup function.
#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "core/common/result.h"

namespace ts::dist {

struct DistConfig {
    int rank = 0;
    int worldSize = 1;
    std::string launcher = "single";  // torch | mpi | slurm | mindspore | single
    std::string rendezvous;           // tcp://host:port | file:/dir ("" when single)
    std::string host;                 // the address peers reach this process at (Gloo's device)
    std::chrono::milliseconds timeout{std::chrono::seconds(300)};  // TRAINSCOPE_DIST_TIMEOUT (s)
    /// The job this process belongs to: TRAINSCOPE_JOB_ID (our launchers set it), else the
    /// launcher's (TORCHELASTIC_RUN_ID, SLURM_JOB_ID, OMPI_MCA_orte_ess_jobid); "" when none.
    std::string jobId;
    /// What the job runs, the same on every rank (set by the caller: the engine's settings).
    std::string signature;
    bool distributed() const { return worldSize > 1; }
    /// "job J, world size N, settings S": what the rendezvous compares (tcp_store.h).
    std::string identity() const;
    /// "rank 1 of 4 (torch, tcp://127.0.0.1:29500)".
    std::string describe() const;
};

using EnvLookup = std::function<std::optional<std::string>(std::string_view)>;

/// The configuration the variables describe. Errors: a rank or size that is not a number, a
/// rank out of [0, size), a size above 1 with no rendezvous (naming the variables to set).
Result<DistConfig> distConfigFromEnv(const EnvLookup& env);
/// The process environment (getenv).
EnvLookup processEnvironment();

/// tcp://host:port -> (host, port); false when `url` is not one.
bool parseTcpUrl(std::string_view url, std::string* host, int* port);

}  // namespace ts::dist
