#pragma once
// GpuReport: everything the device-side views and the CLI show for one profile source —
// the GPU overview (TensorBoard plugin's figures, the joined steps and their split), the
// kernel table, HTA's analyses under HTA's definitions, the studio's own per-step figures
// beside them, and communication per collective — and its JSON form (the "gpu" object of
// `analyze --json`, `kernels --json`, and each rank of `cluster --json`). No Qt.
#include <cstdint>
#include <string>

#include "core/analysis/gpu/collectives.h"
#include "core/analysis/gpu/gpu_overview.h"
#include "core/analysis/gpu/gpu_trace.h"
#include "core/analysis/gpu/hta.h"
#include "core/analysis/gpu/kernel_table.h"
#include "core/common/json.h"

namespace ts::analysis::gpu {

struct GpuReportOptions {
    HtaOptions hta;
    KernelTableOptions kernels;
};

struct GpuReport {
    int64_t sourceId = 0;
    std::string sourceKind;
    Vendor vendor = Vendor::None;
    std::vector<DeviceProperties> devices;
    int64_t kernels = 0, memcpys = 0, memsets = 0, launchesLinked = 0;
    GpuOverview overview;
    KernelTable kernelTable;
    HtaResult hta;
    CommunicationStats communication;
    bool hasGpu() const { return overview.hasGpu; }
};

GpuReport analyzeGpu(const GpuTrace& g, const GpuReportOptions& options = {});

/// Writes the report as one JSON object: vendor, devices, steps (host, device, joined,
/// split, studio figures), overview, tensor_cores, kernels (the first `maxKernels` rows),
/// hta (with its definitions), studio_per_step, communication.
void writeGpuReportJson(json::Writer& w, const GpuReport& r, size_t maxKernels = 50);
/// The kernel table alone as a JSON array.
void writeKernelTableJson(json::Writer& w, const KernelTable& t, size_t maxRows);
/// HTA's figures alone (also each rank of `cluster --json`).
void writeHtaJson(json::Writer& w, const HtaResult& h);
/// The studio's per-step figures summed over every step.
void writeStudioStepsJson(json::Writer& w, const GpuOverview& o);

}  // namespace ts::analysis::gpu
