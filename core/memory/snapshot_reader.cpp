#include "core/memory/snapshot_reader.h"

#include <cstring>
#include <map>
#include <unordered_map>

#include "core/common/saturating_cast.h"
#include "core/memory/byte_source.h"
#include "core/memory/pickle_reader.h"

namespace ts::memory {

using pickle::Kind;
using pickle::Pool;
using pickle::Value;

namespace {

enum Tag : uint32_t { kFrame = 1, kStack = 2, kEvent = 3, kBlock = 4, kSegment = 5 };

int64_t intOf(Value v, int64_t fallback = 0) {
    switch (v.kind()) {
        case Kind::Int:
            return v.asInt();
        case Kind::Bool:
            return v.asBool() ? 1 : 0;
        case Kind::Float: {
            // An address above 2^63 arrives as a double (LONG1 of 9 bytes): keep its bits.
            const double d = v.asFloat();
            if (d >= 9223372036854775808.0 && d < 18446744073709551616.0)
                return static_cast<int64_t>(static_cast<uint64_t>(d));
            return saturatingInt64(d, fallback);
        }
        default:
            return fallback;
    }
}

Action actionOf(std::string_view a) {
    static const std::pair<std::string_view, Action> kActions[] = {
        {"alloc", Action::Alloc},
        {"free_requested", Action::FreeRequested},
        {"free_completed", Action::FreeCompleted},
        {"segment_alloc", Action::SegmentAlloc},
        {"segment_free", Action::SegmentFree},
        {"segment_map", Action::SegmentMap},
        {"segment_unmap", Action::SegmentUnmap},
        {"snapshot", Action::Snapshot},
        {"oom", Action::Oom},
        // PyTorch 2.0 wrote "free" before splitting it into requested / completed.
        {"free", Action::FreeCompleted},
    };
    for (const auto& [name, act] : kActions)
        if (a == name) return act;
    return Action::Unknown;
}

BlockState stateOf(std::string_view s) {
    if (s == "active_allocated") return BlockState::ActiveAllocated;
    if (s == "active_pending_free" || s == "active_awaiting_free")
        return BlockState::ActivePendingFree;
    if (s == "inactive") return BlockState::Inactive;
    return BlockState::Unknown;
}

/// The consumer: turns frames, stacks, events, blocks and segments into records as the
/// pickle streams, and assembles the Snapshot at the end.
class SnapshotBuilder : public pickle::Consumer {
public:
    explicit SnapshotBuilder(Snapshot& s) : m_s(s) {}

    Result<Value> onListItem(Pool& pool, Value list, Value item, bool& keep) override {
        if (item.kind() != Kind::Dict) return item;
        const uint64_t serial = pool.at(list).serial;
        if (pool.dictHas(item, "filename") && pool.dictHas(item, "line"))
            return Value::record(kFrame, frameOf(pool, item));
        if (pool.dictHas(item, "action")) {
            m_events[serial].push_back(eventOf(pool, item));
            keep = false;
            return Value::record(kEvent, 0);
        }
        if (pool.dictHas(item, "state") && pool.dictHas(item, "size")) {
            m_blocks[serial].push_back(blockOf(pool, item));
            keep = false;
            return Value::record(kBlock, 0);
        }
        if (isSegment(pool, item)) {
            auto seg = segmentOf(pool, item);
            if (!seg) return Error{seg.error()};
            m_segments[serial].push_back(seg.value());
            keep = false;
            return Value::record(kSegment, 0);
        }
        return item;
    }

    Result<Value> onDictItem(Pool& pool, Value, Value key, Value value, bool&) override {
        if (value.kind() == Kind::List && key.kind() == Kind::Str && pool.text(key) == "frames")
            return Value::record(kStack, stackOf(pool, value));
        return value;
    }

    Status finish(Pool& pool, Value top) {
        if (top.kind() == Kind::List) {
            m_s.layout = "1.13 (a list of segments)";
            return collectSegments(pool, top);
        }
        if (top.kind() != Kind::Dict)
            return Error{std::string("not a memory snapshot: the pickle holds a ") +
                         pickle::kindName(top.kind()) + ", not a dict of segments"};
        bool hasSegments = false, hasTraces = false;
        const Value segments = pool.dictGet(top, "segments", &hasSegments);
        const Value traces = pool.dictGet(top, "device_traces", &hasTraces);
        if (!hasSegments && !hasTraces) {
            std::string keys;
            const auto& items = pool.at(top).items;
            for (size_t i = 0; i < items.size() && i < 16; i += 2)
                if (items[i].kind() == Kind::Str)
                    keys += (keys.empty() ? "" : ", ") + std::string(pool.text(items[i]));
            return Error{"not a memory snapshot: a dict without 'segments' or 'device_traces'" +
                         (keys.empty() ? std::string() : " (its keys: " + keys + ")")};
        }
        if (hasSegments)
            if (auto st = collectSegments(pool, segments); !st) return st;
        if (hasTraces) {
            if (traces.kind() != Kind::List) return Error{"'device_traces' is not a list"};
            for (Value t : pool.at(traces).items) {
                m_s.devices.emplace_back();
                if (t.kind() != Kind::List) {
                    note("a device trace that is not a list");
                    continue;
                }
                collectEvents(pool, t, m_s.devices.back());
            }
        }
        for (const auto& [serial, evs] : m_events)
            if (!evs.empty()) note("trace events outside 'device_traces'", evs.size());
        m_s.layout = !hasTraces       ? "2.x (segments only)"
                     : m_s.hasTimes() ? "2.1+"
                                      : "2.0 (no event times)";
        bool found = false;
        const Value settings = pool.dictGet(top, "allocator_settings", &found);
        if (found) flattenSettings(pool, settings, "");
        const Value ann = pool.dictGet(top, "external_annotations", &found);
        if (found && ann.kind() == Kind::List)
            for (Value a : pool.at(ann).items) {
                if (a.kind() != Kind::Dict) continue;
                Annotation x;
                x.name = intern(pool.text(pool.dictGet(a, "name")));
                x.start = pool.text(pool.dictGet(a, "stage")) != "END";
                x.device = intOf(pool.dictGet(a, "device"));
                x.timeUs = intOf(pool.dictGet(a, "time_us"), -1);
                m_s.annotations.push_back(x);
            }
        return {};
    }

private:
    void note(const std::string& what, size_t n = 1) { m_notes[what] += n; }
    /// Sizes outside 0..1 TiB (no allocation or segment of any GPU is larger) read as 0, so
    /// that no sum of a crafted file overflows.
    int64_t sizeOf(Value v) {
        const int64_t n = intOf(v);
        if (n >= 0 && n <= kMaxSize) return n;
        note("sizes outside 0 to 1 TiB, read as 0");
        return 0;
    }
    static constexpr int64_t kMaxSize = int64_t(1) << 40;

public:
    void writeNotes() {
        for (const auto& [what, n] : m_notes) m_s.notes.push_back(std::to_string(n) + " x " + what);
    }

private:
    uint32_t intern(std::string_view s) {
        auto it = m_strings.find(std::string(s));
        if (it != m_strings.end()) return it->second;
        const auto id = static_cast<uint32_t>(m_s.strings.size());
        m_s.strings.emplace_back(s);
        m_strings.emplace(m_s.strings.back(), id);
        return id;
    }

    int64_t frameOf(Pool& pool, Value d) {
        Frame f;
        f.filename = intern(pool.text(pool.dictGet(d, "filename")));
        f.name = intern(pool.text(pool.dictGet(d, "name")));
        f.line = intOf(pool.dictGet(d, "line"));
        const std::string key = std::to_string(f.filename) + ':' + std::to_string(f.name) + ':' +
                                std::to_string(f.line);
        auto it = m_frames.find(key);
        if (it != m_frames.end()) return it->second;
        const auto id = static_cast<uint32_t>(m_s.frames.size());
        m_s.frames.push_back(f);
        m_frames.emplace(key, id);
        return id;
    }

    int64_t stackOf(Pool& pool, Value list) {
        std::string key;
        for (Value v : pool.at(list).items) {
            uint32_t id;
            if (v.kind() == Kind::Ref && v.tag() == kFrame)
                id = static_cast<uint32_t>(v.ref());
            else if (v.kind() == Kind::Dict)
                id = static_cast<uint32_t>(frameOf(pool, v));
            else
                continue;
            key.append(reinterpret_cast<const char*>(&id), sizeof id);
        }
        if (key.empty()) return kNoStack;
        auto it = m_stacks.find(key);
        if (it != m_stacks.end()) return it->second;
        const auto id = static_cast<uint32_t>(m_s.stackOffsets.size() - 1);
        for (size_t i = 0; i < key.size(); i += sizeof(uint32_t)) {
            uint32_t f;
            std::memcpy(&f, key.data() + i, sizeof f);
            m_s.stackFrames.push_back(f);
        }
        m_s.stackOffsets.push_back(static_cast<uint32_t>(m_s.stackFrames.size()));
        m_stacks.emplace(std::move(key), id);
        return id;
    }

    uint32_t stackIn(Pool& pool, Value dict) {
        const Value f = pool.dictGet(dict, "frames");
        if (f.kind() == Kind::Ref && f.tag() == kStack) return static_cast<uint32_t>(f.ref());
        if (f.kind() == Kind::List) return static_cast<uint32_t>(stackOf(pool, f));
        return kNoStack;
    }

    TraceEvent eventOf(Pool& pool, Value d) {
        TraceEvent e;
        const std::string_view a = pool.text(pool.dictGet(d, "action"));
        e.action = actionOf(a);
        if (e.action == Action::Unknown)
            note("events of an unknown action '" + std::string(a) + "'");
        e.addr = static_cast<uint64_t>(
            intOf(pool.dictGet(d, e.action == Action::Oom ? "device_free" : "addr")));
        e.size = sizeOf(pool.dictGet(d, "size"));
        e.stream = intOf(pool.dictGet(d, "stream"));
        e.timeUs = intOf(pool.dictGet(d, "time_us"), -1);
        e.stack = stackIn(pool, d);
        return e;
    }

    static bool hasRequestedKey(Pool& pool, Value d, bool& has) {
        has = pool.dictHas(d, "requested_size");
        return has;
    }

    Block blockOf(Pool& pool, Value d) {
        Block b;
        bool hasAddress = false;
        b.address = static_cast<uint64_t>(intOf(pool.dictGet(d, "address", &hasAddress)));
        if (!hasAddress) b.address = UINT64_MAX;  // set from the segment's address
        b.size = sizeOf(pool.dictGet(d, "size"));
        b.state = stateOf(pool.text(pool.dictGet(d, "state")));
        if (b.state == BlockState::Unknown) note("blocks of an unknown state");
        bool hasRequested = false;
        b.requestedSize = hasRequestedKey(pool, d, hasRequested)
                              ? sizeOf(pool.dictGet(d, "requested_size"))
                              : b.size;
        b.stack = stackIn(pool, d);
        // PyTorch 1.13 / 2.0: the allocation's frames and size are in history[0].
        bool hasHistory = false;
        const Value h = pool.dictGet(d, "history", &hasHistory);
        if (hasHistory && h.kind() == Kind::List && !pool.at(h).items.empty()) {
            const Value first = pool.at(h).items.front();
            if (first.kind() == Kind::Dict) {
                if (b.stack == kNoStack) b.stack = stackIn(pool, first);
                if (!hasRequested)
                    b.requestedSize = intOf(pool.dictGet(first, "real_size"), b.size);
            }
        }
        return b;
    }

    static bool isSegment(Pool& pool, Value d) {
        return pool.dictHas(d, "blocks") ||
               (pool.dictHas(d, "total_size") && pool.dictHas(d, "address"));
    }

    Result<Segment> segmentOf(Pool& pool, Value d) {
        Segment g;
        g.device = intOf(pool.dictGet(d, "device"));
        g.address = static_cast<uint64_t>(intOf(pool.dictGet(d, "address")));
        g.totalSize = sizeOf(pool.dictGet(d, "total_size"));
        g.allocatedSize = sizeOf(pool.dictGet(d, "allocated_size"));
        g.activeSize = sizeOf(pool.dictGet(d, "active_size"));
        g.requestedSize = sizeOf(pool.dictGet(d, "requested_size"));
        g.stream = intOf(pool.dictGet(d, "stream"));
        g.isLarge = pool.text(pool.dictGet(d, "segment_type")) == "large";
        g.isExpandable = intOf(pool.dictGet(d, "is_expandable")) != 0;
        const Value pid = pool.dictGet(d, "segment_pool_id");
        if (pid.kind() == Kind::Tuple || pid.kind() == Kind::List) {
            const auto& it = pool.at(pid).items;
            for (size_t i = 0; i < 2 && i < it.size(); ++i) g.poolId[i] = intOf(it[i]);
        }
        g.stack = stackIn(pool, d);
        g.firstBlock = static_cast<uint32_t>(m_s.blocks.size());
        const Value bl = pool.dictGet(d, "blocks");
        if (bl.kind() == Kind::List) {
            auto it = m_blocks.find(pool.at(bl).serial);
            if (it != m_blocks.end()) {
                m_s.blocks.insert(m_s.blocks.end(), it->second.begin(), it->second.end());
                m_blocks.erase(it);
            }
            for (Value b : pool.at(bl).items)
                if (b.kind() == Kind::Dict) m_s.blocks.push_back(blockOf(pool, b));
        }
        g.blockCount = static_cast<uint32_t>(m_s.blocks.size() - g.firstBlock);
        uint64_t addr = g.address;
        for (uint32_t i = g.firstBlock; i < m_s.blocks.size(); ++i) {
            Block& b = m_s.blocks[i];
            if (b.address == UINT64_MAX) b.address = addr;  // 1.13 blocks have no address
            addr = b.address + static_cast<uint64_t>(b.size);
        }
        return g;
    }

    Status collectSegments(Pool& pool, Value list) {
        if (list.kind() != Kind::List) return Error{"'segments' is not a list"};
        auto it = m_segments.find(pool.at(list).serial);
        if (it != m_segments.end()) {
            m_s.segments = std::move(it->second);
            m_segments.erase(it);
        }
        for (Value v : pool.at(list).items) {
            if (v.kind() != Kind::Dict || !isSegment(pool, v)) {
                note("entries of 'segments' that are not segments");
                continue;
            }
            auto g = segmentOf(pool, v);
            if (!g) return Error{g.error()};
            m_s.segments.push_back(g.value());
        }
        for (const auto& [serial, segs] : m_segments)
            if (!segs.empty()) note("segments outside 'segments'", segs.size());
        return {};
    }

    void collectEvents(Pool& pool, Value list, std::vector<TraceEvent>& out) {
        auto it = m_events.find(pool.at(list).serial);
        if (it != m_events.end()) {
            out = std::move(it->second);
            m_events.erase(it);
        }
        for (Value v : pool.at(list).items)
            if (v.kind() == Kind::Dict && pool.dictHas(v, "action"))
                out.push_back(eventOf(pool, v));
    }

    void flattenSettings(Pool& pool, Value v, const std::string& prefix) {
        if (v.kind() == Kind::Dict) {
            const auto items = pool.at(v).items;  // copy: no pool growth below, but be safe
            for (size_t i = 0; i + 1 < items.size(); i += 2) {
                std::string key(pool.text(items[i]));
                if (items[i].kind() == Kind::Int) key = std::to_string(items[i].asInt());
                flattenSettings(pool, items[i + 1], prefix.empty() ? key : prefix + "." + key);
            }
            return;
        }
        if (prefix.empty() || m_s.allocatorSettings.size() > 1000) return;
        std::string text;
        switch (v.kind()) {
            case Kind::Str:
                text = pool.text(v);
                break;
            case Kind::Bool:
                text = v.asBool() ? "true" : "false";
                break;
            case Kind::Int:
                text = std::to_string(v.asInt());
                break;
            case Kind::Float:
                text = std::to_string(v.asFloat());
                break;
            case Kind::None:
                text = "None";
                break;
            default:
                text = pickle::kindName(v.kind());
        }
        m_s.allocatorSettings.emplace_back(prefix, std::move(text));
    }

    Snapshot& m_s;
    std::unordered_map<std::string, uint32_t> m_strings;
    std::unordered_map<std::string, uint32_t> m_frames;
    std::unordered_map<std::string, uint32_t> m_stacks;
    std::unordered_map<uint64_t, std::vector<TraceEvent>> m_events;  // by list serial
    std::unordered_map<uint64_t, std::vector<Block>> m_blocks;
    std::unordered_map<uint64_t, std::vector<Segment>> m_segments;
    std::map<std::string, size_t> m_notes;
};

Result<Snapshot> readFrom(ByteSource& src, JobControl* job) {
    Snapshot s;
    SnapshotBuilder builder(s);
    pickle::PickleReader reader(src, &builder, job);
    auto top = reader.read();
    if (!top) return Error{top.error()};
    s.pickleProtocol = reader.protocol();
    s.treeContainersLeft = reader.pool().liveContainers();
    s.memoEntries = reader.memoSize();
    if (auto st = builder.finish(reader.pool(), top.value()); !st) return Error{st.error()};
    builder.writeNotes();
    if (job) job->setDone(src.offset());
    return s;
}

}  // namespace

Result<Snapshot> readSnapshot(const std::string& path, JobControl* job) {
    auto src = openFileSource(path);
    if (!src) return Error{src.error()};
    auto r = readFrom(*src.value(), job);
    if (!r) return Error{path + ": " + r.error()};
    return r;
}

Result<Snapshot> readSnapshotBytes(std::string_view bytes, JobControl* job) {
    auto src = memorySource(bytes);
    return readFrom(*src, job);
}

bool looksLikeSnapshotPickle(std::string_view head) {
    if (head.size() < 4) return false;
    const auto b0 = static_cast<unsigned char>(head[0]);
    const bool pickled = (b0 == 0x80 && static_cast<unsigned char>(head[1]) >= 2 &&
                          static_cast<unsigned char>(head[1]) <= 5) ||
                         head.substr(0, 2) == "(l" || head.substr(0, 2) == "(d" ||
                         head.substr(0, 1) == "}" || head.substr(0, 1) == "]";
    if (!pickled) return false;
    for (std::string_view key : {"segments", "device_traces", "total_size", "segment_type"})
        if (head.find(key) != std::string_view::npos) return true;
    return false;
}

}  // namespace ts::memory
