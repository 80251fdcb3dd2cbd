#include "core/analysis/cluster/cluster_json.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cmath>

#include "core/analysis/cluster/cluster_ops.h"

namespace ts::analysis {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void str(Writer& w, const char* key, const std::string& v) {
    w.Key(key);
    w.String(v.c_str(), static_cast<rapidjson::SizeType>(v.size()));
}
void num(Writer& w, const char* key, double v) {
    w.Key(key);
    if (std::isfinite(v))
        w.Double(v);
    else
        w.Null();
}
void integer(Writer& w, const char* key, int64_t v) {
    w.Key(key);
    w.Int64(v);
}

void writeRank(Writer& w, const RankProfile& r, const RankFigures& f) {
    w.StartObject();
    integer(w, "rank", r.input.rank);
    integer(w, "steps", f.steps);
    num(w, "step_ms_median", f.stepMsMedian);
    num(w, "step_ms_p95", f.stepMsP95);
    num(w, "compute_ms", f.computeMs);
    num(w, "comm_ms", f.commMs);
    num(w, "overlap_pct", f.overlapPct);
    num(w, "idle_ms", f.idleMs);
    num(w, "wait_ms", f.waitMs);
    num(w, "work_ms_median", f.workMsMedian);
    num(w, "work_ms_mean", f.workMsMean);
    num(w, "step_ms_mean", f.stepMsMean);
    integer(w, "straggler_steps", f.stragglerSteps);
    num(w, "straggler_excess_ms", f.stragglerExcessMs);
    str(w, "label", r.input.label);
    str(w, "rank_from", r.input.rankOrigin);
    if (r.input.worldSize) integer(w, "world_size", *r.input.worldSize);
    str(w, "counted_on", r.device ? "device" : "host");
    str(w, "step_markers", r.stepMarker);
    str(w, "session", r.input.sessionPath);
    w.Key("source_ids");
    w.StartArray();
    for (int64_t id : r.input.sourceIds) w.Int64(id);
    w.EndArray();
    w.EndObject();
}

}  // namespace

std::string clusterSummaryJson(const ClusterSummary& s) {
    rapidjson::StringBuffer buf;
    Writer w(buf);
    w.SetMaxDecimalPlaces(3);
    w.StartObject();
    w.Key("ranks");
    w.StartArray();
    for (size_t i = 0; i < s.ranks.size(); ++i) writeRank(w, s.ranks[i], s.figures[i]);
    w.EndArray();
    w.Key("slowest_rank");
    if (s.slowestRank)
        w.Int64(*s.slowestRank);
    else
        w.Null();
    w.Key("stragglers");
    w.StartArray();
    for (const Straggler& g : s.stragglers) {
        w.StartObject();
        integer(w, "rank", g.rank);
        integer(w, "step", g.step);
        num(w, "step_ms", g.stepMs);
        num(w, "median_ms", g.medianMs);
        num(w, "work_ms", g.workMs);
        num(w, "median_work_ms", g.medianWorkMs);
        num(w, "wait_ms", g.waitMs);
        num(w, "others_wait_ms", g.othersWaitMs);
        w.EndObject();
    }
    w.EndArray();
    integer(w, "step_columns", static_cast<int64_t>(s.stepCount()));
    w.Key("rule");
    w.StartObject();
    num(w, "excess_pct_of_median_step", 100 * kStragglerExcess);
    num(w, "min_excess_ms", static_cast<double>(kStragglerMinNs) / 1e6);
    str(w, "measure",
        "work_ms = step_ms - wait_ms (communication not overlapped by compute); a straggler's "
        "work_ms - median_work_ms exceeds both");
    w.EndObject();
    w.Key("comm_patterns");
    w.StartArray();
    for (const CommPattern& p : commPatterns()) {
        const std::string t =
            p.prefix ? std::string(p.text) + "*" : "*" + std::string(p.text) + "*";
        w.String(t.c_str(), static_cast<rapidjson::SizeType>(t.size()));
    }
    w.EndArray();
    w.Key("warnings");
    w.StartArray();
    for (const std::string& m : s.warnings)
        w.String(m.c_str(), static_cast<rapidjson::SizeType>(m.size()));
    w.EndArray();
    w.EndObject();
    return std::string(buf.GetString(), buf.GetSize());
}

}  // namespace ts::analysis
