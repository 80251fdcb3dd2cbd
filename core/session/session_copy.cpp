#include "core/session/session_copy.h"

#include <filesystem>

#include "core/store/trace_store.h"

namespace ts::session {

Status copySession(const std::string& from, const std::string& to) {
    std::error_code ec;
    if (std::filesystem::exists(to, ec)) return Error{to + " exists already"};
    auto store = store::TraceStore::open(from, store::TraceStore::Mode::ReadOnly);
    if (!store) return Error{store.error()};
    store::Statement q = store.value()->db().prepare("VACUUM INTO ?");
    q.bind(1, to);
    if (Status s = q.run(); !s) return Error{"cannot write " + to + ": " + s.error()};
    return {};
}

Result<SessionWork> readSessionWork(const std::string& path) {
    auto store = store::TraceStore::open(path, store::TraceStore::Mode::ReadOnly);
    if (!store) return Error{store.error()};
    store::SqliteDb& db = store.value()->db();
    auto sources = db.queryInt("SELECT count(*) FROM sources");
    if (!sources) return Error{sources.error()};
    auto runs = db.queryInt("SELECT count(*) FROM runs");
    if (!runs) return Error{runs.error()};
    return SessionWork{sources.value(), runs.value()};
}

}  // namespace ts::session
