// The root cause of a dump comparison as JSON, for `dump compare --json` (cmd_dump.cpp).
#include "app/cli/dump_ranks.h"

namespace ts::cli {

// The root cause (first op whose inputs agree while an output disagrees), apart from the
// first failing tensor.
void writeRootCause(JsonWriter& w, const debug::CompareReport& r) {
    const auto& rc = r.rootCause;
    w.Key("root_cause");
    if (!rc.unit) {
        w.Null();
    } else {
        const size_t u = *rc.unit;
        w.StartObject();
        kv(w, "op", r.unitNamesA[u]);
        kv(w, "op_b", r.unitNamesB[u]);
        for (const char* io : {"inputs", "outputs"}) {
            w.Key(io);
            w.StartArray();
            for (const auto& p : r.pairs) {
                if (p.unit != u || (p.tensor.io == "input") != (std::string(io) == "inputs"))
                    continue;
                w.StartObject();
                kv(w, "path", p.tensor.path);
                kv(w, "path_b", p.pathB);
                w.Key("pass");
                w.Bool(p.pass);
                w.Key("cosine");
                if (p.error.empty() && p.figures.finitePairs > 0)
                    finiteOrNull(w, p.figures.cosine);
                else
                    w.Null();
                w.EndObject();
            }
            w.EndArray();
        }
        w.EndObject();
    }
    w.Key("root_cause_note");
    if (rc.note.empty())
        w.Null();
    else
        w.String(rc.note.c_str());
    w.Key("root_cause_others");
    w.StartArray();
    for (size_t k = 0; k < rc.others.size() && k < 10; ++k)
        w.String(r.unitNamesA[rc.others[k]].c_str());
    w.EndArray();
    w.Key("first_failing_is_input");
    w.Bool(rc.firstFailingIsInput);
}

}  // namespace ts::cli
