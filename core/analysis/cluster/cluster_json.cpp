#include "core/analysis/cluster/cluster_json.h"

#include <cmath>

#include "core/analysis/cluster/cluster_ops.h"
#include "core/common/json.h"

namespace ts::analysis {
namespace {

using json::kv;
using Writer = json::Writer;

void writeRank(Writer& w, const RankProfile& r, const RankFigures& f) {
    w.StartObject();
    kv(w, "rank", r.input.rank);
    kv(w, "steps", f.steps);
    kv(w, "step_ms_median", f.stepMsMedian);
    kv(w, "step_ms_p95", f.stepMsP95);
    kv(w, "compute_ms", f.computeMs);
    kv(w, "comm_ms", f.commMs);
    kv(w, "overlap_pct", f.overlapPct);
    kv(w, "idle_ms", f.idleMs);
    kv(w, "wait_ms", f.waitMs);
    kv(w, "work_ms_median", f.workMsMedian);
    kv(w, "work_ms_mean", f.workMsMean);
    kv(w, "step_ms_mean", f.stepMsMean);
    kv(w, "straggler_steps", f.stragglerSteps);
    kv(w, "straggler_excess_ms", f.stragglerExcessMs);
    kv(w, "label", r.input.label);
    kv(w, "rank_from", r.input.rankOrigin);
    if (r.input.worldSize) kv(w, "world_size", *r.input.worldSize);
    kv(w, "counted_on", r.device ? "device" : "host");
    kv(w, "step_markers", r.stepMarker);
    kv(w, "session", r.input.sessionPath);
    w.Key("source_ids");
    w.StartArray();
    for (int64_t id : r.input.sourceIds) w.Int64(id);
    w.EndArray();
    // The device figures under HTA's definitions and the studio's own, named apart.
    if (r.deviceFigures) {
        const RankDeviceFigures& d = *r.deviceFigures;
        w.Key("hta");
        w.StartObject();
        kv(w, "definition",
           "HTA's: GPU work launched before the last profiler step starts, first to last "
           "kernel, memcpy/memset non-compute, timestamps rounded inward to microseconds");
        w.Key("filtered");
        w.Bool(d.htaFiltered);
        kv(w, "gpu_rows_kept", d.htaRowsKept);
        kv(w, "gpu_rows_dropped", d.htaRowsDropped);
        kv(w, "kernel_time_ms", static_cast<double>(d.hta.kernelTimeNs) / 1e6);
        kv(w, "idle_time_pctg", d.hta.idlePct);
        kv(w, "compute_time_pctg", d.hta.computePct);
        kv(w, "non_compute_time_pctg", d.hta.nonComputePct);
        w.Key("comp_comm_overlap_pctg");
        if (d.htaOverlapPct)
            json::finiteOrNull(w, *d.htaOverlapPct);
        else
            w.Null();
        w.EndObject();
        w.Key("studio_per_step");
        w.StartObject();
        kv(w, "definition",
           "the studio's: inside every joined step (the last too), busy = GPU work merged, "
           "compute = non-communication kernels, non-compute = busy - compute");
        kv(w, "steps", d.studioSteps);
        const double span = static_cast<double>(d.studioStepsNs);
        kv(w, "steps_ms", span / 1e6);
        kv(w, "idle_pct", span > 0 ? 100.0 * static_cast<double>(d.studio.idle) / span : 0.0);
        kv(w, "compute_pct", span > 0 ? 100.0 * static_cast<double>(d.studio.compute) / span : 0.0);
        kv(w, "non_compute_pct",
           span > 0 ? 100.0 * static_cast<double>(d.studio.nonCompute) / span : 0.0);
        w.Key("comm_comp_overlap_pct");
        if (d.studio.communication > 0)
            json::finiteOrNull(w, 100.0 * static_cast<double>(d.studio.overlap) /
                                      static_cast<double>(d.studio.communication));
        else
            w.Null();
        w.EndObject();
        w.Key("collectives");
        w.StartObject();
        kv(w, "definition",
           "the n-th call of each collective and process group on every rank that has it is "
           "one collective: wait = latest start among the ranks - this rank's start, transfer = "
           "this rank's end - that latest start");
        kv(w, "matched", d.collectivesMatched);
        kv(w, "wait_ms", static_cast<double>(d.collectiveWaitNs) / 1e6);
        kv(w, "transfer_ms", static_cast<double>(d.collectiveTransferNs) / 1e6);
        w.EndObject();
    }
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
        kv(w, "rank", g.rank);
        kv(w, "step", g.step);
        kv(w, "step_ms", g.stepMs);
        kv(w, "median_ms", g.medianMs);
        kv(w, "work_ms", g.workMs);
        kv(w, "median_work_ms", g.medianWorkMs);
        kv(w, "wait_ms", g.waitMs);
        kv(w, "others_wait_ms", g.othersWaitMs);
        w.EndObject();
    }
    w.EndArray();
    kv(w, "step_columns", static_cast<int64_t>(s.stepCount()));
    w.Key("rule");
    w.StartObject();
    kv(w, "excess_pct_of_median_step", 100 * kStragglerExcess);
    kv(w, "min_excess_ms", static_cast<double>(kStragglerMinNs) / 1e6);
    kv(w, "measure",
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
