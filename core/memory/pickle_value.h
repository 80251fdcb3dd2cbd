#pragma once
// The values a pickle is read into: scalars held in a 16-byte Value, strings and containers
// as nodes of a Pool owned by the reader. Nodes are reference-counted so a consumer that
// takes records out of the tree while the file streams (core/memory/snapshot_reader) frees
// their memory at once; the pool is dropped whole at the end, so a pickle that builds a
// cycle (a list holding itself) costs memory until then and never leaks. No Qt.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace ts::memory::pickle {

enum class Kind : uint8_t {
    None,
    Bool,
    Int,
    Float,
    Str,
    Bytes,
    List,
    Tuple,
    Dict,
    Set,
    Global,  // an allowed global (module.name), only as the callable of REDUCE
    Mark,    // the MARK opcode's entry on the stack
    Ref,     // a record a consumer took out of the tree: tag() and ref()
};

/// Kind's name for error messages ("dict", "str", ...).
const char* kindName(Kind k);

/// A pickled value: a scalar, or a handle to a pool node (Str, Bytes, List, Tuple, Dict,
/// Set, Global). Copying a Value does not change reference counts: the Pool's retain /
/// release do, and only the reader calls them.
class Value {
public:
    Value() = default;
    static Value none() { return {}; }
    static Value boolean(bool b) {
        Value v;
        v.m_kind = Kind::Bool;
        v.m_i = b;
        return v;
    }
    static Value integer(int64_t i) {
        Value v;
        v.m_kind = Kind::Int;
        v.m_i = i;
        return v;
    }
    static Value real(double d) {
        Value v;
        v.m_kind = Kind::Float;
        v.m_d = d;
        return v;
    }
    static Value mark() {
        Value v;
        v.m_kind = Kind::Mark;
        return v;
    }
    /// A consumer's record: `tag` says what kind of record, `ref` which.
    static Value record(uint32_t tag, int64_t ref) {
        Value v;
        v.m_kind = Kind::Ref;
        v.m_aux = tag;
        v.m_i = ref;
        return v;
    }
    static Value node(Kind k, uint32_t index) {
        Value v;
        v.m_kind = k;
        v.m_aux = index;
        return v;
    }

    Kind kind() const { return m_kind; }
    bool isNode() const {
        return m_kind == Kind::Str || m_kind == Kind::Bytes || m_kind == Kind::List ||
               m_kind == Kind::Tuple || m_kind == Kind::Dict || m_kind == Kind::Set ||
               m_kind == Kind::Global;
    }
    bool isContainer() const {
        return m_kind == Kind::List || m_kind == Kind::Tuple || m_kind == Kind::Dict ||
               m_kind == Kind::Set;
    }
    uint32_t index() const { return m_aux; }  // node index (isNode)
    uint32_t tag() const { return m_aux; }    // record tag (Ref)
    int64_t ref() const { return m_i; }       // record id (Ref)
    bool asBool() const { return m_i != 0; }
    int64_t asInt() const { return m_i; }
    double asFloat() const { return m_d; }

private:
    Kind m_kind = Kind::None;
    uint32_t m_aux = 0;
    union {
        int64_t m_i = 0;
        double m_d;
    };
};
static_assert(sizeof(Value) == 16);

struct Node {
    Kind kind = Kind::None;
    uint32_t refs = 0;
    uint32_t depth = 0;        // containers: 1 + the deepest child's depth
    int64_t memoSlot = -1;     // the memo slot last holding it (-1: none)
    uint64_t serial = 0;       // unique per node ever made (pool indices are reused)
    std::string text;          // Str (UTF-8), Bytes, Global ("module.name")
    std::vector<Value> items;  // List, Tuple, Set; Dict as key, value, key, value ...
};

/// The nodes of one read. Indices of freed nodes are reused; serials never are.
class Pool {
public:
    Value make(Kind k);
    Value makeText(Kind k, std::string text);
    Node& at(uint32_t i) { return m_nodes[i]; }
    const Node& at(uint32_t i) const { return m_nodes[i]; }
    Node& at(Value v) { return m_nodes[v.index()]; }
    const Node& at(Value v) const { return m_nodes[v.index()]; }

    void retain(Value v) {
        if (v.isNode()) ++m_nodes[v.index()].refs;
    }
    /// Drops one reference; a node left with none is freed, and its children released
    /// without recursion (a deep tree never overflows the C++ stack).
    void release(Value v);

    /// Text of a Str or Bytes value ("" for anything else).
    std::string_view text(Value v) const {
        return v.kind() == Kind::Str || v.kind() == Kind::Bytes ? std::string_view(at(v).text)
                                                                : std::string_view();
    }
    /// The value of `key` in a Dict (keys compared as strings); a None value when absent.
    /// `found` says whether it was there.
    Value dictGet(Value dict, std::string_view key, bool* found = nullptr) const;
    bool dictHas(Value dict, std::string_view key) const {
        bool f = false;
        (void)dictGet(dict, key, &f);
        return f;
    }

    size_t liveNodes() const { return m_nodes.size() - m_free.size(); }
    /// Live lists, tuples, dicts and sets (strings aside).
    size_t liveContainers() const;

private:
    std::vector<Node> m_nodes;
    std::vector<uint32_t> m_free;
    uint64_t m_serial = 0;
    std::vector<Value> m_releasing;  // work list of release()
};

}  // namespace ts::memory::pickle
