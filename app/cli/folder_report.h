#pragma once
// What `import DIR` prints about the files of a folder: one line per file (fate, kind,
// path relative to nothing, reason) and the counts by fate; --json: "files" and "counts".
#include <vector>

#include "app/cli/command.h"
#include "importers/folder/folder_import.h"

namespace ts::cli {

void printFates(const std::vector<importers::FileFate>& fates);
void writeFates(JsonWriter& w, const std::vector<importers::FileFate>& fates);

}  // namespace ts::cli
