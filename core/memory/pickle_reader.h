#pragma once
// PickleReader: a safe reader of Python's pickle format (protocols 0-5) for data files such
// as PyTorch's CUDA memory snapshots. It runs the pickle machine's data opcodes — the
// stack, MARK, the memo, the containers and scalars — and never executes anything: GLOBAL /
// STACK_GLOBAL name only an allow-list of plain-data callables (OrderedDict, set,
// frozenset, bytearray, the codecs of protocol-2 bytes) that REDUCE maps to values; any
// other name, and BUILD, INST, OBJ, NEWOBJ, persistent ids, extensions and out-of-band
// buffers, is a clear error naming the opcode and its byte offset. Bounded: nesting deeper
// than kMaxDepth, a string longer than the input or than kMaxString, a memo index far
// beyond the memo are errors, never allocations. Streaming: a Consumer sees every item
// appended to a list and every value set in a dict as it happens and may take it out of
// the tree (returning a small record, or dropping it), so a multi-gigabyte file needs
// memory for what the consumer keeps. No Qt.
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "core/common/job_control.h"
#include "core/common/result.h"
#include "core/memory/byte_source.h"
#include "core/memory/pickle_value.h"

namespace ts::memory::pickle {

inline constexpr uint32_t kMaxDepth = 200;
inline constexpr uint64_t kMaxString = uint64_t(1) << 30;

class Consumer {
public:
    virtual ~Consumer() = default;
    /// `item` is about to be appended to `list`. Return it or a replacement (e.g. a record;
    /// the reader then also puts the replacement in the memo slot that held `item`), and
    /// set `keep` false to leave the list without it; an error stops the read. The consumer
    /// must not keep `item` (read it now); a node it returns must come from `pool`.
    virtual Result<Value> onListItem(Pool& pool, Value list, Value item, bool& keep) = 0;
    /// `value` is about to be set as dict[key]; same contract.
    virtual Result<Value> onDictItem(Pool& pool, Value dict, Value key, Value value,
                                     bool& keep) = 0;
};

class PickleReader {
public:
    PickleReader(ByteSource& source, Consumer* consumer = nullptr, JobControl* job = nullptr)
        : m_src(source), m_consumer(consumer), m_job(job) {}
    ~PickleReader();
    PickleReader(const PickleReader&) = delete;
    PickleReader& operator=(const PickleReader&) = delete;

    /// Reads up to STOP. The value (owned by pool(), one reference) or an error that names
    /// the byte offset: "byte 1234: ...".
    Result<Value> read();
    Pool& pool() { return m_pool; }
    /// The protocol the PROTO opcode declared (0 when there was none).
    int protocol() const { return m_protocol; }
    /// Memo entries and live nodes at the end, for the benchmark.
    size_t memoSize() const { return m_memo.size() + m_farMemo.size(); }

private:
    Status step(int op);
    Status fail(const std::string& what) const;
    /// Values above the last MARK (all of the stack when there is none).
    size_t above() const { return m_stack.size() - (m_marks.empty() ? 0 : m_marks.back()); }
    Status push(Value v);
    Value pop();
    Status popMark(size_t& markIndex);
    Status need(size_t n, std::string& out);
    Status readText(uint64_t n, Kind k);
    Status pushInt(const std::string& digits, bool isLong);
    Status memoPut(uint64_t index);
    Status memoGet(uint64_t index);
    Status append(Value list, Value item);
    Status setItem(Value dict, Value key, Value value);
    Status attach(Value container, Value child);
    Status reduce();
    Status global(const std::string& module, const std::string& name);

    ByteSource& m_src;
    Consumer* m_consumer;
    JobControl* m_job;
    Pool m_pool;
    std::vector<Value> m_stack;
    std::vector<size_t> m_marks;
    std::vector<Value> m_memo;
    std::unordered_map<uint64_t, Value> m_farMemo;  // indices far beyond m_memo's end
    int m_protocol = 0;
    uint64_t m_opStart = 0;
    std::string m_scratch;
    bool m_done = false;
};

}  // namespace ts::memory::pickle
