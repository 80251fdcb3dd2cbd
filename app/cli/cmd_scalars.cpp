// trainscope-cli scalars SESSION [--run N] [--tag T] [--smoothing W] [--json]: the scalar
// series of a session's training runs, as CSV (see core/curves/scalar_csv.h) or as
// {"runs":[{"id","name","status","series":[{"tag","points":[[step,wall_time_ns,value],...]}],
//           "overflow_steps":[...]}]}.
#include <charconv>
#include <iostream>

#include "app/cli/session_open.h"
#include "core/curves/scalar_csv.h"
#include "core/curves/scalar_series.h"

namespace ts::cli {
namespace {

void writeRun(JsonWriter& w, const curves::RunScalars& run) {
    w.StartObject();
    kv(w, "id", run.runId);
    kv(w, "name", run.name);
    kv(w, "status", store::statusName(run.status));
    w.Key("series");
    w.StartArray();
    for (const auto& s : run.series) {
        w.StartObject();
        kv(w, "tag", s.tag);
        w.Key("points");
        w.StartArray();
        for (const auto& p : s.points) {
            w.StartArray();
            w.Int64(p.step);
            w.Int64(p.wallTimeNs);
            finiteOrNull(w, p.value);
            w.EndArray();
        }
        w.EndArray();
        w.EndObject();
    }
    w.EndArray();
    w.Key("overflow_steps");
    w.StartArray();
    for (const auto& o : run.overflows) w.Int64(o.step);
    w.EndArray();
    w.EndObject();
}

int runScalars(const Args& args) {
    auto store = openSession(args.positional[0], store::TraceStore::Mode::ReadOnly);
    const std::string tag = args.valueOr("tag", "");
    const double weight =
        numberOption(args, "smoothing", 0.0, {.min = 0, .max = 1, .belowMax = true});

    std::vector<int64_t> ids;
    if (args.has("run")) {
        ids.push_back(intOption(args, "run", 0, {.min = 1}));
    } else {
        auto runs = curves::listRuns(*store);
        if (!runs) throw CliError{runs.error()};
        for (const auto& r : runs.value()) ids.push_back(r.id);
    }
    std::vector<curves::RunScalars> data;
    for (int64_t id : ids) {
        auto r = curves::readRunScalars(*store, id, {}, tag);
        if (!r) throw CliError{r.error()};
        data.push_back(std::move(r.value()));
    }

    if (args.json) {
        rapidjson::StringBuffer buf;
        JsonWriter w(buf);
        w.StartObject();
        w.Key("runs");
        w.StartArray();
        for (const auto& run : data) writeRun(w, run);
        w.EndArray();
        w.EndObject();
        printJson(buf);
        return 0;
    }
    std::cout << curves::scalarsCsv(data, weight);
    std::cout.flush();
    return 0;
}

TS_CLI_COMMAND("scalars", "print the scalar series (loss, accuracy, lr, ...) of training runs",
               "SESSION [--run N] [--tag T] [--smoothing W] [--json]",
               {{"run", true, "only the run with this id"},
                {"tag", true, "only this tag, e.g. train/loss"},
                {"smoothing", true, "weight of the CSV's smoothed column, 0..0.999 (default 0)"}},
               &runScalars, 1, 1);

}  // namespace
}  // namespace ts::cli
