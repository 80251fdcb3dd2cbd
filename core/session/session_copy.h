#pragma once
// A session saved under another name (the studio's File > Save Session As, the demo's
// working copy): a consistent copy of the whole file, written by SQLite (VACUUM INTO) from a
// read-only connection, so a session being recorded or shown meanwhile is not disturbed and
// its write-ahead log is included. No Qt.
#include <cstdint>
#include <string>

#include "core/common/result.h"

namespace ts::session {

/// Copies session `from` to `to` (which must not exist: the caller asks before replacing).
/// Errors: `from` is not a session, `to` exists or cannot be written.
Status copySession(const std::string& from, const std::string& to);

/// What a session holds that a user made: sources (imports, run traces) and runs. A new
/// session holds none; the demo holds its own, which the caller compares against.
struct SessionWork {
    int64_t sources = 0;
    int64_t runs = 0;
    bool operator==(const SessionWork&) const = default;
};
Result<SessionWork> readSessionWork(const std::string& path);

}  // namespace ts::session
