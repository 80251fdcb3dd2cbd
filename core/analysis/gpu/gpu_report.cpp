#include "core/analysis/gpu/gpu_report.h"

namespace ts::analysis::gpu {
namespace {

using json::kv;

void writeDistribution(json::Writer& w, const char* key, const Distribution& d) {
    w.Key(key);
    w.StartObject();
    kv(w, "count", d.count);
    kv(w, "mean", d.mean);
    kv(w, "std", d.std);
    kv(w, "min", d.min);
    kv(w, "p25", d.p25);
    kv(w, "p50", d.p50);
    kv(w, "p75", d.p75);
    kv(w, "max", d.max);
    w.EndObject();
}

void writeSplit(json::Writer& w, const std::array<int64_t, kSplitRoles>& s) {
    w.StartObject();
    for (size_t i = 0; i < kSplitRoles; ++i) kv(w, splitRoleKey(static_cast<SplitRole>(i)), s[i]);
    w.EndObject();
}

void writeDeviceFigures(json::Writer& w, const StepDeviceFigures& d) {
    w.StartObject();
    kv(w, "busy_ns", d.busy);
    kv(w, "idle_ns", d.idle);
    kv(w, "compute_ns", d.compute);
    kv(w, "non_compute_ns", d.nonCompute);
    kv(w, "communication_ns", d.communication);
    kv(w, "memory_ns", d.memory);
    kv(w, "overlap_ns", d.overlap);
    w.EndObject();
}

}  // namespace

GpuReport analyzeGpu(const GpuTrace& g, const GpuReportOptions& opt) {
    GpuReport r;
    r.sourceId = g.sourceId;
    r.sourceKind = g.sourceKind;
    r.vendor = g.vendor;
    r.devices = g.devices;
    for (const DeviceActivity& a : g.activities) {
        if (a.kind == ActivityKind::Kernel) ++r.kernels;
        if (a.kind == ActivityKind::Memcpy) ++r.memcpys;
        if (a.kind == ActivityKind::Memset) ++r.memsets;
        if (a.launch >= 0) ++r.launchesLinked;
    }
    r.overview = computeGpuOverview(g);
    r.kernelTable = buildKernelTable(g, opt.kernels);
    r.hta = computeHta(g, opt.hta);
    r.communication = computeCommunication(g);
    return r;
}

void writeKernelTableJson(json::Writer& w, const KernelTable& t, size_t maxRows) {
    w.StartArray();
    for (size_t i = 0; i < t.rows.size() && i < maxRows; ++i) {
        const KernelRow& r = t.rows[i];
        w.StartObject();
        kv(w, "name", r.name);
        kv(w, "kind", r.kind);
        if (!r.grid.empty()) {
            kv(w, "grid", r.grid);
            kv(w, "block", r.block);
            kv(w, "registers_per_thread", r.registers);
            kv(w, "shared_memory", r.sharedMemory);
        }
        kv(w, "calls", r.calls);
        kv(w, "total_ns", r.totalNs);
        kv(w, "mean_ns", r.meanNs);
        kv(w, "min_ns", r.minNs);
        kv(w, "max_ns", r.maxNs);
        kv(w, "share", r.share);
        w.Key("est_achieved_occupancy");
        if (r.occupancy)
            json::finiteOrNull(w, *r.occupancy);
        else
            w.Null();
        w.Key("theoretical_occupancy");
        if (r.theoretical)
            json::finiteOrNull(w, *r.theoretical);
        else
            w.Null();
        if (!r.limitedBy.empty()) kv(w, "occupancy_limited_by", r.limitedBy);
        if (r.blocksPerSm >= 0) kv(w, "blocks_per_sm", r.blocksPerSm);
        w.Key("tensor_cores");
        w.Bool(r.tensorCore);
        kv(w, "op", r.op);
        kv(w, "op_input_shapes", r.inputShapes);
        kv(w, "op_calls", r.opCalls);
        if (!r.acceleratorCore.empty()) kv(w, "accelerator_core", r.acceleratorCore);
        if (r.blockDim >= 0) kv(w, "block_dim", r.blockDim);
        if (!r.bound.empty()) kv(w, "bound", r.bound);
        if (!r.pipeline.empty()) {
            w.Key("pipeline");
            w.StartObject();
            for (const auto& [k, v] : r.pipeline) kv(w, k.c_str(), v);
            w.EndObject();
        }
        w.EndObject();
    }
    w.EndArray();
}

void writeHtaJson(json::Writer& w, const HtaResult& h) {
    w.StartObject();
    w.Key("applicable");
    w.Bool(h.applicable);
    kv(w, "note", h.note);
    w.Key("rounded_to_us");
    w.Bool(h.rounded);
    w.Key("filtered");
    w.Bool(h.filtered);
    kv(w, "profiler_steps", h.profilerSteps);
    kv(w, "last_step_start_ns", h.lastStepStartNs);
    w.Key("steps_kept");
    w.StartArray();
    for (int64_t s : h.stepsKept) w.Int64(s);
    w.EndArray();
    kv(w, "gpu_rows_kept", h.gpuRowsKept);
    kv(w, "gpu_rows_dropped", h.gpuRowsDropped);
    w.Key("temporal_breakdown");
    w.StartObject();
    kv(w, "idle_time_ns", h.temporal.idleNs);
    kv(w, "compute_time_ns", h.temporal.computeNs);
    kv(w, "non_compute_time_ns", h.temporal.nonComputeNs);
    kv(w, "kernel_time_ns", h.temporal.kernelTimeNs);
    kv(w, "idle_time_pctg", h.temporal.idlePct);
    kv(w, "compute_time_pctg", h.temporal.computePct);
    kv(w, "non_compute_time_pctg", h.temporal.nonComputePct);
    w.EndObject();
    w.Key("comp_comm_overlap_pctg");
    if (h.commCompOverlapPct)
        json::finiteOrNull(w, *h.commCompOverlapPct);
    else
        w.Null();
    kv(w, "consecutive_kernel_delay_ns", h.consecutiveKernelDelayNs);
    w.Key("idle_time_breakdown");
    w.StartArray();
    for (const HtaIdleStream& s : h.idle) {
        w.StartObject();
        kv(w, "stream", s.stream);
        kv(w, "host_wait_ns", s.hostWaitNs);
        kv(w, "kernel_wait_ns", s.kernelWaitNs);
        kv(w, "other_ns", s.otherNs);
        kv(w, "host_wait_ratio", s.hostWaitRatio);
        kv(w, "kernel_wait_ratio", s.kernelWaitRatio);
        kv(w, "other_ratio", s.otherRatio);
        w.EndObject();
    }
    w.EndArray();
    w.Key("queue_length");
    w.StartArray();
    for (const HtaQueueStream& q : h.queue) {
        w.StartObject();
        kv(w, "stream", q.stream);
        writeDistribution(w, "summary", q.length);
        w.EndObject();
    }
    w.EndArray();
    w.Key("memory_bandwidth");
    w.StartArray();
    for (const HtaMemoryBandwidth& m : h.memory) {
        w.StartObject();
        kv(w, "name", m.name);
        kv(w, "rows", m.rows);
        writeDistribution(w, "gbps", m.gbps);
        w.EndObject();
    }
    w.EndArray();
    w.Key("kernel_launch");
    w.StartObject();
    kv(w, "launches", h.launch.launches);
    writeDistribution(w, "cpu_duration_ns", h.launch.cpuDurationNs);
    writeDistribution(w, "gpu_duration_ns", h.launch.gpuDurationNs);
    writeDistribution(w, "launch_delay_ns", h.launch.launchDelayNs);
    writeDistribution(w, "studio_launch_latency_ns", h.launch.latencyNs);
    kv(w, "runtime_outliers", h.launch.runtimeOutliers);
    kv(w, "launch_delay_outliers", h.launch.launchDelayOutliers);
    kv(w, "short_kernels", h.launch.shortKernels);
    w.EndObject();
    w.Key("user_annotations");
    w.StartArray();
    for (const HtaAnnotation& a : h.annotations) {
        w.StartObject();
        kv(w, "name", a.name);
        kv(w, "kernels", a.kernels);
        kv(w, "kernel_ns", a.kernelNs);
        w.EndObject();
    }
    w.EndArray();
    kv(w, "annotated_kernels", h.annotatedKernels);
    w.EndObject();
}

void writeStudioStepsJson(json::Writer& w, const GpuOverview& o) {
    w.StartObject();
    kv(w, "definition",
       "inside each joined step (host ProfilerStep#N joined with the GPU work it launched), "
       "every step counted, the last one too: busy = GPU work merged, idle = step - busy, "
       "compute = non-communication kernels merged (memcpy and memset are not compute), "
       "non_compute = busy - compute, overlap = communication during compute");
    kv(w, "steps", static_cast<int64_t>(o.steps.size()));
    w.Key("total");
    writeDeviceFigures(w, o.deviceTotal);
    int64_t span = 0;
    for (const GpuStep& s : o.steps) span += s.duration();
    kv(w, "steps_ns", span);
    if (span > 0) {
        const auto sp = static_cast<double>(span);
        kv(w, "idle_pct", 100.0 * static_cast<double>(o.deviceTotal.idle) / sp);
        kv(w, "compute_pct", 100.0 * static_cast<double>(o.deviceTotal.compute) / sp);
        kv(w, "non_compute_pct", 100.0 * static_cast<double>(o.deviceTotal.nonCompute) / sp);
    }
    if (o.deviceTotal.communication > 0)
        kv(w, "comm_comp_overlap_pct",
           100.0 * static_cast<double>(o.deviceTotal.overlap) /
               static_cast<double>(o.deviceTotal.communication));
    w.EndObject();
}

void writeGpuReportJson(json::Writer& w, const GpuReport& r, size_t maxKernels) {
    w.StartObject();
    kv(w, "vendor", vendorKey(r.vendor));
    kv(w, "kernels", r.kernels);
    kv(w, "memcpys", r.memcpys);
    kv(w, "memsets", r.memsets);
    kv(w, "launches_linked", r.launchesLinked);
    w.Key("devices");
    w.StartArray();
    for (const DeviceProperties& d : r.devices) {
        w.StartObject();
        kv(w, "id", d.id);
        kv(w, "name", d.name);
        kv(w, "compute_capability", d.computeCapability());
        kv(w, "sms", d.numSms);
        w.EndObject();
    }
    w.EndArray();
    const GpuOverview& o = r.overview;
    w.Key("steps");
    w.StartArray();
    for (const GpuStep& s : o.steps) {
        w.StartObject();
        kv(w, "number", s.number);
        kv(w, "host_start_ns", s.hostStart);
        kv(w, "host_end_ns", s.hostEnd);
        kv(w, "device_start_ns", s.deviceStart);
        kv(w, "device_end_ns", s.deviceEnd);
        kv(w, "gpu_annotation_start_ns", s.annotationStart);
        kv(w, "gpu_annotation_end_ns", s.annotationEnd);
        kv(w, "start_ns", s.start);
        kv(w, "end_ns", s.end);
        kv(w, "launched", s.launched);
        w.Key("in_overview");
        w.Bool(s.inOverview);
        w.Key("split");
        writeSplit(w, s.split);
        w.Key("studio");
        writeDeviceFigures(w, s.device);
        w.EndObject();
    }
    w.EndArray();
    w.Key("overview");
    w.StartObject();
    w.Key("steps_from_profiler_steps");
    w.Bool(o.stepsFromProfilerSteps);
    kv(w, "overview_steps", o.overviewSteps);
    kv(w, "span_start_ns", o.spanStart);
    kv(w, "span_end_ns", o.spanEnd);
    w.Key("split_total");
    writeSplit(w, o.splitTotal);
    w.Key("devices");
    w.StartArray();
    for (const DeviceFigures& d : o.devices) {
        w.StartObject();
        kv(w, "device", d.device);
        kv(w, "name", d.name);
        kv(w, "gpu_utilization", d.utilization);
        w.Key("est_sm_efficiency");
        if (d.smEfficiency)
            json::finiteOrNull(w, *d.smEfficiency);
        else
            w.Null();
        w.Key("est_achieved_occupancy");
        if (d.occupancy)
            json::finiteOrNull(w, *d.occupancy);
        else
            w.Null();
        kv(w, "kernel_time_ns", d.kernelTime);
        w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    w.Key("tensor_cores");
    w.StartObject();
    kv(w, "kernel_ns", o.tensorCores.kernelTime);
    kv(w, "tensor_core_ns", o.tensorCores.tensorCoreTime);
    kv(w, "eligible_op_ns", o.tensorCores.eligibleOpTime);
    kv(w, "eligible_op_tensor_core_ns", o.tensorCores.eligibleOpTcTime);
    w.EndObject();
    w.Key("kernel_table");
    writeKernelTableJson(w, r.kernelTable, maxKernels);
    kv(w, "kernel_groups", static_cast<int64_t>(r.kernelTable.rows.size()));
    w.Key("hta");
    writeHtaJson(w, r.hta);
    w.Key("studio_per_step");
    writeStudioStepsJson(w, o);
    w.Key("communication");
    w.StartObject();
    kv(w, "kernels", r.communication.communicationKernels);
    kv(w, "time_ns", r.communication.communicationNs);
    kv(w, "kernels_without_args", r.communication.kernelsWithoutArgs);
    w.Key("collectives");
    w.StartArray();
    for (const CollectiveStat& c : r.communication.collectives) {
        w.StartObject();
        kv(w, "collective", c.name);
        kv(w, "process_group", c.processGroup);
        kv(w, "dtype", c.dtype);
        kv(w, "group_size", c.groupSize);
        kv(w, "bytes_per_call", c.bytesPerCall);
        kv(w, "calls", c.calls);
        kv(w, "bytes", c.bytes);
        kv(w, "time_ns", c.timeNs);
        kv(w, "min_ns", c.minNs);
        kv(w, "max_ns", c.maxNs);
        kv(w, "algbw_gbps", c.algbwGBs);
        kv(w, "busbw_gbps", c.busbwGBs);
        kv(w, "bus_factor", c.busFactor);
        w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    w.EndObject();
}

}  // namespace ts::analysis::gpu
