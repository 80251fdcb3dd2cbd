#pragma once
// Several trace files in one session (e.g. one per rank) are told apart by their file's
// short name: once a session holds more than one trace source, every process name is
// prefixed "<short name>: " (a process without a name gets "<short name>: pid <pid>").
// Idempotent: a process already prefixed is left alone. Sessions with one source keep the
// names exactly as the file wrote them (so export -> import round trips are unchanged).
#include <string>

#include "core/common/result.h"
#include "core/store/trace_store.h"

namespace ts::importers {

/// Short name of a trace file: its file name without .gz/.zip/.json/.pt.trace suffixes.
std::string sourceShortName(const std::string& path);

/// Sets sources.label to the short name and prefixes process names, when the session holds
/// more than one source with processes.
Status labelProcessesBySource(store::TraceStore& store);

}  // namespace ts::importers
