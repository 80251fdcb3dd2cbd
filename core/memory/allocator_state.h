#pragma once
// The caching allocator's state of one device after a given event of its trace: its
// segments (cudaMalloc'd memory) and the blocks in them, rebuilt as memory_viz's "Allocator
// State History" does — from the snapshot's segments and blocks, undoing the events after
// the one asked for — with the figures fragmentation is judged by: reserved, allocated
// (bytes asked for), the free bytes left between blocks and the largest free piece of each
// segment. Blocks the undo brings back have the size that was asked for (the trace holds no
// other), so their rounding shows only in the final state. No Qt.
#include <cstdint>
#include <vector>

#include "core/memory/snapshot.h"

namespace ts::memory {

struct StateBlock {
    uint64_t addr = 0;
    int64_t size = 0;
    int64_t requested = 0;
    uint32_t stack = kNoStack;
    bool pendingFree = false;  // freed, waiting for another stream (record_stream)
};

struct StateSegment {
    uint64_t addr = 0;
    int64_t size = 0;
    int64_t stream = 0;
    bool isLarge = false;
    uint32_t stack = kNoStack;
    std::vector<StateBlock> blocks;  // by address
    int64_t used = 0;                // bytes of its blocks
    int64_t allocated = 0;           // bytes asked for by its blocks
    int64_t freeBytes = 0;           // size - used
    int64_t largestFree = 0;         // the largest piece between blocks
};

struct AllocatorState {
    int64_t device = 0;
    int32_t event = -1;  // the state after this event (the last one: the snapshot itself)
    std::vector<StateSegment> segments;  // by address
    int64_t reserved = 0;
    int64_t used = 0;
    int64_t allocated = 0;
    int64_t freeBytes = 0;     // reserved - used: cached, free for reuse
    int64_t largestFree = 0;   // the largest free piece of any segment
    int64_t orphanBlocks = 0;  // blocks no segment holds (a trace that disagrees)
};

/// The state after `event` (-1: before the first; events.size()-1 or more: the snapshot).
AllocatorState allocatorStateAt(const Snapshot& s, int64_t device, int32_t event);

}  // namespace ts::memory
