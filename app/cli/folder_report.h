#pragma once
// What `import DIR` prints about the files of a folder: one line per file (fate, kind,
// path relative to nothing, reason) and the counts by fate; --json: "files" and "counts".
#include "app/cli/command.h"
#include "importers/batch_import.h"

namespace ts::cli {

void printFates(const importers::BatchImport& batch);
void writeFates(JsonWriter& w, const importers::BatchImport& batch);

}  // namespace ts::cli
