#pragma once
// Importing a whole folder (`trainscope-cli import DIR`, File > Open Folder): every file the
// folder holds gets a fate. Recognised kinds become sources: MindSpore summary and lineage
// files and TensorBoard event files (one run per folder, named by its path below DIR, so a
// summary folder of many runs is one session that compares them), traces and profiler
// timelines, logs, Nsight Systems and CUPTI files (the registry's importers), HDF5 dumps
// (registered as dump files), MindSpore dump iteration folders (one source each; their
// tensors stay in the .npy files) and RDR exports, the studio's or MindSpore's (one source
// each, also a crash record of the session). Everything else is skipped with its reason.
// A file a run is still writing (modified in the last minute, its last record cut) is
// imported up to its last complete record and says so. No file is left out of the report.
#include <cstdint>
#include <string>
#include <vector>

#include "core/common/job_control.h"
#include "importers/import_report.h"

namespace ts::store {
class TraceStore;
}

namespace ts::importers {

struct FileFate {
    std::string path;
    std::string kind;  // what it was taken for ("mindspore_summary", "hdf5_dump", ...; "" unknown)
    std::string fate;  // "imported" | "partial" | "failed" | "skipped" | "included"
    std::string detail;  // the reason, or what it belongs to ("part of <item>")
    int report = -1;     // index into FolderImport::reports (-1: none)
};

struct FolderImport {
    std::string root;
    std::vector<ImportReport> reports;  // one per source created (or attempted)
    std::vector<FileFate> files;        // every file found, in path order
    bool cancelled = false;
    /// Counts by fate ("imported" -> 12, ...).
    std::vector<std::pair<std::string, int64_t>> fateCounts() const;
};

struct FolderImportOptions {
    size_t maxFiles = 200'000;
    int maxDepth = 16;
};

/// Imports everything under `dir` into `store`. Cancelled: everything it added is removed.
FolderImport importFolder(const std::string& dir, store::TraceStore& store, JobControl& control,
                          const FolderImportOptions& options = {});

}  // namespace ts::importers
