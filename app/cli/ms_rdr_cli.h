#pragma once
// `trainscope-cli rdr DIR` for MindSpore's own RDR folders (core/debug/rdr/ms_rdr_reader.h).
#include <string>

#include "app/cli/command.h"

namespace ts::cli {

/// Prints the export under `path` (every file with its kind, the failing op where
/// MindSpore's task-failure lines name it); --json: one object.
int printMsRdr(const Args& args, const std::string& path);

}  // namespace ts::cli
