#include "importers/import_report.h"

#include "core/common/json.h"
#include "core/store/trace_store.h"

namespace ts::importers {

std::string ImportReport::statsJson() const {
    rapidjson::StringBuffer buf;
    json::Writer w(buf);
    w.StartObject();
    auto num = [&](const char* k, int64_t v) { json::kv(w, k, v); };
    num("events", events);
    num("slices", slices);
    num("async_slices", asyncSlices);
    num("instants", instants);
    num("marks", marks);
    num("samples", samples);
    num("counter_samples", counterSamples);
    num("flows", flows);
    num("processes", processes);
    num("threads", threads);
    num("skipped", skipped);
    w.Key("skipped_reasons");
    w.StartObject();
    for (const auto& [k, v] : skippedReasons) num(k.c_str(), v);
    w.EndObject();
    w.Key("extra");
    w.RawValue(extraJson.c_str(), extraJson.size(), rapidjson::kObjectType);
    w.EndObject();
    return buf.GetString();
}

void recordSource(store::TraceStore& store, ImportReport& report) {
    if (!report.sourceId) return;
    store::SourceSummary summary;
    summary.status = report.status;
    summary.error = report.error;
    const bool failed = report.status == store::SourceStatus::Failed;
    if (failed) {
        // A failed import (not a trace, a write that failed: a full disk) keeps nothing but
        // its sources row, whose counts then agree with its rows: none.
        if (auto s = store.discardSourceRows(report.sourceId); !s)
            summary.error += (summary.error.empty() ? "" : "; ") +
                             std::string("its rows could not be removed: ") + s.error();
    }
    summary.events = failed ? 0 : report.events;
    summary.slices = failed ? 0 : report.slices;
    summary.skipped = failed ? 0 : report.skipped;
    if (!failed) {
        summary.tsMin = report.tsMinNs;
        summary.tsMax = report.tsMaxNs;
    }
    summary.statsJson = report.statsJson();
    if (auto s = store.finishSource(report.sourceId, summary); !s && report.error.empty()) {
        report.error = s.error();
        report.status = store::SourceStatus::Failed;
    }
}

}  // namespace ts::importers
