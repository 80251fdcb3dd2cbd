#pragma once
// Importers of summary files: MindSpore summary files ("mindspore_summary":
// events.summary.<time>.<host>_MS, written by SummaryRecord / SummaryCollector), MindSpore
// lineage files ("mindspore_lineage": ..._lineage) and, through the same decoder,
// TensorBoard event files (importers/tfevents). One file becomes one source and one run:
// scalars into `scalars` (tags as written, e.g. "loss/auto"), histograms, images, tensors,
// loss landscapes, graphs and HParams into `summary_values`, lineage and HParams parameters
// into `run_params`. Every value that is not kept is counted by reason and every damaged
// record is logged with its byte offset (import_log); such a file is never "complete".
#include <optional>
#include <string>

#include "core/common/job_control.h"
#include "core/summary/summary_event.h"
#include "importers/registry.h"

namespace ts::importers {

Importer mindsporeSummaryImporter();
Importer mindsporeLineageImporter();

namespace summary_import {

struct Options {
    std::string kind = "mindspore_summary";   // sources.kind
    std::string runName;                      // "" -> from the file's name and folder
    std::optional<summary::Dialect> dialect;  // nullopt -> from the name or first record
    /// Record the source as a file a run is still writing: a record cut at the end is
    /// "still being written", not damage (the import is 'partial' and says so). A file
    /// modified in the last minute is taken for one without being told.
    bool live = false;
};

/// Score for the registry: 95 for a MindSpore summary file name, 70 when the first record
/// is a MindSpore Event; 0 otherwise.
int sniffMindSporeSummary(const std::string& path, std::string_view head);
/// 95 for a "..._lineage" file whose first record is a LineageEvent, else 0.
int sniffMindSporeLineage(const std::string& path, std::string_view head);

ImportReport importSummaryFile(const std::string& path, store::TraceStore& store,
                               JobControl& control, const Options& options = {});
ImportReport importLineageFile(const std::string& path, store::TraceStore& store,
                               JobControl& control, const std::string& runName = {});

/// The run name a file gets: its folder's name then the file name ("run_1/events.summary...").
std::string defaultRunName(const std::string& path);

}  // namespace summary_import
}  // namespace ts::importers
