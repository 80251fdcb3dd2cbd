#pragma once
// Importing several files into one session, as `trainscope-cli import` and the studio's
// File > Import do: each file with the best importer (registry.h), in order, then processes
// labelled by their source's file when the session holds several (source_labels.h). A
// cancelled batch is undone: the sources it wrote and the strings only they used are removed,
// as if it had not been asked.
#include <string>
#include <vector>

#include "core/common/job_control.h"
#include "core/common/result.h"
#include "core/store/trace_store.h"
#include "importers/import_report.h"

namespace ts::importers {

struct BatchImport {
    std::vector<ImportReport> reports;  // one a file imported (fewer when cancelled)
    bool cancelled = false;             // then nothing of the batch is left in the session
    Status labels;                      // labelling processes by source
    bool anyFailed() const;
};

BatchImport importFiles(const std::vector<std::string>& files, store::TraceStore& store,
                        JobControl& control);

}  // namespace ts::importers
