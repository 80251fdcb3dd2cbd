// The device rules of the advice (advice.h): CUDA / ROCm and Ascend, each in the terms of
// its own stack, with the figures of the GPU report and the calls that prove them.
#include <algorithm>
#include <cstdio>
#include <initializer_list>
#include <string_view>

#include "core/analysis/gpu/kernel_rules.h"
#include "core/analysis/profile/advice.h"
#include "core/common/units.h"
#include "core/timeline/time_axis.h"

namespace ts::analysis {
namespace {

using gpu::GpuReport;
using gpu::SplitRole;

/// Concatenation without GCC 12's false -Warray-bounds on chains of operator+.
std::string join(std::initializer_list<std::string_view> parts) {
    std::string out;
    size_t n = 0;
    for (std::string_view p : parts) n += p.size();
    out.reserve(n);
    for (std::string_view p : parts) out.append(p.data(), p.size());
    return out;
}

/// `s` cut to `max` characters with "..." when longer.
std::string shortened(const std::string& s, size_t max) {
    if (s.size() <= max) return s;
    std::string out(s.begin(), s.begin() + static_cast<std::ptrdiff_t>(max));
    out[max - 3] = out[max - 2] = out[max - 1] = '.';
    return out;
}

std::string durI(int64_t ns) {
    return formatDuration(static_cast<double>(ns));
}

const char* deviceWord(const std::string& device) {
    return device == "ascend" ? "NPU" : "GPU";
}

int64_t stepsTime(const GpuReport& g) {
    int64_t t = 0;
    for (const auto& s : g.overview.steps) t += s.duration();
    return t;
}

int64_t split(const GpuReport& g, SplitRole r) {
    return g.overview.splitTotal[static_cast<size_t>(r)];
}

int64_t splitSum(const GpuReport& g) {
    int64_t t = 0;
    for (int64_t v : g.overview.splitTotal) t += v;
    return t;
}

/// The joined step with the most of `value`, as evidence.
void stepEvidence(AdviceFinding& f, const GpuReport& g, int64_t (*value)(const gpu::GpuStep&)) {
    const gpu::GpuStep* worst = nullptr;
    for (const auto& s : g.overview.steps)
        if (!worst || value(s) > value(*worst)) worst = &s;
    if (!worst) return;
    if (worst->hostSliceId) {
        f.evidence.push_back(worst->hostSliceId);
        f.evidenceLabels.push_back("ProfilerStep#" + std::to_string(worst->number) + " (" +
                                   durI(worst->duration()) + ")");
        f.evidenceRanges.emplace_back(worst->start, worst->end);
    }
    f.rangeStart = worst->start;
    f.rangeEnd = worst->end;
}

void kernelEvidence(AdviceFinding& f, const GpuReport& g, const gpu::KernelRow& row) {
    for (int64_t id : row.sliceIds) {
        f.evidence.push_back(id);
        f.evidenceLabels.push_back(row.name.substr(0, 80) + " (" + row.kind + ")");
        // The step around the kernel is not known per call here: the whole span shows it.
        f.evidenceRanges.emplace_back(g.overview.spanStart, g.overview.spanEnd);
    }
    f.rangeStart = g.overview.spanStart;
    f.rangeEnd = g.overview.spanEnd;
}

void gpuIdleRule(const GpuReport& g, const std::string& device, std::vector<AdviceFinding>& out) {
    const int64_t total = stepsTime(g);
    if (total <= 0) return;
    const int64_t idle = g.overview.deviceTotal.idle;
    const double share = static_cast<double>(idle) / static_cast<double>(total);
    if (share <= kGpuIdleShare) return;
    const char* dev = deviceWord(device);
    AdviceFinding f;
    f.kind = AdviceKind::GpuIdle;
    f.share = share;
    f.threshold = kGpuIdleShare;
    f.costNs = idle;
    f.title = join({"The ", dev, " is idle ", formatShare(share), " of the step time"});
    int64_t hostWait = 0, kernelWait = 0, other = 0;
    for (const auto& s : g.hta.idle) {
        hostWait += s.hostWaitNs;
        kernelWait += s.kernelWaitNs;
        other += s.otherNs;
    }
    const int64_t gaps = hostWait + kernelWait + other;
    const bool hostBound = gaps > 0 && hostWait * 2 >= gaps;
    if (device == "ascend") {
        f.explanation =
            "Inside the steps the NPU runs nothing for a large share of the time: the host does "
            "not dispatch operators fast enough (operator launch through the CANN runtime, "
            "Python, synchronisations) or waits for data. Enable the task queue "
            "(TASK_QUEUE_ENABLE), use graph mode or torch_npu's compiled paths to cut "
            "per-operator dispatch, raise the batch size, and avoid host syncs such as "
            ".item() and .cpu() inside the step.";
    } else {
        f.explanation = std::string(
                            "Inside the steps the GPU runs nothing for a large share of the "
                            "time: the host does not keep it fed. ") +
                        (hostBound ? "HTA's idle-time breakdown puts most gaps between kernels "
                                     "on host wait (the kernel's launch came after the previous "
                                     "kernel had finished), so the host is the bottleneck: "
                                   : "") +
                        "cut the host's work per kernel — CUDA graphs or torch.compile (fewer, "
                        "fused launches), a larger batch per step, no host synchronisations "
                        "(.item(), .cpu(), printing tensors) inside the step, and more "
                        "DataLoader workers with pinned memory if the split shows data loading.";
    }
    const int64_t splitTotal = splitSum(g);
    f.figures = {{"idle in the steps", durI(idle)},
                 {"steps (joined with their device side)", durI(total)},
                 {"share", formatShare(share)},
                 {"threshold", formatShare(kGpuIdleShare)}};
    if (splitTotal > 0) {
        const auto st = static_cast<double>(splitTotal);
        f.figures.emplace_back("host in runtime calls (split)",
                               formatShare(static_cast<double>(split(g, SplitRole::Runtime)) / st));
        f.figures.emplace_back("host in CPU execution (split)",
                               formatShare(static_cast<double>(split(g, SplitRole::CpuExec)) / st));
        f.figures.emplace_back(
            "host in data loading (split)",
            formatShare(static_cast<double>(split(g, SplitRole::DataLoader)) / st));
    }
    if (gaps > 0) {
        f.figures.emplace_back("HTA idle: host wait", formatShare(static_cast<double>(hostWait) /
                                                                  static_cast<double>(gaps)));
        f.figures.emplace_back(
            "HTA idle: kernel wait",
            formatShare(static_cast<double>(kernelWait) / static_cast<double>(gaps)));
        f.figures.emplace_back("HTA idle: other",
                               formatShare(static_cast<double>(other) / static_cast<double>(gaps)));
    }
    stepEvidence(f, g, [](const gpu::GpuStep& s) { return s.device.idle; });
    out.push_back(std::move(f));
}

void kernelBottleneckRule(const GpuReport& g, const std::string& device,
                          std::vector<AdviceFinding>& out) {
    const auto& t = g.kernelTable;
    const gpu::KernelRow* top = nullptr;
    int64_t kernelTime = 0;
    for (const auto& r : t.rows) {
        if (r.kind == "memcpy" || r.kind == "memset") continue;
        kernelTime += r.totalNs;
        if (!top || r.totalNs > top->totalNs) top = &r;
    }
    if (!top || kernelTime <= 0) return;
    const double share = static_cast<double>(top->totalNs) / static_cast<double>(kernelTime);
    if (share <= kKernelBottleneckShare) return;
    AdviceFinding f;
    f.kind = AdviceKind::KernelBottleneck;
    f.share = share;
    f.threshold = kKernelBottleneckShare;
    f.costNs = top->totalNs;
    const std::string shortName = shortened(top->name, 90);
    const bool ascend = device == "ascend";
    f.title = join({"Kernel bottleneck: ", shortName, " takes ", formatShare(share), " of ",
                    ascend ? "NPU" : "GPU", " kernel time"});
    std::string why = "One kernel dominates the device's kernel time, so the step is bound by it" +
                      (top->op.empty() ? std::string(".") : ", launched by " + top->op + ".");
    if (ascend) {
        why +=
            " Check that it runs on the AI Core (not the AI CPU), with a format and shapes "
            "it supports well (dimensions aligned to 16), and compare a single-op case with "
            "the shapes below; replace it with an equivalent op or fuse it where one exists.";
        f.glossary = {{"op bottleneck", "算子瓶颈"}, {"workaround", "规避方案"}};
    } else if (!top->tensorCore && !top->op.empty() && gpu::tensorCoreEligibleOp(top->op)) {
        why +=
            " It is a matmul or convolution that does not use Tensor Cores: run it in "
            "bfloat16/float16 (torch.autocast) or allow TF32 "
            "(torch.backends.cuda.matmul.allow_tf32), and keep its dimensions multiples of 8.";
    } else {
        why +=
            " Look at its shapes below and its occupancy; a larger batch, a fused "
            "implementation (torch.compile, a fused optimizer, scaled_dot_product_attention) "
            "or another algorithm (cudnn.benchmark) may run it faster.";
    }
    f.explanation = why;
    f.figures = {{"kernel", shortName},
                 {"kernel time", durI(top->totalNs)},
                 {"calls", std::to_string(top->calls)},
                 {"all kernel time", durI(kernelTime)},
                 {"share", formatShare(share)},
                 {"threshold", formatShare(kKernelBottleneckShare)},
                 {"tensor cores", top->tensorCore ? "yes" : "no"}};
    if (!top->op.empty()) f.figures.emplace_back("launched by", top->op);
    if (!top->inputShapes.empty()) f.figures.emplace_back("input shapes", top->inputShapes);
    if (top->occupancy)
        f.figures.emplace_back("est. achieved occupancy", formatShare(*top->occupancy));
    kernelEvidence(f, g, *top);
    out.push_back(std::move(f));
}

void offTensorCoreRule(const GpuReport& g, std::vector<AdviceFinding>& out) {
    const auto& tc = g.overview.tensorCores;
    if (tc.eligibleOpTime <= 0 || tc.kernelTime <= 0) return;
    const int64_t off = tc.eligibleOpTime - tc.eligibleOpTcTime;
    const double share = static_cast<double>(off) / static_cast<double>(tc.eligibleOpTime);
    const double ofAll = static_cast<double>(off) / static_cast<double>(tc.kernelTime);
    if (share <= kOffTensorCoreShare || ofAll <= kOffTensorCoreMinShare) return;
    AdviceFinding f;
    f.kind = AdviceKind::OffTensorCores;
    f.share = share;
    f.threshold = kOffTensorCoreShare;
    f.costNs = off;
    f.title = "Matmuls and convolutions off the Tensor Cores: " + formatShare(share) +
              " of their kernel time";
    f.explanation =
        "The ops that can run on Tensor Cores (mm, addmm, bmm, linear, convolutions, "
        "attention) spend most of their kernel time in kernels that do not use them — float32 "
        "SIMT kernels. Train in bfloat16 or float16 with torch.autocast, or allow TF32 for "
        "float32 matmuls and convolutions (torch.backends.cuda.matmul.allow_tf32, "
        "torch.backends.cudnn.allow_tf32), and keep the matrix dimensions multiples of 8.";
    f.figures = {{"kernel time of eligible ops", durI(tc.eligibleOpTime)},
                 {"of it on Tensor Cores", durI(tc.eligibleOpTcTime)},
                 {"off Tensor Cores", formatShare(share)},
                 {"share of all kernel time", formatShare(ofAll)},
                 {"threshold", formatShare(kOffTensorCoreShare)}};
    for (const auto& r : g.kernelTable.rows)
        if (!r.tensorCore && !r.op.empty() && gpu::tensorCoreEligibleOp(r.op)) {
            kernelEvidence(f, g, r);
            break;
        }
    out.push_back(std::move(f));
}

void memcpyRule(const GpuReport& g, std::vector<AdviceFinding>& out) {
    const int64_t total = splitSum(g);
    if (total <= 0) return;
    const int64_t mem = split(g, SplitRole::Memcpy) + split(g, SplitRole::Memset);
    const double share = static_cast<double>(mem) / static_cast<double>(total);
    if (share <= kMemcpyShare) return;
    AdviceFinding f;
    f.kind = AdviceKind::MemcpyBottleneck;
    f.share = share;
    f.threshold = kMemcpyShare;
    f.costNs = mem;
    f.title = "Memory copies take " + formatShare(share) + " of the step time";
    f.explanation =
        "Memory copies and sets run while no kernel does. Host-to-device copies from pageable "
        "memory are slow and block: use pin_memory=True in the DataLoader and "
        ".to(device, non_blocking=True); keep tensors on the GPU instead of moving them back "
        "and forth (.cpu(), .numpy(), .item() in the step), and avoid re-creating tensors on "
        "the host each step.";
    f.figures = {{"memcpy (split)", durI(split(g, SplitRole::Memcpy))},
                 {"memset (split)", durI(split(g, SplitRole::Memset))},
                 {"steps", durI(total)},
                 {"share", formatShare(share)},
                 {"threshold", formatShare(kMemcpyShare)}};
    for (const auto& m : g.hta.memory)
        f.figures.emplace_back(m.name + " bandwidth (median)",
                               std::to_string(static_cast<int64_t>(m.gbps.p50)) + " GB/s");
    for (const auto& r : g.kernelTable.rows)
        if (r.kind == "memcpy") {
            kernelEvidence(f, g, r);
            break;
        }
    out.push_back(std::move(f));
}

void launchOverheadRule(const GpuReport& g, std::vector<AdviceFinding>& out) {
    const auto& l = g.hta.launch;
    const int64_t total = splitSum(g);
    if (l.launches < 20 || total <= 0) return;
    const double shortShare = static_cast<double>(l.shortKernels) / static_cast<double>(l.launches);
    const double runtimeShare =
        static_cast<double>(split(g, SplitRole::Runtime)) / static_cast<double>(total);
    if (shortShare <= kShortKernelShare || runtimeShare <= kLaunchRuntimeShare) return;
    AdviceFinding f;
    f.kind = AdviceKind::LaunchOverhead;
    f.share = shortShare;
    f.threshold = kShortKernelShare;
    f.costNs = split(g, SplitRole::Runtime);
    f.title = "Launch overhead: " + formatShare(shortShare) +
              " of kernels run shorter than their launch takes";
    f.explanation =
        "Most kernels are so short that the host spends longer launching them than the GPU "
        "spends running them, and the steps show the GPU idle while the host is inside CUDA "
        "runtime calls. Launch fewer, larger kernels: CUDA graphs (torch.cuda.graphs or "
        "torch.compile(mode=\"reduce-overhead\")), fused ops (fused optimizers with "
        "foreach/fused=True, torch.compile), or a larger batch.";
    f.figures = {{"launches", std::to_string(l.launches)},
                 {"kernels shorter than their launch", std::to_string(l.shortKernels)},
                 {"median launch (CPU)", formatDuration(l.cpuDurationNs.p50)},
                 {"median kernel (GPU)", formatDuration(l.gpuDurationNs.p50)},
                 {"runtime share of the steps (split)", formatShare(runtimeShare)},
                 {"threshold", formatShare(kShortKernelShare)}};
    stepEvidence(f, g, [](const gpu::GpuStep& s) {
        return s.split[static_cast<size_t>(SplitRole::Runtime)];
    });
    out.push_back(std::move(f));
}

void exposedCommRule(const GpuReport& g, std::vector<AdviceFinding>& out) {
    const int64_t total = stepsTime(g);
    const auto& d = g.overview.deviceTotal;
    if (total <= 0 || d.communication <= 0) return;
    const int64_t exposed = d.communication - d.overlap;
    const double share = static_cast<double>(exposed) / static_cast<double>(total);
    if (share <= kExposedCommShare) return;
    AdviceFinding f;
    f.kind = AdviceKind::ExposedCommunication;
    f.share = share;
    f.threshold = kExposedCommShare;
    f.costNs = exposed;
    f.title = "Communication not hidden by compute: " + formatShare(share) + " of the step time";
    f.explanation =
        "Collective communication runs while no compute kernel does. In synchronous data "
        "parallel training this is mostly waiting for the slowest rank (compare the ranks in "
        "the Cluster view) or gradients sent after the backward pass instead of during it: "
        "let DDP overlap the all-reduce with backward (bucket_cap_mb, no_sync only where "
        "intended, gradient_as_bucket_view), reduce how often you synchronise (gradient "
        "accumulation), or compress gradients.";
    f.figures = {{"communication", durI(d.communication)},
                 {"overlapped by compute", durI(d.overlap)},
                 {"exposed", durI(exposed)},
                 {"share of the steps", formatShare(share)},
                 {"threshold", formatShare(kExposedCommShare)}};
    if (g.hta.commCompOverlapPct)
        f.figures.emplace_back("HTA comm-comp overlap",
                               formatShare(*g.hta.commCompOverlapPct / 100.0));
    for (const auto& r : g.kernelTable.rows)
        if (r.communication) {
            kernelEvidence(f, g, r);
            break;
        }
    out.push_back(std::move(f));
}

void lowOccupancyRule(const GpuReport& g, std::vector<AdviceFinding>& out) {
    int64_t kernelTime = 0, low = 0;
    const gpu::KernelRow* worst = nullptr;
    for (const auto& r : g.kernelTable.rows) {
        if (r.kind != "kernel") continue;
        kernelTime += r.totalNs;
        if (r.tensorCore || !r.occupancy || *r.occupancy >= kLowOccupancy) continue;
        low += r.totalNs;
        if (!worst || r.totalNs > worst->totalNs) worst = &r;
    }
    if (kernelTime <= 0 || !worst) return;
    const double share = static_cast<double>(low) / static_cast<double>(kernelTime);
    if (share <= kLowOccupancyShare) return;
    AdviceFinding f;
    f.kind = AdviceKind::LowOccupancy;
    f.share = share;
    f.threshold = kLowOccupancyShare;
    f.costNs = low;
    f.title = "Low occupancy: kernels under " + formatShare(kLowOccupancy) +
              " est. achieved occupancy take " + formatShare(share) + " of kernel time";
    f.explanation =
        "These kernels keep few warps resident on each SM — small grids (fewer blocks than "
        "SMs), or many registers or much shared memory per thread — so the SMs sit partly "
        "idle while they run. Larger batches or fused ops give them more parallel work; the "
        "Kernel view lists each kernel's grid, block, registers and what limits its occupancy. "
        "(Tensor Core GEMMs run at low occupancy by design and are not counted here.)";
    f.figures = {{"low-occupancy kernel time", durI(low)},
                 {"all kernel time", durI(kernelTime)},
                 {"share", formatShare(share)},
                 {"threshold", formatShare(kLowOccupancyShare)},
                 {"largest", worst->name.substr(0, 80)}};
    kernelEvidence(f, g, *worst);
    out.push_back(std::move(f));
}

bool isFormatConversion(const std::string& n) {
    static constexpr std::string_view k[] = {"TransData", "Cast",       "TransposeD", "Transpose",
                                             "ViewCopy",  "Contiguous", "AsStrided"};
    for (std::string_view p : k)
        if (n.find(p) != std::string::npos) return true;
    return false;
}

void formatConversionRule(const GpuReport& g, std::vector<AdviceFinding>& out) {
    int64_t total = 0, conv = 0;
    const gpu::KernelRow* worst = nullptr;
    for (const auto& r : g.kernelTable.rows) {
        total += r.totalNs;
        if (!isFormatConversion(r.name)) continue;
        conv += r.totalNs;
        if (!worst || r.totalNs > worst->totalNs) worst = &r;
    }
    if (total <= 0 || !worst) return;
    const double share = static_cast<double>(conv) / static_cast<double>(total);
    if (share <= kFormatConversionShare) return;
    AdviceFinding f;
    f.kind = AdviceKind::FormatConversion;
    f.share = share;
    f.threshold = kFormatConversionShare;
    f.costNs = conv;
    f.title = "Format conversions take " + formatShare(share) + " of NPU time";
    f.explanation =
        "TransData, Cast and transposes convert tensors between formats, dtypes and layouts "
        "on the NPU instead of computing. Set the weights' initial format once "
        "(torch_npu.npu_format_cast to the format the consuming op wants), keep the dtype "
        "the ops run in, and prefer compute ops over view ops that leave tensors "
        "non-contiguous and force a conversion later.";
    f.figures = {{"conversion time", durI(conv)},
                 {"all NPU kernel time", durI(total)},
                 {"share", formatShare(share)},
                 {"threshold", formatShare(kFormatConversionShare)},
                 {"largest", worst->name}};
    f.glossary = {{"copy bottleneck", "copy瓶颈"}, {"conversion to contiguous", "转连续"}};
    kernelEvidence(f, g, *worst);
    out.push_back(std::move(f));
}

}  // namespace

void gpuAdvice(const GpuReport& g, const StepAnalysis& /*steps*/, const std::string& device,
               std::vector<AdviceFinding>& out) {
    if (!g.hasGpu()) return;
    gpuIdleRule(g, device, out);
    kernelBottleneckRule(g, device, out);
    if (device == "ascend") {
        formatConversionRule(g, out);
        return;
    }
    offTensorCoreRule(g, out);
    memcpyRule(g, out);
    launchOverheadRule(g, out);
    exposedCommRule(g, out);
    lowOccupancyRule(g, out);
}

AdviceFinding gpuCostOverview(const GpuReport& g, const StepAnalysis& a) {
    const auto& rows = g.kernelTable.rows;
    const gpu::KernelRow& top = rows.front();
    AdviceFinding f;
    f.kind = AdviceKind::BiggestCost;
    f.share = top.share;
    f.costNs = top.totalNs;
    f.device = gpu::vendorKey(g.vendor);
    const std::string shortName = shortened(top.name, 90);
    f.title =
        join({"Biggest cost: ", shortName, ", ", formatShare(top.share), " of device kernel time"});
    f.explanation =
        "Where the device time goes, whatever the rules' thresholds: the kernels with the most "
        "GPU time (the Kernel view has all of them), and how the steps split as the "
        "TensorBoard profiler's overview splits them — kernel, memcpy, memset, communication, "
        "then the host's runtime calls, data loading and CPU execution while the device is "
        "idle. The evidence lists the longest calls of the costliest kernel.";
    for (size_t i = 0; i < rows.size() && i < 5; ++i) {
        const auto& r = rows[i];
        f.figures.emplace_back("kernel #" + std::to_string(i + 1) + ": " + r.name.substr(0, 70),
                               durI(r.totalNs) + ", " + formatShare(r.share) + ", " +
                                   std::to_string(r.calls) + " calls" +
                                   (r.op.empty() ? "" : ", from " + r.op));
    }
    int64_t total = 0;
    for (int64_t v : g.overview.splitTotal) total += v;
    if (total > 0) {
        f.figures.emplace_back(
            "steps in the overview",
            std::to_string(g.overview.overviewSteps) + ", median " + formatDuration(a.medianNs));
        for (size_t i = 0; i < gpu::kSplitRoles; ++i) {
            const auto r = static_cast<SplitRole>(i);
            f.figures.emplace_back(std::string("split: ") + gpu::splitRoleLabel(r),
                                   formatShare(static_cast<double>(g.overview.splitTotal[i]) /
                                               static_cast<double>(total)));
        }
    }
    for (const auto& d : g.overview.devices)
        f.figures.emplace_back("GPU " + std::to_string(d.device) + " utilisation",
                               formatShare(d.utilization));
    kernelEvidence(f, g, top);
    return f;
}

}  // namespace ts::analysis
