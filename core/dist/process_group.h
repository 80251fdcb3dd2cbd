#pragma once
// ProcessGroup: the collectives data-parallel training needs, over an existing library
// (Gloo, docs/DISTRIBUTED.md says why Gloo). Every call is collective: each rank calls it in
// the same order. Errors (a peer gone, a timeout) come back as a Status naming the peer and,
// when it said so before going, why it failed.
#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "core/common/result.h"
#include "core/dist/dist_config.h"

namespace ts::dist {

class ProcessGroup {
public:
    virtual ~ProcessGroup() = default;
    virtual int rank() const = 0;
    virtual int size() const = 0;
    /// In-place sum over the ranks.
    virtual Status allreduceSum(float* data, size_t n) = 0;
    virtual Status allreduceSum(double* data, size_t n) = 0;
    /// Rank `root`'s `data` to every rank.
    virtual Status broadcast(float* data, size_t n, int root) = 0;
    /// Every rank's `n` values, rank by rank, into `out` (n * size()).
    virtual Status allgather(const double* in, size_t n, double* out) = 0;
    virtual Status barrier() = 0;
    /// The allreduce algorithm ("ring", ...), for the profile.
    virtual std::string algorithm() const = 0;
    /// Leaves `reason` where the other ranks look when this rank fails (best effort).
    virtual void reportFailure(const std::string& reason) = 0;
    /// What a failed peer left with reportFailure() ("" when none did).
    virtual std::string peerFailures() = 0;
};

/// Connects this process to the others of `config` (blocks until all are there or the
/// timeout). A world of 1 gets a group whose collectives do nothing.
Result<std::unique_ptr<ProcessGroup>> connectProcessGroup(const DistConfig& config);
/// Whether this build has a collective library (Gloo) for worlds above 1.
bool haveCollectives();

}  // namespace ts::dist
