// trainscope-cli import FILE|DIR... -o SESSION: imports trace files into a session (created
// when missing). A folder is walked whole (importers/folder/folder_import.h): every file it
// holds is listed with its fate (imported, partial, failed, skipped with the reason, or
// included in a dump / RDR export). With --json prints {"sources": [...], "files": [...],
// "counts": {...}} (skipped = problems + expected_skips, core/store/import_problems.h);
// exits 1 when any source failed.
#include <iostream>

#include "app/cli/folder_report.h"
#include "app/cli/session_open.h"
#include "importers/batch_import.h"

namespace ts::cli {
namespace {

void writeReport(JsonWriter& w, const importers::ImportReport& r) {
    w.StartObject();
    kv(w, "path", r.path);
    kv(w, "status", store::statusName(r.status));
    w.Key("error");
    if (r.error.empty())
        w.Null();
    else
        w.String(r.error.c_str());
    kv(w, "events", r.events);
    kv(w, "slices", r.slices);
    kv(w, "async_slices", r.asyncSlices);
    kv(w, "instants", r.instants);
    kv(w, "marks", r.marks);
    kv(w, "samples", r.samples);
    kv(w, "counter_samples", r.counterSamples);
    kv(w, "flows", r.flows);
    kv(w, "processes", r.processes);
    kv(w, "threads", r.threads);
    kv(w, "skipped", r.skipped);
    kv(w, "problems", r.problems());
    kv(w, "expected_skips", r.expectedSkips());
    w.Key("skipped_reasons");
    w.StartObject();
    for (const auto& [k, v] : r.skippedReasons) kv(w, k.c_str(), v);
    w.EndObject();
    w.Key("ts_min_ns");
    if (r.tsMinNs)
        w.Int64(*r.tsMinNs);
    else
        w.Null();
    w.Key("ts_max_ns");
    if (r.tsMaxNs)
        w.Int64(*r.tsMaxNs);
    else
        w.Null();
    w.EndObject();
}

int runImport(const Args& args) {
    const auto out = args.value("output");
    if (!out || out->empty()) throw CliError{"import needs -o SESSION"};
    auto store = openSession(*out, store::TraceStore::Mode::Create);
    JobControl control;
    const importers::BatchImport batch = importers::importFiles(args.positional, *store, control);
    const std::vector<importers::ImportReport>& reports = batch.reports;
    if (!batch.labels)
        std::cerr << "warning: cannot label processes by source: " << batch.labels.error() << "\n";
    if (args.json) {
        rapidjson::StringBuffer buf;
        JsonWriter w(buf);
        w.StartObject();
        w.Key("sources");
        w.StartArray();
        for (const auto& r : reports) writeReport(w, r);
        w.EndArray();
        writeFates(w, batch);
        w.EndObject();
        printJson(buf);
    } else {
        for (const auto& r : reports) {
            std::cout << r.path << ": " << store::statusName(r.status) << ", " << r.events
                      << " events, " << r.slices << " slices, " << r.asyncSlices
                      << " async slices, " << r.instants << " instants, " << r.marks << " marks, "
                      << r.samples << " samples, " << r.counterSamples << " counter samples, "
                      << r.flows << " flows, " << r.skipped << " skipped";
            if (r.skipped > 0)
                std::cout << " (" << r.problems() << " problems, " << r.expectedSkips()
                          << " expected)";
            if (!r.error.empty()) std::cout << " (" << r.error << ")";
            std::cout << "\n";
        }
        printFates(batch);
    }
    return batch.anyFailed() ? 1 : 0;
}

TS_CLI_COMMAND("import",
               "import files or whole folders (traces, summaries, lineage, TensorBoard, logs, "
               "dumps, RDR exports) into a session; a folder reports every file's fate",
               "FILE|DIR... -o SESSION [--json]",
               {{"output", true, "session file to write, created when missing (also -o)"}},
               &runImport, 1, -1);

}  // namespace
}  // namespace ts::cli
