#include "importers/run_artifacts.h"

#include "importers/registry.h"

namespace ts::importers {

run::ArtifactImporter runArtifactImporter() {
    return [](const std::string& path, store::TraceStore& store, JobControl& control) {
        run::ArtifactImport out;
        const ImporterMatch best = bestImporter(path, readHead(path));
        const std::string kind = best.importer ? best.importer->name : std::string();
        // Any JSON document sniffs as a possible Chrome trace; a run's folder also holds
        // configs and hyper-parameters, so a trace must show trace events in its head.
        if (kind != "chrome_json" && kind != "nsys_sqlite" && kind != "cupti_activity") return out;
        if (kind == "chrome_json" && best.score < 80) return out;
        out.recognised = true;
        const ImportReport rep = importWith(*best.importer, path, store, control);
        out.sourceId = rep.sourceId;
        out.kind = rep.kind;
        out.status = rep.status;
        out.error = rep.error;
        out.slices = rep.slices + rep.asyncSlices;
        return out;
    };
}

}  // namespace ts::importers
