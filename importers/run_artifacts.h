#pragma once
// The importer a command run uses for the traces that appear in its watched folders
// (core/run/command_run.h cannot reach the importers itself: they live above core). A file
// that no trace importer claims (a JSON file that is not a trace: a config, hparams) is not
// recognised and nothing is written.
#include "core/run/command_run.h"

namespace ts::importers {

/// Imports a Chrome / Kineto / msprof JSON trace, an Nsight Systems SQLite export or a CUPTI
/// collector's activity file.
run::ArtifactImporter runArtifactImporter();

}  // namespace ts::importers
