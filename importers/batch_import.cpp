#include "importers/batch_import.h"

#include <filesystem>

#include "core/store/delete_run.h"
#include "importers/common/source_labels.h"
#include "importers/folder/folder_import.h"
#include "importers/registry.h"

namespace ts::importers {

const char* fateName(Fate f) {
    switch (f) {
        case Fate::Imported:
            return "imported";
        case Fate::Partial:
            return "partial";
        case Fate::Failed:
            return "failed";
        case Fate::Skipped:
            return "skipped";
        case Fate::Included:
            return "included";
    }
    return "skipped";
}

Fate fateOf(store::SourceStatus status) {
    switch (status) {
        case store::SourceStatus::Complete:
            return Fate::Imported;
        case store::SourceStatus::Partial:
            return Fate::Partial;
        case store::SourceStatus::Cancelled:
            return Fate::Skipped;
        default:
            return Fate::Failed;
    }
}

bool BatchImport::anyFailed() const {
    for (const ImportReport& r : reports)
        if (r.status == store::SourceStatus::Failed) return true;
    return false;
}

std::vector<std::pair<Fate, int64_t>> BatchImport::fateCounts() const {
    std::vector<std::pair<Fate, int64_t>> out;
    for (Fate f : {Fate::Imported, Fate::Partial, Fate::Failed, Fate::Skipped, Fate::Included}) {
        int64_t n = 0;
        for (const FileFate& x : files) n += x.fate == f;
        if (n) out.emplace_back(f, n);
    }
    return out;
}

BatchImport importFiles(const std::vector<std::string>& paths, store::TraceStore& store,
                        JobControl& control) {
    BatchImport out;
    const int64_t stringsBefore = store.maxStringId();
    for (const std::string& p : paths) {
        if (control.cancelled()) break;
        std::error_code ec;
        if (std::filesystem::is_directory(p, ec))
            importFolder(p, store, control, out);
        else
            out.reports.push_back(importFile(p, store, control));
    }
    if (control.cancelled()) {
        for (const ImportReport& r : out.reports) {
            if (r.status == store::SourceStatus::Cancelled) continue;  // undone already
            if (r.createdRunId) (void)store::deleteRun(store, r.createdRunId);
            discardFolderRows(store, r);
            if (r.sourceId) (void)store.deleteSource(r.sourceId);
        }
        (void)store.discardUnusedStringsAbove(stringsBefore);
        out.cancelled = true;
        return out;
    }
    // Last, as it renames processes of sources that were there before.
    out.labels = labelProcessesBySource(store);
    return out;
}

}  // namespace ts::importers
