#include "app/cli/folder_report.h"

#include <iostream>
#include <map>

namespace ts::cli {

namespace {
std::map<std::string, int64_t> counts(const std::vector<importers::FileFate>& fates) {
    std::map<std::string, int64_t> m;
    for (const auto& f : fates) ++m[f.fate];
    return m;
}
}  // namespace

void printFates(const std::vector<importers::FileFate>& fates) {
    if (fates.empty()) return;
    std::cout << "\nfiles:\n";
    for (const auto& f : fates) {
        std::cout << "  " << f.fate << std::string(f.fate.size() < 9 ? 9 - f.fate.size() : 1, ' ')
                  << (f.kind.empty() ? "-" : f.kind) << "  " << f.path;
        if (!f.detail.empty()) std::cout << "  (" << f.detail << ")";
        std::cout << "\n";
    }
    std::cout << "files by fate:";
    for (const auto& [fate, n] : counts(fates)) std::cout << " " << fate << " " << n << ",";
    std::cout << " " << fates.size() << " in all\n";
}

void writeFates(JsonWriter& w, const std::vector<importers::FileFate>& fates) {
    w.Key("files");
    w.StartArray();
    for (const auto& f : fates) {
        w.StartObject();
        kv(w, "path", f.path);
        kv(w, "kind", f.kind);
        kv(w, "fate", f.fate);
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
    for (const auto& [fate, n] : counts(fates)) kv(w, fate.c_str(), n);
    w.EndObject();
}

}  // namespace ts::cli
