// The safe pickle reader: every protocol 0-5 against what Python's own pickler writes
// (tests/memory/pickle_cases.py: the reader's value, as canonical text, equals Python's
// pickle.loads of the same file), and the refusals: code-running globals and opcodes,
// truncation, absurd lengths, deep nesting, memo misuse — each a clear error with its byte
// offset, none a crash.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/memory/byte_source.h"
#include "core/memory/pickle_reader.h"
#include "tests/common/test_support.h"

namespace fs = std::filesystem;
using namespace ts::memory;
using namespace ts::memory::pickle;

namespace {

constexpr const char* kPython = "/usr/bin/python3";

std::string canon(const Pool& pool, Value v) {
    char buf[64];
    switch (v.kind()) {
        case Kind::None:
            return "N";
        case Kind::Bool:
            return v.asBool() ? "T" : "F";
        case Kind::Int:
            return "i" + std::to_string(v.asInt());
        case Kind::Float:
            std::snprintf(buf, sizeof buf, "f%.17g", v.asFloat());
            return buf;
        case Kind::Str:
        case Kind::Bytes: {
            const auto& t = pool.at(v).text;
            std::string out = (v.kind() == Kind::Str ? "s" : "b") + std::to_string(t.size()) + ":";
            for (unsigned char c : t) {
                std::snprintf(buf, sizeof buf, "%02x", c);
                out += buf;
            }
            return out;
        }
        case Kind::List:
        case Kind::Tuple: {
            std::string out = v.kind() == Kind::List ? "[" : "(";
            for (Value x : pool.at(v).items) out += canon(pool, x) + ",";
            return out + (v.kind() == Kind::List ? "]" : ")");
        }
        case Kind::Dict: {
            std::string out = "{";
            const auto& it = pool.at(v).items;
            for (size_t i = 0; i + 1 < it.size(); i += 2)
                out += canon(pool, it[i]) + ":" + canon(pool, it[i + 1]) + ",";
            return out + "}";
        }
        case Kind::Set: {
            std::vector<std::string> parts;
            for (Value x : pool.at(v).items) parts.push_back(canon(pool, x));
            std::sort(parts.begin(), parts.end());
            std::string out = "<";
            for (auto& p : parts) out += p + ",";
            return out + ">";
        }
        default:
            return "?";
    }
}

ts::Result<std::string> readCanon(std::string_view bytes) {
    auto src = memorySource(bytes);
    PickleReader r(*src);
    auto v = r.read();
    if (!v) return ts::Error{v.error()};
    return canon(r.pool(), v.value());
}

std::string readError(std::string_view bytes) {
    auto r = readCanon(bytes);
    EXPECT_FALSE(r.ok()) << "read as " << (r.ok() ? r.value() : "");
    return r.ok() ? std::string() : r.error();
}

std::string slurp(const fs::path& p) {
    std::ifstream f(p, std::ios::binary);
    std::stringstream ss;
    ss << f.rdbuf();
    return ss.str();
}

}  // namespace

TEST(PickleReader, EveryProtocolReadsWhatPythonWrites) {
    if (!fs::exists(kPython)) GTEST_SKIP() << kPython << " not found";
    const fs::path dir = ts::test::tempDir("pickle-cases");
    const std::string script =
        (fs::path(TRAINSCOPE_SOURCE_DIR) / "tests" / "memory" / "pickle_cases.py").string();
    auto run = ts::test::runProgram(kPython, {script, dir.string()});
    ASSERT_EQ(run.exitCode, 0) << run.err;
    std::ifstream cases(dir / "cases.txt");
    std::string line;
    int checked = 0;
    while (std::getline(cases, line)) {
        const auto space = line.find(' ');
        const std::string file = line.substr(0, space), want = line.substr(space + 1);
        auto got = readCanon(slurp(dir / file));
        ASSERT_TRUE(got.ok()) << file << ": " << got.error();
        EXPECT_EQ(got.value(), want) << file;
        ++checked;
    }
    EXPECT_EQ(checked, 9 * 6);  // every case in protocols 0..5
}

TEST(PickleReader, RefusesGlobalsThatRunCode) {
    // pickle.dumps of os.system's call, protocol 0 and 4: GLOBAL / STACK_GLOBAL then REDUCE.
    const std::string p0 = "cos\nsystem\n(S'echo pwned'\ntR.";
    std::string e = readError(p0);
    EXPECT_NE(e.find("os.system"), std::string::npos) << e;
    EXPECT_NE(e.find("refused"), std::string::npos) << e;
    EXPECT_NE(e.find("byte 0"), std::string::npos) << e;
    const std::string p4 =
        std::string("\x80\x04\x95\x1c\0\0\0\0\0\0\0", 11) +
        "\x8c\x05posix\x94\x8c\x06system\x94\x93\x94\x8c\x04true\x94\x85\x94R\x94.";
    e = readError(p4);
    EXPECT_NE(e.find("posix.system"), std::string::npos) << e;
    e = readError("cbuiltins\neval\n(S'1'\ntR.");
    EXPECT_NE(e.find("builtins.eval"), std::string::npos) << e;
}

TEST(PickleReader, RefusesObjectBuildingOpcodes) {
    struct Case {
        std::string bytes;
        const char* opcode;
    } cases[] = {
        {std::string("\x80\x02}b.", 4), "BUILD"},
        {"(i__main__\nX\n.", "INST"},
        {std::string("\x80\x02(o.", 4), "OBJ"},
        {std::string("\x80\x02)\x81.", 4), "NEWOBJ"},
        {std::string("\x80\x04))}\x92.", 6), "NEWOBJ_EX"},
        {"P1\n.", "PERSID"},
        {std::string("\x80\x02K\x01Q.", 5), "BINPERSID"},
        {std::string("\x80\x02\x82\x01.", 5), "EXT"},
        {std::string("\x80\x05\x97.", 4), "NEXT_BUFFER"},
    };
    for (const Case& c : cases) {
        const std::string e = readError(c.bytes);
        EXPECT_NE(e.find(c.opcode), std::string::npos) << c.opcode << ": " << e;
        EXPECT_NE(e.find("refused"), std::string::npos) << e;
    }
}

TEST(PickleReader, BrokenInputIsAClearError) {
    EXPECT_NE(readError("").find("empty"), std::string::npos);
    EXPECT_NE(readError(std::string("\x80\x04]\x94(K\x01K\x02", 9)).find("truncated"),
              std::string::npos);
    EXPECT_NE(readError(std::string("\x80\x06N.", 4)).find("protocol 6"), std::string::npos);
    EXPECT_NE(readError("\xff").find("unknown pickle opcode 0xff"), std::string::npos);
    EXPECT_NE(readError("{\"json\": 1}").find("opcode"), std::string::npos);
    // A string that claims 1,000 bytes in a 10-byte file, or 4 GiB: an error, never an
    // allocation.
    EXPECT_NE(readError(std::string("\x80\x04X\xe8\x03\x00\x00"
                                    "ab.",
                                    10))
                  .find("longer than the rest"),
              std::string::npos);
    EXPECT_NE(readError(std::string("\x80\x04X\xff\xff\xff\xff"
                                    "ab.",
                                    10))
                  .find("over 1 GiB"),
              std::string::npos);
    EXPECT_NE(readError(std::string("\x80\x04\x8d\xff\xff\xff\xff\xff\xff\xff\x7f.", 12))
                  .find("over 1 GiB"),
              std::string::npos);
    // Memo misuse.
    EXPECT_NE(readError(std::string("\x80\x02h\x05.", 4)).find("memo entry 5 was never set"),
              std::string::npos);
    EXPECT_NE(readError(std::string("\x80\x02q\x00.", 4)).find("PUT"), std::string::npos);
    // Stack misuse.
    EXPECT_NE(readError("a.").find("APPEND"), std::string::npos);
    EXPECT_NE(readError("Ns.").find("SETITEM"), std::string::npos);
    EXPECT_NE(readError("(e.").find("APPENDS"), std::string::npos);
    EXPECT_NE(readError("NN.").find("STOP with 2 values"), std::string::npos);
    EXPECT_NE(readError(std::string("\x80\x02K\x01K\x02"
                                    "a.",
                                    7))
                  .find("not a list"),
              std::string::npos);
    EXPECT_NE(readError("S'unterminated\n.").find("quoted string"), std::string::npos);
    EXPECT_NE(readError(std::string("\x80\x04\x8c\x02\xff\xfe.", 7)).find("UTF-8"),
              std::string::npos);
}

TEST(PickleReader, NestingIsBounded) {
    // 300 nested lists: ]]]...a a a. — refused at 200 levels, no recursion anywhere.
    std::string deep = "\x80\x02";
    for (int i = 0; i < 300; ++i) deep += "]";
    for (int i = 0; i < 299; ++i) deep += "a";
    deep += ".";
    const std::string e = readError(deep);
    EXPECT_NE(e.find("nested deeper than 200"), std::string::npos) << e;
    // 150 levels is fine.
    std::string ok = "\x80\x02";
    for (int i = 0; i < 150; ++i) ok += "]";
    for (int i = 0; i < 149; ++i) ok += "a";
    ok += ".";
    EXPECT_TRUE(readCanon(ok).ok());
}

TEST(PickleReader, CyclesAndSelfReferencesDoNotLeakOrLoop) {
    // l = []; l.append(l) — protocol 2: ] q\x00 h\x00 a . (read, never printed: the
    // canonical text would recurse). The pool goes whole with the reader: no leak.
    const std::string bytes(
        "\x80\x02]q\x00"
        "h\x00"
        "a.",
        9);
    auto src = memorySource(bytes);  // reads `bytes` in place: it must outlive the source
    PickleReader reader(*src);
    auto v = reader.read();
    ASSERT_TRUE(v.ok()) << v.error();
    EXPECT_EQ(v.value().kind(), Kind::List);
    EXPECT_EQ(reader.pool().at(v.value()).items.size(), 1u);
}

TEST(PickleReader, AllowedGlobalsGiveValues) {
    // OrderedDict, set and bytes through REDUCE (protocol 2, as Python 2-era pickles have them).
    auto od = readCanon("ccollections\nOrderedDict\n)RS'k'\nI1\ns.");
    ASSERT_TRUE(od.ok()) << od.error();
    EXPECT_EQ(od.value(), "{s1:6b:i1,}");  // {"k": 1}
    auto st = readCanon("c__builtin__\nset\n((lI1\naI2\natR.");
    ASSERT_TRUE(st.ok()) << st.error();
    EXPECT_EQ(st.value(), "<i1,i2,>");
    auto by = readCanon("c_codecs\nencode\n(V\\u00ffA\nVlatin1\ntR.");
    ASSERT_TRUE(by.ok()) << by.error();
    EXPECT_EQ(by.value(), "b2:ff41");
    // An allowed name with the wrong arguments is still an error.
    EXPECT_NE(readError("ccollections\nOrderedDict\n(I1\ntR.").find("with arguments"),
              std::string::npos);
}
