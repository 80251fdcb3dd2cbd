#pragma once
// Communication per collective, from Kineto's collective arguments (record_param_comms ops
// and, from PyTorch 2.3, the NCCL kernels themselves: "Collective name", "In msg nelems",
// "Out msg nelems", "dtype", "Group size", "Process Group Name"/"Description"). Calls are
// grouped by collective, process group, dtype and message size. Per group: calls, bytes,
// time (the communication kernels' durations), and NCCL tests' bandwidths
// (nccl-tests/doc/PERFORMANCE.md):
//   size   = max(In msg nelems, Out msg nelems) x the dtype's size (AllReduce: the buffer;
//            AllGather: the gathered output; ReduceScatter: the input)
//   algbw  = size / time
//   busbw  = algbw x 2(n-1)/n (AllReduce), x (n-1)/n (AllGather, ReduceScatter, AllToAll),
//            x 1 (Broadcast, Reduce, Send/Recv), n = the group size.
// Communication kernels without collective arguments are counted apart. No Qt.
#include <cstdint>
#include <string>
#include <vector>

#include "core/analysis/gpu/gpu_trace.h"

namespace ts::analysis::gpu {

struct CollectiveStat {
    std::string name;          // Kineto's "Collective name" (allreduce, _allgather_base, ...)
    std::string processGroup;  // "Process Group Name" [+ description]
    std::string dtype;
    int64_t groupSize = -1;
    int64_t bytesPerCall = -1;  // -1 when the dtype's size is unknown
    int64_t calls = 0;
    int64_t bytes = 0;  // bytesPerCall x calls (0 when unknown)
    int64_t timeNs = 0, minNs = 0, maxNs = 0;
    double algbwGBs = 0, busbwGBs = 0;  // 0 when the size is unknown
    double busFactor = 1;
};

struct CommunicationStats {
    std::vector<CollectiveStat> collectives;  // largest time first
    int64_t communicationKernels = 0, communicationNs = 0;
    int64_t kernelsWithoutArgs = 0, nsWithoutArgs = 0;
};

/// Bytes of one element of Kineto's dtype name ("Float", "BFloat16", "c10::Half" ...);
/// 0 when unknown.
int64_t dtypeBytes(std::string_view dtype);
/// NCCL tests' bus bandwidth factor of collective `name` in a group of `n`.
double busBandwidthFactor(std::string_view name, int64_t n);

CommunicationStats computeCommunication(const GpuTrace& g);

}  // namespace ts::analysis::gpu
