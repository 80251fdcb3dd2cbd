// trainscope-cli query SESSION "SELECT ...": one read-only statement over a session
// (store::UserQuery: writes, ATTACH, VACUUM INTO, writable_schema, load_extension, PRAGMAs
// that set something, as statements or table-valued functions, and a second statement are
// refused), stopped by Ctrl-C, by a time limit (--timeout, 5 minutes unless given) and by a
// memory limit (--memory-limit, 2 GiB unless given). With --json the rows are written as they
// come (one JSON object, never all of it in memory); a query stopped midway ends the object
// with "error" and exits non-zero.
#include <sqlite3.h>

#include <chrono>
#include <cstdio>
#include <iostream>

#include "app/cli/interrupt.h"
#include "app/cli/session_open.h"
#include "core/store/user_query.h"

namespace ts::cli {
namespace {

void writeCell(JsonWriter& w, const store::Statement& st, int c) {
    switch (st.columnType(c)) {
        case SQLITE_INTEGER:
            w.Int64(st.int64(c));
            break;
        case SQLITE_FLOAT:
            finiteOrNull(w, st.real(c));
            break;
        case SQLITE_NULL:
            w.Null();
            break;
        default:  // text or a BLOB: as UTF-8 text, bytes that are not replaced (json.h)
            json::str(w, st.textView(c));
    }
}

store::QueryLimits limitsOf(const Args& args) {
    store::QueryLimits limits;
    if (args.has("timeout")) {
        const double s = numberOption(args, "timeout", 0, {.min = 0, .max = 1e7, .exitCode = 2});
        limits.timeout = std::chrono::milliseconds(static_cast<int64_t>(s * 1000 + 0.5));
    }
    if (args.has("memory-limit")) {
        const int64_t mib = intOption(args, "memory-limit", 0, {.min = 0, .max = 1 << 30});
        limits.memoryBytes = static_cast<uint64_t>(mib) << 20;
    }
    return limits;
}

// A stopped query: Ctrl-C exits 130 (as a shell reports SIGINT), a timeout 1.
[[noreturn]] void stopped(const store::UserQuery& q) {
    throw CliError{q.error(), q.stopped() == store::UserQuery::Stop::Cancelled ? 130 : 1};
}

// Rows go out as they come: the buffer is written to stdout every 64 KiB.
void drain(rapidjson::StringBuffer& buf, bool force = false) {
    if (!force && buf.GetSize() < (size_t{1} << 16)) return;
    std::fwrite(buf.GetString(), 1, buf.GetSize(), stdout);
    buf.Clear();
}

int streamJson(store::UserQuery& q) {
    const store::Statement& st = q.statement();
    const int cols = st.columnCount();
    rapidjson::StringBuffer buf;
    JsonWriter w(buf);
    w.StartObject();
    w.Key("columns");
    w.StartArray();
    for (int c = 0; c < cols; ++c) json::str(w, st.columnName(c));
    w.EndArray();
    w.Key("rows");
    w.StartArray();
    while (q.step()) {
        w.StartArray();
        for (int c = 0; c < cols; ++c) writeCell(w, st, c);
        w.EndArray();
        drain(buf);
    }
    w.EndArray();
    int code = 0;
    if (!q.error().empty()) {
        const bool sqlError = q.stopped() == store::UserQuery::Stop::None;
        kv(w, "error", sqlError ? "SQL error: " + q.error() : q.error());
        code = q.stopped() == store::UserQuery::Stop::Cancelled ? 130 : 1;
    }
    w.EndObject();
    drain(buf, true);
    std::fputc('\n', stdout);
    std::fflush(stdout);
    return code;
}

int runQuery(const Args& args) {
    const store::QueryLimits limits = limitsOf(args);
    auto store = openSession(args.positional[0], store::TraceStore::Mode::ReadOnly);
    CancelOnInterrupt interrupts;
    auto prepared = store::UserQuery::prepare(store->db(), args.positional[1],
                                              CancelOnInterrupt::flag(), limits);
    if (!prepared) throw CliError{prepared.error()};
    store::UserQuery& q = prepared.value();
    if (args.json) return streamJson(q);
    const store::Statement& st = q.statement();
    const int cols = st.columnCount();
    for (int c = 0; c < cols; ++c) std::cout << (c ? "\t" : "") << st.columnName(c);
    std::cout << "\n";
    while (q.step()) {
        for (int c = 0; c < cols; ++c)
            std::cout << (c ? "\t" : "") << (st.isNull(c) ? "NULL" : st.text(c));
        std::cout << "\n";
    }
    std::cout.flush();
    if (q.stopped() != store::UserQuery::Stop::None) stopped(q);
    if (!q.error().empty()) throw CliError{"SQL error: " + q.error()};
    return 0;
}

TS_CLI_COMMAND("query",
               "run one read-only SQL statement over a session (Ctrl-C stops it, exit 130)",
               "SESSION \"SELECT ...\" [--timeout SECONDS] [--memory-limit MIB] [--json]",
               {{"timeout", true,
                 "stop the query after this many seconds (exit 1; default 300, 0: no limit)"},
                {"memory-limit", true,
                 "stop the query once it took this many MiB of memory (exit 1; default 2048, "
                 "0: no limit)"}},
               &runQuery, 2, 2);

}  // namespace
}  // namespace ts::cli
