#include "core/memory/pickle_value.h"

namespace ts::memory::pickle {

const char* kindName(Kind k) {
    switch (k) {
        case Kind::None:
            return "None";
        case Kind::Bool:
            return "bool";
        case Kind::Int:
            return "int";
        case Kind::Float:
            return "float";
        case Kind::Str:
            return "str";
        case Kind::Bytes:
            return "bytes";
        case Kind::List:
            return "list";
        case Kind::Tuple:
            return "tuple";
        case Kind::Dict:
            return "dict";
        case Kind::Set:
            return "set";
        case Kind::Global:
            return "global";
        case Kind::Mark:
            return "mark";
        case Kind::Ref:
            return "record";
    }
    return "?";
}

Value Pool::make(Kind k) {
    uint32_t i;
    if (!m_free.empty()) {
        i = m_free.back();
        m_free.pop_back();
    } else {
        i = static_cast<uint32_t>(m_nodes.size());
        m_nodes.emplace_back();
    }
    Node& n = m_nodes[i];
    n.kind = k;
    n.refs = 0;
    n.depth = k == Kind::Str || k == Kind::Bytes || k == Kind::Global ? 0 : 1;
    n.memoSlot = -1;
    n.serial = ++m_serial;
    n.text.clear();
    n.items.clear();
    return Value::node(k, i);
}

Value Pool::makeText(Kind k, std::string text) {
    Value v = make(k);
    m_nodes[v.index()].text = std::move(text);
    return v;
}

void Pool::release(Value v) {
    if (!v.isNode()) return;
    m_releasing.push_back(v);
    while (!m_releasing.empty()) {
        const Value cur = m_releasing.back();
        m_releasing.pop_back();
        Node& n = m_nodes[cur.index()];
        if (n.refs == 0 || --n.refs > 0) continue;
        for (const Value& c : n.items)
            if (c.isNode()) m_releasing.push_back(c);
        n.items.clear();
        if (n.text.capacity() > 4096) std::string().swap(n.text);  // keep small buffers only
        n.text.clear();
        if (n.items.capacity() > 4096) std::vector<Value>().swap(n.items);
        n.kind = Kind::None;
        m_free.push_back(cur.index());
    }
}

size_t Pool::liveContainers() const {
    size_t n = 0;
    for (const Node& x : m_nodes)
        n += x.kind == Kind::List || x.kind == Kind::Tuple || x.kind == Kind::Dict ||
             x.kind == Kind::Set;
    return n;
}

Value Pool::dictGet(Value dict, std::string_view key, bool* found) const {
    if (found) *found = false;
    if (dict.kind() != Kind::Dict) return {};
    const auto& items = at(dict).items;
    // The last assignment wins, as in Python.
    for (size_t i = items.size(); i >= 2; i -= 2) {
        const Value k = items[i - 2];
        if (k.kind() == Kind::Str && at(k).text == key) {
            if (found) *found = true;
            return items[i - 1];
        }
    }
    return {};
}

}  // namespace ts::memory::pickle
