#pragma once
// Files written whole and files read with bounds: the one way TrainScope writes an output
// file (an export, a model, a checkpoint, a CSV, a studio's save) and reads a file it did not
// write itself from a folder a user names.
//
// Writing: bytes go to a temporary file in the target's folder, which is flushed, synced and
// renamed over the target only when everything was written, so a failed or killed writer
// leaves the old file (or none) and never a truncated one. A target that is the same file as
// one of the command's inputs (after links: same device and inode) is refused before
// anything is written. A target that is a symbolic link is written through: the file it
// points to is replaced, the link stays.
//
// Reading: only a regular file, opened without blocking (a FIFO or a device is refused, not
// read), at most a given number of bytes, and optionally only inside a folder.
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/result.h"

namespace ts {

/// True when `a` and `b` both exist and are one file (links followed).
bool sameFile(const std::string& a, const std::string& b);

/// An error naming the input when `output` is the same file as one of `inputs`.
Status refuseInputAsOutput(const std::string& output, const std::vector<std::string>& inputs);

/// A file written whole or not at all (see above). Write through stream(); commit() makes it
/// the target. Destroyed without a successful commit, it removes its temporary file.
class AtomicFile {
public:
    /// Refuses `path` when it is one of `inputs`; opens the temporary file.
    static Result<AtomicFile> create(const std::string& path,
                                     const std::vector<std::string>& inputs = {});
    AtomicFile(AtomicFile&& o) noexcept;
    AtomicFile& operator=(AtomicFile&&) = delete;
    AtomicFile(const AtomicFile&) = delete;
    ~AtomicFile();

    std::FILE* stream() { return m_file; }
    /// Appends bytes (errors surface in commit()).
    void write(std::string_view bytes);
    /// Flushes, syncs and renames into place; the error names the target ("disk full?" when
    /// a write failed).
    Status commit();
    const std::string& path() const { return m_target; }

private:
    AtomicFile() = default;
    std::string m_target, m_temp;
    std::FILE* m_file = nullptr;
};

/// Writes `bytes` as the whole of `path` through an AtomicFile.
Status writeFileAtomically(const std::string& path, std::string_view bytes,
                           const std::vector<std::string>& inputs = {});

/// The bytes of the regular file `path`, refused (with a message naming `what` and the path)
/// when it is not a regular file, lies outside `insideDir` after its links are resolved
/// (when `insideDir` is not empty), or holds more than `maxBytes`.
Result<std::string> readRegularFile(const std::string& path, uint64_t maxBytes,
                                    std::string_view what, const std::string& insideDir = {});

/// The whole of `path`, gunzipped when it is gzip data (read as it is otherwise); damaged
/// gzip data is an error naming zlib's reason.
Result<std::string> readMaybeGzipped(const std::string& path);

}  // namespace ts
