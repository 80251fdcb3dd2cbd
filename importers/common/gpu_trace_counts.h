#pragma once
// What the GPU importers (Nsight Systems, CUPTI activity files) add to their report from the
// counts of the rows a GpuTraceBuilder wrote.
#include "core/profiler/gpu/gpu_trace_builder.h"
#include "importers/import_report.h"

namespace ts::importers {

inline void addTraceCounts(ImportReport& r, const profiler::gpu::TraceCounts& c) {
    r.processes += c.processes;
    r.threads += c.threads;
    r.slices += c.slices;
    r.asyncSlices += c.asyncSlices;
    r.instants += c.instants;
    r.flows += c.flows;
    if (c.tsMin) r.seeTime(*c.tsMin, *c.tsMax);
}

}  // namespace ts::importers
