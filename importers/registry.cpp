#include "importers/registry.h"

#include <zlib.h>

#include <cstdio>
#include <filesystem>

#include "core/common/file_io.h"
#include "core/log/logger.h"

namespace ts::importers {

// Each format's entry point; defined in its folder.
Importer logFileImporter();
Importer tfeventsImporter();
Importer chromeJsonImporter();
Importer nsysSqliteImporter();
Importer cuptiActivityImporter();
Importer torchMemoryImporter();
Importer ascendMemoryImporter();
Importer mindsporeSummaryImporter();
Importer mindsporeLineageImporter();
Importer ascendProfilerImporter();

const std::vector<Importer>& importers() {
    static const std::vector<Importer> list = [] {
        std::vector<Importer> v;
        v.push_back(logFileImporter());
        v.push_back(tfeventsImporter());
        v.push_back(chromeJsonImporter());
        v.push_back(nsysSqliteImporter());
        v.push_back(cuptiActivityImporter());
        v.push_back(torchMemoryImporter());
        v.push_back(ascendMemoryImporter());
        v.push_back(mindsporeSummaryImporter());
        v.push_back(mindsporeLineageImporter());
        v.push_back(ascendProfilerImporter());
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

ImporterMatch bestImporter(const std::string& path, std::string_view head) {
    ImporterMatch best;
    for (const Importer& imp : importers()) {
        const int score = imp.sniff(path, head);
        if (score > best.score) best = {&imp, score};
    }
    return best;
}

ImportReport importWith(const Importer& importer, const std::string& path, store::TraceStore& store,
                        JobControl& control, const ImportOptions& options) {
    TS_LOG(IMPORTER, INFO) << "importing " << path << " (" << importer.description << ")";
    const int64_t stringsBefore = store.maxStringId();
    ImportReport rep = importer.run(path, store, control, options);
    if (rep.status == store::SourceStatus::Cancelled)
        (void)store.discardUnusedStringsAbove(stringsBefore);
    if (rep.status == store::SourceStatus::Complete && rep.skipped == 0)
        TS_LOG(IMPORTER, INFO) << path << ": " << rep.events << " records imported";
    else if (rep.status == store::SourceStatus::Complete ||
             rep.status == store::SourceStatus::Partial)
        TS_LOG(IMPORTER, WARNING) << path << ": " << store::statusName(rep.status) << ", "
                                  << rep.events << " records imported, " << rep.skipped
                                  << " skipped";
    else
        TS_LOG(IMPORTER, ERROR) << path << ": import " << store::statusName(rep.status)
                                << (rep.error.empty() ? "" : ": ") << rep.error;
    return rep;
}

ImportReport importFile(const std::string& path, store::TraceStore& store, JobControl& control,
                        const ImportOptions& options) {
    ImportReport failed;
    failed.path = path;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(path, ec)) {
        failed.error = "no such file: " + path;
        TS_LOG(IMPORTER, ERROR) << failed.error;
        return failed;
    }
    if (sameFile(path, store.path())) {
        failed.error = "'" + path + "' is the session being imported into; not imported";
        TS_LOG(IMPORTER, ERROR) << failed.error;
        return failed;
    }
    const ImporterMatch best = bestImporter(path, readHead(path));
    if (!best.importer) {
        std::string known;
        for (const Importer& imp : importers())
            known += (known.empty() ? "" : ", ") + imp.description;
        failed.error = "unrecognised file format (TrainScope reads: " + known + ")";
        TS_LOG(IMPORTER, ERROR) << path << ": " << failed.error;
        return failed;
    }
    return importWith(*best.importer, path, store, control, options);
}

}  // namespace ts::importers
