#pragma once
// Internal: the fixed-size storage of RunningDataRecorder. Plain arrays of POD slots and
// atomics only, so the fatal-signal handler may read them without locks or allocation.
#include <atomic>
#include <cstdint>
#include <memory>

#include "core/debug/rdr/rdr_recorder.h"

namespace ts::rdr {

struct OpSlot {
    int64_t seqid;
    char op[64];
    char scope[256];
    char inputs[256];
    char outputs[192];
};

struct OpRing {
    std::unique_ptr<OpSlot[]> slots;
    std::atomic<uint64_t> count{0};
    std::atomic<int64_t> epoch{-1};
    std::atomic<int64_t> step{-1};
};

enum AllocStatus : int { kAllocLive = 0, kAllocFreed = 1, kAllocFailed = 2 };

struct AllocSlot {
    char name[160];
    uint64_t bytes;
    uint64_t offset;
    int64_t allocNs;
    int64_t freeNs;
    int status;
};

struct LogSlot {
    char line[512];
};

struct RunStateText {
    char text[16384];
};

// Writes the export for a fatal signal (handler side; defined in rdr_signal.cpp).
void rdrSignalExport(RunningDataRecorder& r, int sig);

struct RunningDataRecorder::Slots {
    size_t opCap = 0, allocCap = 0, logCap = 0, irCap = 0;
    OpRing rings[2];
    std::atomic<int> current{0};  // index of the current step's ring
    std::unique_ptr<AllocSlot[]> allocs;
    std::atomic<uint64_t> allocCount{0};
    std::unique_ptr<LogSlot[]> logs;
    std::atomic<uint64_t> logCount{0};
    std::unique_ptr<char[]> ir[2];
    std::atomic<size_t> irLen{0};
    std::atomic<int> irActive{0};
    RunStateText runState[2];
    std::atomic<int> runStateActive{-1};  // -1: never set
    std::atomic<int64_t> epoch{-1}, step{-1};
    std::atomic<uint64_t> poolInUse{0}, poolPeak{0}, poolCapacity{0};
    std::atomic<bool> enabled{false};
    std::atomic<int> mode{1};
    std::atomic<int> rankId{0};
    char exportDir[4096] = {0};
    char detail[2048] = {0};  // error text of the export being written
};

}  // namespace ts::rdr
