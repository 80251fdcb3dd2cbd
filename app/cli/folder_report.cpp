#include "app/cli/folder_report.h"

#include <iostream>

namespace ts::cli {

void printFates(const importers::BatchImport& batch) {
    const std::vector<importers::FileFate>& fates = batch.files;
    if (fates.empty()) return;
    std::cout << "\nfiles:\n";
    for (const auto& f : fates) {
        const std::string fate = importers::fateName(f.fate);
        std::cout << "  " << fate << std::string(fate.size() < 9 ? 9 - fate.size() : 1, ' ')
                  << (f.kind.empty() ? "-" : f.kind) << "  " << f.path;
        if (!f.detail.empty()) std::cout << "  (" << f.detail << ")";
        std::cout << "\n";
    }
    std::cout << "files by fate:";
    for (const auto& [fate, n] : batch.fateCounts())
        std::cout << " " << importers::fateName(fate) << " " << n << ",";
    std::cout << " " << fates.size() << " in all\n";
}

void writeFates(JsonWriter& w, const importers::BatchImport& batch) {
    w.Key("files");
    w.StartArray();
    for (const auto& f : batch.files) {
        w.StartObject();
        kv(w, "path", f.path);
        kv(w, "kind", f.kind);
        kv(w, "fate", importers::fateName(f.fate));
        kv(w, "detail", f.detail);
        w.Key("source");
        if (f.report >= 0)
            w.Int(f.report);
        else
            w.Null();
        w.EndObject();
    }
    w.EndArray();
    w.Key("counts");
    w.StartObject();
    for (const auto& [fate, n] : batch.fateCounts()) kv(w, importers::fateName(fate), n);
    w.EndObject();
}

}  // namespace ts::cli
