#pragma once
// Importing several files and folders into one session, as `trainscope-cli import`, the
// studio's File > Import and File > Open Folder do: each file with the best importer
// (registry.h), each folder walked whole so that every file it holds gets a fate
// (folder/folder_import.h), in order, then processes labelled by their source's file when
// the session holds several (source_labels.h). A cancelled batch is undone: the sources it
// wrote, the runs it made, the dump files and crash records it registered and the strings only
// they used are removed, as if it had not been asked.
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "core/common/job_control.h"
#include "core/common/result.h"
#include "core/store/trace_store.h"
#include "importers/import_report.h"

namespace ts::importers {

/// What became of one file of a folder.
enum class Fate {
    Imported,  // a source of its own, complete
    Partial,   // a source, with what could not be read counted and logged
    Failed,    // nothing of it could be imported
    Skipped,   // not imported, for the reason in `detail`
    Included,  // part of an item (a dump iteration, a crash-record folder) with its source
};
/// "imported" | "partial" | "failed" | "skipped" | "included".
const char* fateName(Fate f);
/// The fate of a file imported as a source of this status.
Fate fateOf(store::SourceStatus status);

struct FileFate {
    std::string path;
    std::string kind;  // what it was taken for ("mindspore_summary", "hdf5_dump"; "" unknown)
    Fate fate = Fate::Skipped;
    std::string detail;  // the reason, or what it belongs to ("part of the dump <item>")
    int report = -1;     // index into BatchImport::reports (-1: none)
};

struct BatchImport {
    std::vector<ImportReport> reports;  // a source each (fewer when cancelled)
    std::vector<std::string> folders;   // the folders among the paths, as walked
    std::vector<FileFate> files;        // every file of those folders, in path order
    bool cancelled = false;             // then nothing of the batch is left in the session
    Status labels;                      // labelling processes by source
    bool anyFailed() const;
    /// Counts of `files` by fate, in Fate order (fates no file has are left out).
    std::vector<std::pair<Fate, int64_t>> fateCounts() const;
};

/// Imports `paths` (files and folders) in order.
BatchImport importFiles(const std::vector<std::string>& paths, store::TraceStore& store,
                        JobControl& control);

}  // namespace ts::importers
