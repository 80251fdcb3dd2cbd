// trainscope-cli query SESSION "SELECT ...": read-only SQL over a session.
#include <sqlite3.h>

#include <iostream>

#include "app/cli/session_open.h"

namespace ts::cli {
namespace {

void writeCell(JsonWriter& w, const store::Statement& st, int c) {
    switch (st.columnType(c)) {
        case SQLITE_INTEGER:
            w.Int64(st.int64(c));
            break;
        case SQLITE_FLOAT:
            writeDouble(w, st.real(c));
            break;
        case SQLITE_NULL:
            w.Null();
            break;
        default: {
            const auto v = st.textView(c);
            w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
        }
    }
}

int runQuery(const Args& args) {
    auto store = openSession(args.positional[0], store::TraceStore::Mode::ReadOnly);
    const std::string& sql = args.positional[1];
    // Reject a second statement after the first: only one read-only statement runs.
    sqlite3_stmt* probe = nullptr;
    const char* tail = nullptr;
    if (sqlite3_prepare_v2(store->db().handle(), sql.c_str(), -1, &probe, &tail) != SQLITE_OK)
        throw CliError{"SQL error: " + store->db().lastError()};
    const bool readOnly = probe && sqlite3_stmt_readonly(probe);
    sqlite3_finalize(probe);
    if (!probe) throw CliError{"empty query"};
    if (!readOnly) throw CliError{"only read-only statements are allowed (SELECT, WITH, ...)"};
    for (const char* p = tail; p && *p; ++p)
        if (!std::isspace(static_cast<unsigned char>(*p)) && *p != ';')
            throw CliError{"only one statement is allowed"};

    store::Statement st = store->db().prepare(sql);
    if (!st.ok()) throw CliError{"SQL error: " + st.error()};
    const int cols = st.columnCount();
    if (args.json) {
        rapidjson::StringBuffer buf;
        JsonWriter w(buf);
        w.StartObject();
        w.Key("columns");
        w.StartArray();
        for (int c = 0; c < cols; ++c) w.String(st.columnName(c).c_str());
        w.EndArray();
        w.Key("rows");
        w.StartArray();
        while (st.step()) {
            w.StartArray();
            for (int c = 0; c < cols; ++c) writeCell(w, st, c);
            w.EndArray();
        }
        w.EndArray();
        if (!st.error().empty()) throw CliError{"SQL error: " + st.error()};
        w.EndObject();
        printJson(buf);
        return 0;
    }
    for (int c = 0; c < cols; ++c) std::cout << (c ? "\t" : "") << st.columnName(c);
    std::cout << "\n";
    while (st.step()) {
        for (int c = 0; c < cols; ++c)
            std::cout << (c ? "\t" : "") << (st.isNull(c) ? "NULL" : st.text(c));
        std::cout << "\n";
    }
    if (!st.error().empty()) throw CliError{"SQL error: " + st.error()};
    return 0;
}

TS_CLI_COMMAND("query", "run one read-only SQL statement over a session",
               "SESSION \"SELECT ...\" [--json]", {}, &runQuery, 2, 2);

}  // namespace
}  // namespace ts::cli
