#pragma once
// A PyTorch CUDA memory snapshot (torch.cuda.memory._snapshot() / _dump_snapshot()), read
// into compact columns: interned strings, frames and stacks (each distinct stack once), the
// allocator's segments and their blocks at the time of the snapshot, and each device's
// trace of allocator events (alloc, free_requested, free_completed, segment_alloc,
// segment_free, segment_map, segment_unmap, snapshot, oom). Layouts from PyTorch 1.13 (a
// list of segments whose blocks carry `history`) to 2.x (a dict with `segments`,
// `device_traces`, `allocator_settings`, `external_annotations`). No Qt.
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace ts::memory {

inline constexpr uint32_t kNoStack = 0;  // stack 0 is the empty stack

struct Frame {
    uint32_t filename = 0;  // string ids
    uint32_t name = 0;
    int64_t line = 0;
};

enum class BlockState : uint8_t { ActiveAllocated, ActivePendingFree, Inactive, Unknown };
const char* blockStateName(BlockState s);

struct Block {
    uint64_t address = 0;
    int64_t size = 0;
    int64_t requestedSize = 0;  // the size asked for (== size when the file has none)
    BlockState state = BlockState::Unknown;
    uint32_t stack = kNoStack;  // where it was allocated
};

struct Segment {
    int64_t device = 0;
    uint64_t address = 0;
    int64_t totalSize = 0;
    int64_t allocatedSize = 0;
    int64_t activeSize = 0;
    int64_t requestedSize = 0;
    int64_t stream = 0;
    bool isLarge = false;
    bool isExpandable = false;
    int64_t poolId[2] = {0, 0};  // segment_pool_id (CUDA graph pools); 0,0 = the default pool
    uint32_t stack = kNoStack;
    uint32_t firstBlock = 0;  // blocks [firstBlock, firstBlock + blockCount)
    uint32_t blockCount = 0;
};

enum class Action : uint8_t {
    Alloc,
    FreeRequested,
    FreeCompleted,
    SegmentAlloc,
    SegmentFree,
    SegmentMap,
    SegmentUnmap,
    Snapshot,
    Oom,
    Unknown,
};
const char* actionName(Action a);

struct TraceEvent {
    uint64_t addr = 0;  // device_free for Oom
    int64_t size = 0;
    int64_t stream = 0;
    int64_t timeUs = -1;  // -1: the file has no times (PyTorch 2.0)
    uint32_t stack = kNoStack;
    Action action = Action::Unknown;
};
static_assert(sizeof(TraceEvent) <= 40);

struct Annotation {  // external_annotations: record_function ranges the allocator saw
    uint32_t name = 0;
    bool start = true;
    int64_t device = 0;
    int64_t timeUs = 0;
};

struct Snapshot {
    std::vector<std::string> strings{""};  // string id 0 is ""
    std::vector<Frame> frames;
    std::vector<uint32_t> stackOffsets{0, 0};  // stack i = stackFrames[off[i], off[i+1])
    std::vector<uint32_t> stackFrames;         // frame ids, innermost first (as torch has)
    std::vector<Segment> segments;
    std::vector<Block> blocks;
    std::vector<std::vector<TraceEvent>> devices;  // device_traces, by device index
    std::vector<Annotation> annotations;
    std::vector<std::pair<std::string, std::string>> allocatorSettings;  // flattened, text
    std::string layout;  // "1.13 (list of segments)", "2.0 (no event times)", "2.1+"
    int pickleProtocol = 0;
    std::vector<std::string> notes;  // what was not understood, counted
    size_t treeContainersLeft = 0;   // pickle containers alive when the read ended (the rest
                                     // were taken out as records while the file streamed)
    size_t memoEntries = 0;          // the pickle's memo at the end

    const std::string& str(uint32_t id) const { return strings[id]; }
    size_t stackSize(uint32_t stack) const { return stackOffsets[stack + 1] - stackOffsets[stack]; }
    const Frame& frameAt(uint32_t stack, size_t i) const {
        return frames[stackFrames[stackOffsets[stack] + i]];
    }
    size_t stackCount() const { return stackOffsets.size() - 1; }
    bool hasTimes() const;
    size_t eventCount() const;
};

/// A byte count as memory_viz prints it: "3.4KiB", "100.0MiB", "1.2GiB".
std::string sizeText(int64_t bytes);

/// A frame as memory_viz prints it: "file.py:42:forward".
std::string frameText(const Snapshot& s, const Frame& f, bool fullPath = false);
/// memory_viz's filter: frames of the unwinder, CPython's evaluator and the dispatcher's
/// boxing are noise in a stack shown to a user.
bool frameShown(const Snapshot& s, const Frame& f);
/// The frames of `stack` that frameShown keeps, innermost first.
std::vector<const Frame*> shownFrames(const Snapshot& s, uint32_t stack);
/// The frame that names an allocation's site: the innermost Python frame outside torch's
/// own files (user code); else the innermost Python frame; else the innermost shown frame;
/// nullptr for an empty stack.
const Frame* siteFrame(const Snapshot& s, uint32_t stack);

}  // namespace ts::memory
