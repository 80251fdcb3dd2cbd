#pragma once
// The importer registry: every file format TrainScope reads, and the function that picks
// one for a file by its name and first bytes. Each importer streams its input, never
// crashes on bad bytes, reports progress and honours cancellation through JobControl.
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/job_control.h"
#include "core/store/trace_store.h"
#include "importers/import_report.h"

namespace ts::importers {

/// What a caller knows of a file beyond its path and bytes.
struct ImportOptions {
    /// The name of the run a file that becomes a run of its own (summary, lineage and event
    /// files) goes into; "" -> named by the file's folder. A folder import names it by the
    /// file's folder below the folder imported ("run_1", "sweep/lr_0.1").
    std::string runName;
};

struct Importer {
    std::string name;         // stored as sources.kind, e.g. "chrome_json"
    std::string description;  // for file dialogs and errors
    /// 0 = cannot read it; higher = better match. `head` is the file's first bytes,
    /// already decompressed when the file is gzip.
    std::function<int(const std::string& path, std::string_view head)> sniff;
    /// Imports the whole file as one new source; never throws.
    std::function<ImportReport(const std::string& path, store::TraceStore& store,
                               JobControl& control, const ImportOptions& options)>
        run;
};

/// All importers, in the order they are asked.
const std::vector<Importer>& importers();

/// The importer that reads a file best, by its path and first bytes (`head`, readHead()):
/// the highest sniff score, the first such in importers(); none when every score is 0.
struct ImporterMatch {
    const Importer* importer = nullptr;
    int score = 0;
};
ImporterMatch bestImporter(const std::string& path, std::string_view head);

/// Imports `path` as one new source with `importer` (logging the outcome; a cancelled import
/// gives back the strings it interned).
ImportReport importWith(const Importer& importer, const std::string& path, store::TraceStore& store,
                        JobControl& control, const ImportOptions& options = {});

/// Imports `path` with the best-matching importer. A file no importer reads gets a
/// 'failed' report naming the formats TrainScope knows. A cancelled import removes what it
/// wrote and reports status 'cancelled'.
ImportReport importFile(const std::string& path, store::TraceStore& store, JobControl& control,
                        const ImportOptions& options = {});

/// First bytes of a file (gunzipped when it starts with the gzip magic); "" when unreadable.
std::string readHead(const std::string& path, size_t bytes = 4096);

}  // namespace ts::importers
