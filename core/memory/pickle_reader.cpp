#include "core/memory/pickle_reader.h"

#include <charconv>
#include <cmath>
#include <cstring>

#include "core/memory/pickle_text.h"

namespace ts::memory::pickle {

namespace {

enum Op : int {
    MARK = '(',
    STOP = '.',
    POP = '0',
    POP_MARK = '1',
    DUP = '2',
    FLOAT = 'F',
    INT = 'I',
    BININT = 'J',
    BININT1 = 'K',
    LONG = 'L',
    BININT2 = 'M',
    NONE = 'N',
    PERSID = 'P',
    BINPERSID = 'Q',
    REDUCE = 'R',
    STRING = 'S',
    BINSTRING = 'T',
    SHORT_BINSTRING = 'U',
    UNICODE = 'V',
    BINUNICODE = 'X',
    APPEND = 'a',
    BUILD = 'b',
    GLOBAL = 'c',
    DICT = 'd',
    EMPTY_DICT = '}',
    APPENDS = 'e',
    GET = 'g',
    BINGET = 'h',
    INST = 'i',
    LONG_BINGET = 'j',
    LIST = 'l',
    EMPTY_LIST = ']',
    OBJ = 'o',
    PUT = 'p',
    BINPUT = 'q',
    LONG_BINPUT = 'r',
    SETITEM = 's',
    TUPLE = 't',
    EMPTY_TUPLE = ')',
    SETITEMS = 'u',
    BINFLOAT = 'G',
    BINBYTES = 'B',
    SHORT_BINBYTES = 'C',
    PROTO = 0x80,
    NEWOBJ = 0x81,
    EXT1 = 0x82,
    EXT2 = 0x83,
    EXT4 = 0x84,
    TUPLE1 = 0x85,
    TUPLE2 = 0x86,
    TUPLE3 = 0x87,
    NEWTRUE = 0x88,
    NEWFALSE = 0x89,
    LONG1 = 0x8a,
    LONG4 = 0x8b,
    SHORT_BINUNICODE = 0x8c,
    BINUNICODE8 = 0x8d,
    BINBYTES8 = 0x8e,
    EMPTY_SET = 0x8f,
    ADDITEMS = 0x90,
    FROZENSET = 0x91,
    NEWOBJ_EX = 0x92,
    STACK_GLOBAL = 0x93,
    MEMOIZE = 0x94,
    FRAME = 0x95,
    BYTEARRAY8 = 0x96,
    NEXT_BUFFER = 0x97,
    READONLY_BUFFER = 0x98,
};

/// Opcodes that build objects or fetch outside data: refused with their name.
const char* refusedName(int op) {
    switch (op) {
        case BUILD:
            return "BUILD (sets an object's state)";
        case INST:
            return "INST (makes an object of a class)";
        case OBJ:
            return "OBJ (makes an object of a class)";
        case NEWOBJ:
            return "NEWOBJ (makes an object of a class)";
        case NEWOBJ_EX:
            return "NEWOBJ_EX (makes an object of a class)";
        case PERSID:
            return "PERSID (a persistent id: data outside the file)";
        case BINPERSID:
            return "BINPERSID (a persistent id: data outside the file)";
        case EXT1:
        case EXT2:
        case EXT4:
            return "EXT (a registered extension class)";
        case NEXT_BUFFER:
            return "NEXT_BUFFER (an out-of-band buffer)";
        case READONLY_BUFFER:
            return "READONLY_BUFFER (an out-of-band buffer)";
        default:
            return nullptr;
    }
}

uint64_t le(const std::string& b, size_t n) {
    uint64_t v = 0;
    for (size_t i = 0; i < n; ++i) v |= uint64_t(static_cast<unsigned char>(b[i])) << (8 * i);
    return v;
}

bool sameValue(Value a, Value b) {
    if (a.kind() != b.kind()) return false;
    if (a.isNode()) return a.index() == b.index();
    if (a.kind() == Kind::Ref) return a.tag() == b.tag() && a.ref() == b.ref();
    return a.asInt() == b.asInt();
}

}  // namespace

PickleReader::~PickleReader() = default;  // the pool goes whole, cycles included

Status PickleReader::fail(const std::string& what) const {
    return Error{"byte " + std::to_string(m_opStart) + ": " + what};
}

Status PickleReader::push(Value v) {
    m_pool.retain(v);
    m_stack.push_back(v);
    return {};
}

Value PickleReader::pop() {
    const Value v = m_stack.back();
    m_stack.pop_back();
    return v;  // the caller owns its reference
}

Status PickleReader::popMark(size_t& markIndex) {
    if (m_marks.empty()) return fail("an opcode needs a MARK and there is none");
    markIndex = m_marks.back();
    m_marks.pop_back();
    if (markIndex > m_stack.size()) return fail("the stack lost the items above a MARK");
    return {};
}

Status PickleReader::need(size_t n, std::string& out) {
    out.clear();
    if (!m_src.read(n, out)) {
        if (!m_src.error().empty()) return fail(m_src.error());
        return fail("the file ends inside an opcode (truncated)");
    }
    return {};
}

Status PickleReader::readText(uint64_t n, Kind k) {
    // k == Kind::None: a Python 2 str (STRING opcodes): text when it is UTF-8, else bytes.
    if (n > kMaxString) return fail("a string of " + std::to_string(n) + " bytes (over 1 GiB)");
    if (m_src.size() && n > m_src.size() - m_src.offset())
        return fail("a string of " + std::to_string(n) +
                    " bytes, longer than the rest of the file");
    std::string text;
    if (auto st = need(static_cast<size_t>(n), text); !st) return st;
    if (k == Kind::Str && !validUtf8(text)) return fail("a str that is not UTF-8");
    if (k == Kind::None) k = validUtf8(text) ? Kind::Str : Kind::Bytes;
    return push(m_pool.makeText(k, std::move(text)));
}

Status PickleReader::pushInt(const std::string& digits, bool isLong) {
    std::string_view s = digits;
    if (isLong && !s.empty() && s.back() == 'L') s.remove_suffix(1);
    if (!isLong && s == "00") return push(Value::boolean(false));
    if (!isLong && s == "01") return push(Value::boolean(true));
    int64_t v = 0;
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    if (ec == std::errc::result_out_of_range) {
        double d = 0;
        auto [pd, ecd] = std::from_chars(s.data(), s.data() + s.size(), d);
        if (ecd != std::errc() || pd != s.data() + s.size()) return fail("a bad integer");
        return push(Value::real(d));
    }
    if (ec != std::errc() || p != s.data() + s.size())
        return fail("a bad integer '" + digits + "'");
    return push(Value::integer(v));
}

Status PickleReader::memoPut(uint64_t index) {
    if (m_stack.empty()) return fail("PUT with an empty stack");
    if (above() == 0) return fail("PUT with no value above the last MARK");
    const Value v = m_stack.back();
    m_pool.retain(v);
    Value* slot = nullptr;
    if (index < m_memo.size()) {
        slot = &m_memo[index];
    } else if (index < m_memo.size() + 65536) {
        m_memo.resize(index + 1, Value::mark());  // Mark: a slot never set
        slot = &m_memo[index];
    } else {
        slot = &m_farMemo[index];
    }
    m_pool.release(*slot);
    *slot = v;
    if (v.isNode()) m_pool.at(v).memoSlot = static_cast<int64_t>(index);
    return {};
}

Status PickleReader::memoGet(uint64_t index) {
    if (index < m_memo.size() && m_memo[index].kind() != Kind::Mark) return push(m_memo[index]);
    auto it = m_farMemo.find(index);
    if (it == m_farMemo.end())
        return fail("memo entry " + std::to_string(index) + " was never set");
    return push(it->second);
}

Status PickleReader::attach(Value container, Value child) {
    if (!child.isNode() || child.kind() == Kind::Str || child.kind() == Kind::Bytes) return {};
    Node& c = m_pool.at(container);
    const uint32_t d = m_pool.at(child).depth + 1;
    if (d > c.depth) c.depth = d;
    if (c.depth > kMaxDepth)
        return fail("containers nested deeper than " + std::to_string(kMaxDepth));
    return {};
}

Status PickleReader::append(Value list, Value item) {
    // `item` carries one reference (popped off the stack).
    if (list.kind() != Kind::List && list.kind() != Kind::Set) {
        m_pool.release(item);
        return fail(std::string("APPEND to a ") + kindName(list.kind()) + ", not a list");
    }
    Value put = item;
    bool keep = true;
    if (m_consumer && list.kind() == Kind::List) {
        auto r = m_consumer->onListItem(m_pool, list, item, keep);
        if (!r) {
            m_pool.release(item);
            return fail(r.error());
        }
        put = r.value();
    }
    if (!sameValue(put, item)) {
        // The consumer took `item` out: the memo slot that held it now holds the record.
        if (item.isNode()) {
            const int64_t slot = m_pool.at(item).memoSlot;
            Value* s = nullptr;
            if (slot >= 0 && static_cast<uint64_t>(slot) < m_memo.size())
                s = &m_memo[static_cast<size_t>(slot)];
            else if (slot >= 0)
                if (auto it = m_farMemo.find(static_cast<uint64_t>(slot)); it != m_farMemo.end())
                    s = &it->second;
            if (s && sameValue(*s, item)) {
                m_pool.retain(put);
                m_pool.release(*s);
                *s = put;
            }
        }
        m_pool.retain(put);
        m_pool.release(item);
    }
    if (!keep) {
        m_pool.release(put);
        return {};
    }
    if (auto st = attach(list, put); !st) {
        m_pool.release(put);
        return st;
    }
    m_pool.at(list).items.push_back(put);
    return {};
}

Status PickleReader::setItem(Value dict, Value key, Value value) {
    if (dict.kind() != Kind::Dict) {
        m_pool.release(key);
        m_pool.release(value);
        return fail(std::string("SETITEM on a ") + kindName(dict.kind()) + ", not a dict");
    }
    Value put = value;
    bool keep = true;
    if (m_consumer) {
        auto r = m_consumer->onDictItem(m_pool, dict, key, value, keep);
        if (!r) {
            m_pool.release(key);
            m_pool.release(value);
            return fail(r.error());
        }
        put = r.value();
    }
    if (!sameValue(put, value)) {
        if (value.isNode()) {
            const int64_t slot = m_pool.at(value).memoSlot;
            if (slot >= 0 && static_cast<uint64_t>(slot) < m_memo.size() &&
                sameValue(m_memo[static_cast<size_t>(slot)], value)) {
                m_pool.retain(put);
                m_pool.release(m_memo[static_cast<size_t>(slot)]);
                m_memo[static_cast<size_t>(slot)] = put;
            }
        }
        m_pool.retain(put);
        m_pool.release(value);
    }
    if (!keep) {
        m_pool.release(key);
        m_pool.release(put);
        return {};
    }
    if (auto st = attach(dict, put); !st) {
        m_pool.release(key);
        m_pool.release(put);
        return st;
    }
    auto& items = m_pool.at(dict).items;
    items.push_back(key);
    items.push_back(put);
    return {};
}

Status PickleReader::global(const std::string& module, const std::string& name) {
    const bool builtins = module == "builtins" || module == "__builtin__";
    const bool allowed = (module == "collections" && name == "OrderedDict") ||
                         (builtins && (name == "set" || name == "frozenset" ||
                                       name == "bytearray" || name == "bytes")) ||
                         (module == "_codecs" && name == "encode");
    if (!allowed)
        return fail("the pickle refers to " + module + "." + name +
                    ", which is not plain data; a memory snapshot never holds it and a pickle "
                    "can run code through it, so it is refused");
    return push(m_pool.makeText(Kind::Global, module + "." + name));
}

Status PickleReader::reduce() {
    if (above() < 2) return fail("REDUCE needs a callable and its arguments");
    const Value args = pop();
    const Value fn = pop();
    auto done = [&](Status st) {
        m_pool.release(args);
        m_pool.release(fn);
        return st;
    };
    if (fn.kind() != Kind::Global) return done(fail("REDUCE of something not callable"));
    if (args.kind() != Kind::Tuple) return done(fail("REDUCE with arguments that are not a tuple"));
    const std::string callee = m_pool.at(fn).text;
    const std::vector<Value> a = m_pool.at(args).items;  // copy: the pool may grow below
    const std::string g = callee.substr(callee.find('.') + 1);
    if (g == "OrderedDict") {
        if (!a.empty()) return done(fail("OrderedDict(...) with arguments"));
        return done(push(m_pool.make(Kind::Dict)));
    }
    if (g == "set" || g == "frozenset") {
        Value s = m_pool.make(Kind::Set);
        if (!a.empty()) {
            if (a.size() != 1 || (a[0].kind() != Kind::List && a[0].kind() != Kind::Tuple &&
                                  a[0].kind() != Kind::Set))
                return done(fail(callee + "() of something other than a list"));
            for (Value item : m_pool.at(a[0]).items) {
                m_pool.retain(item);
                if (auto st = attach(s, item); !st) {
                    m_pool.release(item);
                    m_pool.retain(s);
                    m_pool.release(s);
                    return done(st);
                }
                m_pool.at(s).items.push_back(item);
            }
        }
        return done(push(s));
    }
    // bytes, bytearray, _codecs.encode: the byte strings of protocols 0-2.
    std::string bytes;
    if (!a.empty()) {
        if (a[0].kind() == Kind::Bytes) {
            bytes = m_pool.at(a[0]).text;
        } else if (a[0].kind() == Kind::Str) {
            auto latin = utf8ToLatin1(m_pool.at(a[0]).text);
            if (!latin) return done(fail(callee + "() of text that is not latin-1"));
            bytes = std::move(*latin);
        } else {
            return done(fail(callee + "() of a " + kindName(a[0].kind())));
        }
    }
    return done(push(m_pool.makeText(Kind::Bytes, std::move(bytes))));
}

Result<Value> PickleReader::read() {
    if (m_done) return Error{"read() called twice"};
    uint64_t ops = 0;
    if (m_job && m_src.size()) m_job->setTotal(m_src.size());
    for (;;) {
        m_opStart = m_src.offset();
        const int op = m_src.get();
        if (op < 0) {
            if (!m_src.error().empty()) return Error{fail(m_src.error()).error()};
            return Error{fail(m_stack.empty() && m_opStart == 0
                                  ? "the file is empty"
                                  : "the file ends before the pickle's STOP (truncated)")
                             .error()};
        }
        if (op == STOP) {
            if (m_stack.size() != 1 || !m_marks.empty())
                return Error{fail("STOP with " + std::to_string(m_stack.size()) +
                                  " values on the stack, not one")
                                 .error()};
            m_done = true;
            return pop();
        }
        if (auto st = step(op); !st) return Error{st.error()};
        if ((++ops & 0xffff) == 0 && m_job) {
            m_job->setDone(m_src.offset());
            if (m_job->cancelled()) return Error{"cancelled"};
        }
    }
}

Status PickleReader::step(int op) {
    std::string& b = m_scratch;
    auto fixed = [&](size_t n) { return need(n, b); };
    switch (op) {
        case PROTO: {
            if (auto st = fixed(1); !st) return st;
            m_protocol = static_cast<unsigned char>(b[0]);
            if (m_protocol > 5)
                return fail("pickle protocol " + std::to_string(m_protocol) +
                            " (this reader knows 0 to 5)");
            return {};
        }
        case FRAME:
            return fixed(8);  // a length hint: the opcodes follow as usual
        case MARK:
            m_marks.push_back(m_stack.size());
            return {};
        case POP:
            if (!m_marks.empty() && m_marks.back() == m_stack.size()) {
                m_marks.pop_back();  // POP of a MARK
                return {};
            }
            if (m_stack.empty()) return fail("POP with an empty stack");
            m_pool.release(pop());
            return {};
        case POP_MARK: {
            size_t m;
            if (auto st = popMark(m); !st) return st;
            while (m_stack.size() > m) m_pool.release(pop());
            return {};
        }
        case DUP:
            if (above() == 0) return fail("DUP with no value above the last MARK");
            return push(m_stack.back());
        case NONE:
            return push(Value::none());
        case NEWTRUE:
            return push(Value::boolean(true));
        case NEWFALSE:
            return push(Value::boolean(false));
        case BININT1:
            if (auto st = fixed(1); !st) return st;
            return push(Value::integer(static_cast<unsigned char>(b[0])));
        case BININT2:
            if (auto st = fixed(2); !st) return st;
            return push(Value::integer(static_cast<int64_t>(le(b, 2))));
        case BININT:
            if (auto st = fixed(4); !st) return st;
            return push(Value::integer(static_cast<int32_t>(static_cast<uint32_t>(le(b, 4)))));
        case LONG1:
        case LONG4: {
            if (auto st = fixed(op == LONG1 ? 1 : 4); !st) return st;
            const uint64_t n = op == LONG1 ? static_cast<unsigned char>(b[0]) : le(b, 4);
            if (n > kMaxString) return fail("an integer of " + std::to_string(n) + " bytes");
            if (m_src.size() && n > m_src.size() - m_src.offset())
                return fail("an integer longer than the rest of the file");
            if (auto st = fixed(static_cast<size_t>(n)); !st) return st;
            return push(littleEndianInteger(b));
        }
        case INT:
        case LONG:
        case FLOAT: {
            b.clear();
            if (!m_src.readLine(b, 4096)) return fail("a text number without its end of line");
            if (op == FLOAT) {
                double d = 0;
                auto [p, ec] = std::from_chars(b.data(), b.data() + b.size(), d);
                if (ec != std::errc() || p != b.data() + b.size()) return fail("a bad float");
                return push(Value::real(d));
            }
            return pushInt(b, op == LONG);
        }
        case BINFLOAT: {
            if (auto st = fixed(8); !st) return st;
            uint64_t bits = 0;
            for (int i = 0; i < 8; ++i)
                bits = (bits << 8) | static_cast<unsigned char>(b[static_cast<size_t>(i)]);
            double d;
            std::memcpy(&d, &bits, 8);
            return push(Value::real(d));
        }
        case SHORT_BINUNICODE:
        case SHORT_BINBYTES:
        case SHORT_BINSTRING:
            if (auto st = fixed(1); !st) return st;
            return readText(static_cast<unsigned char>(b[0]), op == SHORT_BINUNICODE ? Kind::Str
                                                              : op == SHORT_BINBYTES ? Kind::Bytes
                                                                                     : Kind::None);
        case BINUNICODE:
        case BINBYTES:
        case BINSTRING:
            if (auto st = fixed(4); !st) return st;
            if (op == BINSTRING && static_cast<int32_t>(le(b, 4)) < 0)
                return fail("a negative string length");
            return readText(le(b, 4), op == BINUNICODE ? Kind::Str
                                      : op == BINBYTES ? Kind::Bytes
                                                       : Kind::None);
        case BINUNICODE8:
        case BINBYTES8:
        case BYTEARRAY8:
            if (auto st = fixed(8); !st) return st;
            return readText(le(b, 8), op == BINUNICODE8 ? Kind::Str : Kind::Bytes);
        case STRING:
        case UNICODE: {
            b.clear();
            if (!m_src.readLine(b, kMaxString))
                return fail("a text string without its end of line");
            auto text = op == STRING ? unquotePythonString(b) : rawUnicodeEscape(b);
            if (!text) return fail(op == STRING ? "a bad quoted string" : "a bad unicode string");
            const Kind k = op == UNICODE || validUtf8(*text) ? Kind::Str : Kind::Bytes;
            return push(m_pool.makeText(k, std::move(*text)));
        }
        case EMPTY_LIST:
            return push(m_pool.make(Kind::List));
        case EMPTY_DICT:
            return push(m_pool.make(Kind::Dict));
        case EMPTY_TUPLE:
            return push(m_pool.make(Kind::Tuple));
        case EMPTY_SET:
            return push(m_pool.make(Kind::Set));
        case TUPLE1:
        case TUPLE2:
        case TUPLE3: {
            const size_t n = static_cast<size_t>(op - TUPLE1 + 1);
            if (above() < n) return fail("TUPLE" + std::to_string(n) + " with too few values");
            Value t = m_pool.make(Kind::Tuple);
            for (size_t i = m_stack.size() - n; i < m_stack.size(); ++i) {
                if (auto st = attach(t, m_stack[i]); !st) {
                    m_pool.retain(t);
                    m_pool.release(t);
                    return st;
                }
                m_pool.at(t).items.push_back(m_stack[i]);
            }
            m_stack.resize(m_stack.size() - n);
            return push(t);
        }
        case TUPLE:
        case LIST:
        case FROZENSET: {
            size_t m;
            if (auto st = popMark(m); !st) return st;
            Value c = m_pool.make(op == TUPLE ? Kind::Tuple : op == LIST ? Kind::List : Kind::Set);
            for (size_t i = m; i < m_stack.size(); ++i) {
                if (auto st = attach(c, m_stack[i]); !st) {
                    m_pool.retain(c);
                    m_pool.release(c);
                    return st;
                }
                m_pool.at(c).items.push_back(m_stack[i]);
            }
            m_stack.resize(m);
            return push(c);
        }
        case DICT: {
            size_t m;
            if (auto st = popMark(m); !st) return st;
            if ((m_stack.size() - m) % 2) return fail("DICT with a key and no value");
            Value d = m_pool.make(Kind::Dict);
            m_pool.retain(d);
            std::vector<Value> kvs(m_stack.begin() + static_cast<ptrdiff_t>(m), m_stack.end());
            m_stack.resize(m);
            for (size_t i = 0; i < kvs.size(); i += 2)
                if (auto st = setItem(d, kvs[i], kvs[i + 1]); !st) {
                    for (size_t j = i + 2; j < kvs.size(); ++j) m_pool.release(kvs[j]);
                    m_pool.release(d);
                    return st;
                }
            m_stack.push_back(d);
            return {};
        }
        case APPEND: {
            if (above() < 2) return fail("APPEND with too few values");
            const Value item = pop();
            return append(m_stack.back(), item);
        }
        case APPENDS:
        case ADDITEMS: {
            size_t m;
            if (auto st = popMark(m); !st) return st;
            if (m == 0 || (!m_marks.empty() && m_marks.back() >= m))
                return fail("APPENDS with no list below its MARK");
            const Value list = m_stack[m - 1];
            if (op == ADDITEMS && list.kind() != Kind::Set) return fail("ADDITEMS to a non-set");
            std::vector<Value> items(m_stack.begin() + static_cast<ptrdiff_t>(m), m_stack.end());
            m_stack.resize(m);
            for (size_t i = 0; i < items.size(); ++i)
                if (auto st = append(list, items[i]); !st) {
                    for (size_t j = i + 1; j < items.size(); ++j) m_pool.release(items[j]);
                    return st;
                }
            return {};
        }
        case SETITEM: {
            if (above() < 3) return fail("SETITEM with too few values");
            const Value value = pop();
            const Value key = pop();
            return setItem(m_stack.back(), key, value);
        }
        case SETITEMS: {
            size_t m;
            if (auto st = popMark(m); !st) return st;
            if (m == 0 || (!m_marks.empty() && m_marks.back() >= m))
                return fail("SETITEMS with no dict below its MARK");
            if ((m_stack.size() - m) % 2) return fail("SETITEMS with a key and no value");
            const Value dict = m_stack[m - 1];
            std::vector<Value> kvs(m_stack.begin() + static_cast<ptrdiff_t>(m), m_stack.end());
            m_stack.resize(m);
            for (size_t i = 0; i < kvs.size(); i += 2)
                if (auto st = setItem(dict, kvs[i], kvs[i + 1]); !st) {
                    for (size_t j = i + 2; j < kvs.size(); ++j) m_pool.release(kvs[j]);
                    return st;
                }
            return {};
        }
        case GET:
        case PUT: {
            b.clear();
            if (!m_src.readLine(b, 64)) return fail("a memo index without its end of line");
            uint64_t i = 0;
            auto [p, ec] = std::from_chars(b.data(), b.data() + b.size(), i);
            if (ec != std::errc() || p != b.data() + b.size()) return fail("a bad memo index");
            return op == GET ? memoGet(i) : memoPut(i);
        }
        case BINGET:
        case BINPUT:
            if (auto st = fixed(1); !st) return st;
            return op == BINGET ? memoGet(static_cast<unsigned char>(b[0]))
                                : memoPut(static_cast<unsigned char>(b[0]));
        case LONG_BINGET:
        case LONG_BINPUT:
            if (auto st = fixed(4); !st) return st;
            return op == LONG_BINGET ? memoGet(le(b, 4)) : memoPut(le(b, 4));
        case MEMOIZE:
            return memoPut(m_memo.size());
        case GLOBAL: {
            std::string module, name;
            if (!m_src.readLine(module, 256) || !m_src.readLine(name, 256))
                return fail("GLOBAL without its module and name");
            return global(module, name);
        }
        case STACK_GLOBAL: {
            if (above() < 2) return fail("STACK_GLOBAL needs a module and a name");
            const Value name = pop();
            const Value module = pop();
            const std::string mod(m_pool.text(module)), nm(m_pool.text(name));
            const bool strs = module.kind() == Kind::Str && name.kind() == Kind::Str;
            m_pool.release(name);
            m_pool.release(module);
            if (!strs) return fail("STACK_GLOBAL of values that are not strings");
            return global(mod, nm);
        }
        case REDUCE:
            return reduce();
        default:
            if (const char* name = refusedName(op))
                return fail("opcode " + std::string(name) +
                            " refused: a memory snapshot holds plain data only and a pickle can "
                            "run code through it");
            char hex[8];
            std::snprintf(hex, sizeof hex, "0x%02x", op);
            return fail(std::string("unknown pickle opcode ") + hex +
                        " (not a pickle, or damaged)");
    }
}

}  // namespace ts::memory::pickle
