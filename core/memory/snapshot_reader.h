#pragma once
// Reads a PyTorch CUDA memory snapshot pickle (plain or gzip) into a Snapshot, streaming:
// each trace event, block and segment leaves the pickle's object tree as soon as it is
// complete and is kept as a compact record, and every stack is interned once, so memory
// follows what is kept (~40 bytes an event plus the distinct frames), not the tree Python's
// pickle.load would build. The pickle is read by PickleReader: no code runs, whatever the
// file holds. Errors: not a pickle, a refused opcode or global, truncated, not a snapshot
// (says what the pickle holds instead), cancelled. No Qt.
#include <string>
#include <string_view>

#include "core/common/job_control.h"
#include "core/common/result.h"
#include "core/memory/snapshot.h"

namespace ts::memory {

Result<Snapshot> readSnapshot(const std::string& path, JobControl* job = nullptr);
Result<Snapshot> readSnapshotBytes(std::string_view bytes, JobControl* job = nullptr);

/// True when `head` (a file's first bytes, gunzipped) looks like a pickle that could be a
/// memory snapshot: a PROTO opcode 2-5 followed by a dict or list, or protocol 0/1 "(lp"/"(dp".
bool looksLikeSnapshotPickle(std::string_view head);

}  // namespace ts::memory
