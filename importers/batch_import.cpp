#include "importers/batch_import.h"

#include "importers/ascend/ascend_files.h"

#include "importers/common/source_labels.h"
#include "importers/registry.h"

namespace ts::importers {

bool BatchImport::anyFailed() const {
    for (const ImportReport& r : reports)
        if (r.status == store::SourceStatus::Failed) return true;
    return false;
}

BatchImport importFiles(const std::vector<std::string>& files, store::TraceStore& store,
                        JobControl& control) {
    BatchImport out;
    const int64_t stringsBefore = store.maxStringId();
    // An Ascend / MindSpore profiler folder stands for the files in it the studio reads.
    for (const std::string& f : ascend::expandAscendFolders(files)) {
        if (control.cancelled()) break;
        out.reports.push_back(importFile(f, store, control));
    }
    if (control.cancelled()) {
        for (const ImportReport& r : out.reports)
            if (r.sourceId && r.status != store::SourceStatus::Cancelled)
                (void)store.deleteSource(r.sourceId);
        (void)store.discardUnusedStringsAbove(stringsBefore);
        out.cancelled = true;
        return out;
    }
    // Last, as it renames processes of sources that were there before.
    out.labels = labelProcessesBySource(store);
    return out;
}

}  // namespace ts::importers
