#include "importers/registry.h"

#include <zlib.h>

#include <cstdio>
#include <filesystem>
#include "core/log/logger.h"

namespace ts::importers {

// Each format's entry point; defined in its folder.
Importer logFileImporter();
Importer tfeventsImporter();
Importer chromeJsonImporter();
Importer nsysSqliteImporter();
Importer cuptiActivityImporter();
Importer mindsporeSummaryImporter();
Importer mindsporeLineageImporter();

const std::vector<Importer>& importers() {
    static const std::vector<Importer> list = [] {
        std::vector<Importer> v;
        v.push_back(logFileImporter());
        v.push_back(tfeventsImporter());
        v.push_back(chromeJsonImporter());
        v.push_back(nsysSqliteImporter());
        v.push_back(cuptiActivityImporter());
        v.push_back(mindsporeSummaryImporter());
        v.push_back(mindsporeLineageImporter());
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
        TS_LOG(IMPORTER, ERROR) << failed.error;
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
        TS_LOG(IMPORTER, ERROR) << path << ": " << failed.error;
        return failed;
    }
    TS_LOG(IMPORTER, INFO) << "importing " << path << " (" << best->description << ")";
    const int64_t stringsBefore = store.maxStringId();
    ImportReport rep = best->run(path, store, control);
    if (rep.status == "cancelled") (void)store.discardUnusedStringsAbove(stringsBefore);
    if (rep.status == "complete" && rep.skipped == 0)
        TS_LOG(IMPORTER, INFO) << path << ": " << rep.events << " records imported";
    else if (rep.status == "complete" || rep.status == "partial")
        TS_LOG(IMPORTER, WARNING) << path << ": " << rep.status << ", " << rep.events
                                  << " records imported, " << rep.skipped << " skipped";
    else
        TS_LOG(IMPORTER, ERROR) << path << ": import " << rep.status
                                << (rep.error.empty() ? "" : ": ") << rep.error;
    return rep;
}

}  // namespace ts::importers
