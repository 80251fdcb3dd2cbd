#pragma once
// The statuses of a session's sources and runs as C++ enums, so the compiler checks every
// comparison: the words exist only where the session file (sources.status, runs.status) and
// JSON output hold them, written with statusName() and read with parse*Status().
#include <string_view>

namespace ts::store {

/// A source: an import (sources.status). Cancelled is an import's outcome only: a cancelled
/// import keeps nothing, so no row holds it.
enum class SourceStatus { Importing, Complete, Partial, Failed, Incomplete, Cancelled };

/// A run (runs.status): Running until it ends; Interrupted when its recording process died.
enum class RunStatus { Running, Completed, Stopped, Failed, Interrupted };

/// "importing", "complete", ..., as sources.status holds it.
const char* statusName(SourceStatus s);
/// "running", "completed", ..., as runs.status holds it.
const char* statusName(RunStatus s);

/// The status a stored word names; `fallback` for a word this version does not know.
SourceStatus parseSourceStatus(std::string_view word, SourceStatus fallback = SourceStatus::Failed);
RunStatus parseRunStatus(std::string_view word, RunStatus fallback = RunStatus::Failed);

/// A source that holds rows a view can show (complete or partial).
inline bool hasRows(SourceStatus s) {
    return s == SourceStatus::Complete || s == SourceStatus::Partial;
}

}  // namespace ts::store
