#pragma once
// Opening a session from a CLI command: errors become CliError.
#include <fstream>
#include <memory>
#include <string>

#include "app/cli/command.h"
#include "core/store/trace_store.h"

namespace ts::cli {

/// Whether `path` starts with SQLite's header (a session, or another tool's SQLite file).
inline bool isSqliteFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    char head[16] = {};
    in.read(head, sizeof head);
    return in.gcount() == 16 && std::string(head, 16) == std::string("SQLite format 3\0", 16);
}

inline std::unique_ptr<store::TraceStore> openSession(const std::string& path,
                                                      store::TraceStore::Mode mode) {
    auto s = store::TraceStore::open(path, mode);
    if (!s) throw CliError{s.error()};
    return std::move(s.value());
}

}  // namespace ts::cli
