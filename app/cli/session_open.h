#pragma once
// Opening a session from a CLI command: errors become CliError.
#include <memory>
#include <string>

#include "app/cli/command.h"
#include "core/store/trace_store.h"

namespace ts::cli {

inline std::unique_ptr<store::TraceStore> openSession(const std::string& path,
                                                      store::TraceStore::Mode mode) {
    auto s = store::TraceStore::open(path, mode);
    if (!s) throw CliError{s.error()};
    return std::move(s.value());
}

}  // namespace ts::cli
