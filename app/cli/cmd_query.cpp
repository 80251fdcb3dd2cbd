// trainscope-cli query SESSION "SELECT ...": one read-only statement over a session
// (store::UserQuery: writes, ATTACH, VACUUM INTO, writable_schema, load_extension and a
// second statement are refused), stopped by Ctrl-C or --timeout.
#include <sqlite3.h>

#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <optional>

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
        default: {
            const auto v = st.textView(c);
            w.String(v.data(), static_cast<rapidjson::SizeType>(v.size()));
        }
    }
}

std::atomic<bool> g_interrupted{false};

void onInterrupt(int) {
    g_interrupted.store(true);
}

// Ctrl-C stops the running statement (the progress handler sees the flag) instead of the
// process; the previous handler comes back at the end.
struct InterruptGuard {
    InterruptGuard() { m_previous = std::signal(SIGINT, &onInterrupt); }
    ~InterruptGuard() { std::signal(SIGINT, m_previous); }
    void (*m_previous)(int) = nullptr;
};

std::optional<std::chrono::milliseconds> timeoutOf(const Args& args) {
    const auto text = args.value("timeout");
    if (!text) return std::nullopt;
    const double s =
        numberOption(args, "timeout", 0, {.min = 0, .max = 1e7, .aboveMin = true, .exitCode = 2});
    return std::chrono::milliseconds(static_cast<int64_t>(s * 1000 + 0.5));
}

// A stopped query: Ctrl-C exits 130 (as a shell reports SIGINT), a timeout 1.
[[noreturn]] void stopped(const store::UserQuery& q) {
    throw CliError{q.error(), q.stopped() == store::UserQuery::Stop::Cancelled ? 130 : 1};
}

int runQuery(const Args& args) {
    const auto timeout = timeoutOf(args);
    auto store = openSession(args.positional[0], store::TraceStore::Mode::ReadOnly);
    InterruptGuard interrupts;
    auto prepared =
        store::UserQuery::prepare(store->db(), args.positional[1], &g_interrupted, timeout);
    if (!prepared) throw CliError{prepared.error()};
    store::UserQuery& q = prepared.value();
    const store::Statement& st = q.statement();
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
        while (q.step()) {
            w.StartArray();
            for (int c = 0; c < cols; ++c) writeCell(w, st, c);
            w.EndArray();
        }
        if (q.stopped() != store::UserQuery::Stop::None) stopped(q);
        w.EndArray();
        if (!q.error().empty()) throw CliError{"SQL error: " + q.error()};
        w.EndObject();
        printJson(buf);
        return 0;
    }
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
               "SESSION \"SELECT ...\" [--timeout SECONDS] [--json]",
               {{"timeout", true, "stop the query after this many seconds (exit 1)"}}, &runQuery, 2,
               2);

}  // namespace
}  // namespace ts::cli
