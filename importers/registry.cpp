#include "importers/registry.h"

#include <zlib.h>

#include <cstdio>
#include <filesystem>

namespace ts::importers {

// Each format's entry point; defined in its folder.
Importer logFileImporter();
Importer tfeventsImporter();
Importer chromeJsonImporter();
Importer nsysSqliteImporter();

const std::vector<Importer>& importers() {
    static const std::vector<Importer> list = [] {
        std::vector<Importer> v;
        v.push_back(logFileImporter());
        v.push_back(tfeventsImporter());
        v.push_back(chromeJsonImporter());
        v.push_back(nsysSqliteImporter());
        return v;
    }();
    return list;
}

std::string readHead(const std::string& path, size_t bytes) {
    gzFile f = gzopen(path.c_str(), "rb");  // reads plain files unchanged
    if (!f) return {};
    std::string buf(bytes, '\0');
    const int n = gzread(f, buf.data(), static_cast<unsigned>(bytes));
    gzclose(f);
    buf.resize(n > 0 ? static_cast<size_t>(n) : 0);
    return buf;
}

ImportReport importFile(const std::string& path, store::TraceStore& store, JobControl& control) {
    ImportReport failed;
    failed.path = path;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
        failed.error = "no such file: " + path;
        return failed;
    }
    const std::string head = readHead(path);
    const Importer* best = nullptr;
    int bestScore = 0;
    for (const Importer& imp : importers()) {
        const int score = imp.sniff(path, head);
        if (score > bestScore) {
            bestScore = score;
            best = &imp;
        }
    }
    if (!best) {
        std::string known;
        for (const Importer& imp : importers())
            known += (known.empty() ? "" : ", ") + imp.description;
        failed.error = "unrecognised file format (TrainScope reads: " + known + ")";
        return failed;
    }
    const int64_t stringsBefore = store.maxStringId();
    ImportReport report = best->run(path, store, control);
    if (report.status == "cancelled") (void)store.discardUnusedStringsAbove(stringsBefore);
    return report;
}

}  // namespace ts::importers
