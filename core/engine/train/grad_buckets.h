#pragma once
// Gradient buckets of data-parallel training (docs/DISTRIBUTED.md), as PyTorch DDP's: the
// parameters, last first (the order backward finishes them), packed into buckets of at most
// `bucketBytes` (25 MB, DDP's default bucket_cap_mb, unless configured). As soon as every
// gradient of a bucket is final (GradReadyHook) its allreduce starts on this object's comm
// thread while backward goes on; buckets start in bucket order, so every rank issues the same
// collectives in the same order. finish() starts the buckets not started yet, then, bucket by
// bucket, waits for the sum, and copies the mean back into the gradients. The last bucket
// also carries two floats a rank adds to (the stop vote: ranks stopping, ranks failing).
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
#include <thread>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/engine/tensor/tensor.h"

namespace ts::dist {
class ProcessGroup;
}

namespace ts::engine {

class GradBuckets {
public:
    /// `params`: the float32 parameters in the optimizer's order.
    GradBuckets(dist::ProcessGroup& group, std::vector<Tensor> params, int64_t bucketBytes);
    ~GradBuckets();
    GradBuckets(const GradBuckets&) = delete;
    GradBuckets& operator=(const GradBuckets&) = delete;

    size_t buckets() const { return m_buckets.size(); }
    /// The parameters (indexes into `params`) of bucket `b`, in packing order.
    const std::vector<size_t>& bucketParams(size_t b) const { return m_buckets[b].params; }

    /// A new step: no gradient final yet; `vote` goes into the last bucket.
    void beginStep(std::pair<float, float> vote);
    /// Backward's GradReadyHook: `leaf`'s gradient is final. Starts every bucket, in order,
    /// whose gradients all are. Leaves that are not parameters are ignored.
    void ready(const Tensor& leaf);
    /// The collective of one bucket, as the caller runs it in its profile: `wait` waits for
    /// the sum, writes the mean into the gradients and into `flat` (which holds the previous
    /// step's until then); the collective's own duration (on the comm thread) in *commNs.
    using RunBucket = std::function<void(size_t bucket, int64_t bytes, const Tensor& flat,
                                         const std::function<void(int64_t* commNs)>& wait)>;
    /// Starts the buckets not started yet, then calls `run` for each bucket in order; returns
    /// the vote summed over the ranks. Throws what a collective failed with.
    std::pair<float, float> finish(const RunBucket& run);

private:
    struct Bucket {
        std::vector<size_t> params;
        int64_t elements = 0;     // gradient floats (the flat tensor holds 2 more in the last)
        std::vector<float> work;  // what the comm thread sums: only it touches it while started
        Tensor flat;      // the sum as the profile's op shows it, copied from `work` once done
        int pending = 0;  // parameters whose gradients are not final yet this step
        bool done = false;
        std::string error;
        int64_t commNs = 0;
    };
    void launchReady();
    void launch(size_t b);
    void commLoop();

    dist::ProcessGroup& m_group;
    std::vector<Tensor> m_params;
    std::vector<size_t> m_bucketOf;
    std::unordered_map<const TensorImpl*, size_t> m_index;
    std::vector<Bucket> m_buckets;
    std::pair<float, float> m_vote{0, 0};
    size_t m_next = 0;  // the next bucket to start

    std::mutex m_mutex;
    std::condition_variable m_wake, m_done;
    std::deque<size_t> m_queue;
    bool m_quit = false;
    std::thread m_comm;
};

}  // namespace ts::engine
