// trainscope-cli export SESSION --chrome OUT.json [--source N] [--run N]: writes the trace
// data of a session (one source, the profile of one run, or all) as a Chrome trace.
#include <iostream>

#include "app/cli/session_open.h"
#include "core/export/chrome/chrome_export.h"

namespace ts::cli {
namespace {

int runExport(const Args& args) {
    const auto outPath = args.value("chrome");
    if (!outPath) throw CliError{"export needs --chrome OUT.json"};
    auto store = openSession(args.positional[0], store::TraceStore::Mode::ReadOnly);
    std::optional<int64_t> source;
    if (args.has("source")) source = intOption(args, "source");
    if (args.has("run")) {
        const int64_t runId = intOption(args, "run");
        auto runs = store->runs();
        if (!runs) throw CliError{runs.error()};
        bool found = false;
        for (const auto& r : runs.value())
            if (r.id == runId) {
                found = true;
                if (!r.profileSourceId)
                    throw CliError{"run " + std::to_string(runId) + " has no profile"};
                source = r.profileSourceId;
            }
        if (!found) throw CliError{"no run " + std::to_string(runId) + " in the session"};
    }
    if (source) {
        auto sources = store->sources();
        if (!sources) throw CliError{sources.error()};
        bool found = false;
        for (const auto& s : sources.value()) found |= s.id == *source;
        if (!found) throw CliError{"no source " + std::to_string(*source) + " in the session"};
    }
    auto st = chrome_export::exportChromeTrace(*store, *outPath, source);
    if (!st) throw CliError{st.error()};
    const auto& s = st.value();
    if (args.json) {
        rapidjson::StringBuffer buf;
        JsonWriter w(buf);
        w.StartObject();
        kv(w, "path", *outPath);
        kv(w, "events", s.events);
        kv(w, "slices", s.slices);
        kv(w, "async_slices", s.asyncSlices);
        kv(w, "instants", s.instants);
        kv(w, "marks", s.marks);
        kv(w, "samples", s.samples);
        kv(w, "counter_samples", s.counterSamples);
        kv(w, "flows", s.flows);
        w.EndObject();
        printJson(buf);
    } else {
        std::cout << "wrote " << *outPath << ": " << s.events << " events (" << s.slices
                  << " slices, " << s.asyncSlices << " async slices, " << s.instants
                  << " instants, " << s.marks << " marks, " << s.samples << " samples, "
                  << s.counterSamples << " counter samples, " << s.flows << " flows)\n";
    }
    return 0;
}

TS_CLI_COMMAND("export",
               "export a session's trace as Chrome trace JSON (chrome://tracing, Perfetto)",
               "SESSION --chrome OUT.json [--source N] [--run N] [--json]",
               {{"chrome", true, "Chrome trace JSON file to write"},
                {"source", true, "only this source id"},
                {"run", true, "only the profile of this run id"}},
               &runExport, 1, 1);

}  // namespace
}  // namespace ts::cli
