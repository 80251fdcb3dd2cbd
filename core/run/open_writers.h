#pragma once
// Whether a file is still open for writing by some process: a file whose size has not
// changed for a while may still be held by a writer that buffers (the CUPTI collector keeps
// its activity file open, empty, from CUDA's start until a buffer completes or the process
// exits). Linux only (/proc/<pid>/fd and fdinfo); processes this user cannot inspect are not
// seen. Costs a readlink per open descriptor of every visible process: call it once per file
// that is about to be taken as finished, not per scan.
#include <string>

namespace ts::run {

/// True when a process this user can inspect holds `path` open with write access.
bool heldOpenForWriting(const std::string& path);

}  // namespace ts::run
