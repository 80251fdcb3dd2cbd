// trainscope-cli kernels SESSION: the Kernel view's table on the command line — device
// kernels grouped by name (or by name and launch configuration: grid, block, registers,
// shared memory) with calls, total, mean, min, max, share of kernel time, est. achieved
// occupancy, theoretical occupancy and its limit, the Tensor Core flag, and the op that
// launched them with its input shapes; --csv writes every row to a file.
#include <cstdio>
#include <fstream>
#include <iostream>

#include "app/cli/session_open.h"
#include "core/analysis/gpu/gpu_report.h"
#include "core/common/units.h"
#include "core/timeline/time_axis.h"

namespace ts::cli {
namespace {

namespace gpu = analysis::gpu;

int runKernels(const Args& args) {
    std::optional<int64_t> source;
    if (args.has("source")) source = intOption(args, "source");
    const std::string by = args.valueOr("by", "name");
    if (by != "name" && by != "config") throw CliError{"--by takes name or config, not " + by};
    const int64_t top = intOption(args, "top", 30, {.min = 1, .max = 1e9});
    auto store = openSession(args.positional[0], store::TraceStore::Mode::ReadOnly);
    auto id = gpu::resolveDeviceSource(*store, source);
    if (!id) throw CliError{id.error()};
    auto trace = gpu::loadGpuTrace(*store, id.value());
    if (!trace) throw CliError{trace.error()};
    if (!trace.value().hasGpuWork())
        throw CliError{"source " + std::to_string(id.value()) + " has no device kernels"};
    gpu::KernelTableOptions opt;
    opt.grouping = by == "config" ? gpu::KernelGrouping::NameAndConfig : gpu::KernelGrouping::Name;
    opt.includeMemory = !args.has("no-memory");
    const gpu::KernelTable t = gpu::buildKernelTable(trace.value(), opt);
    if (auto path = args.value("csv")) {
        std::ofstream out(*path, std::ios::binary);
        if (!out) throw CliError{"cannot write " + *path};
        out << gpu::kernelTableCsv(t);
        if (!out.good()) throw CliError{"cannot write " + *path};
    }
    if (args.json) {
        rapidjson::StringBuffer buf;
        JsonWriter w(buf);
        w.StartObject();
        kv(w, "source_id", id.value());
        kv(w, "vendor", gpu::vendorKey(trace.value().vendor));
        kv(w, "grouping", by);
        kv(w, "groups", static_cast<int64_t>(t.rows.size()));
        kv(w, "calls", t.calls);
        kv(w, "total_ns", t.totalNs);
        w.Key("rows");
        gpu::writeKernelTableJson(w, t, static_cast<size_t>(top));
        w.EndObject();
        printJson(buf);
        return 0;
    }
    std::cout << "Kernels of source " << id.value() << " (" << gpu::vendorKey(trace.value().vendor)
              << "): " << t.rows.size() << " groups, " << t.calls << " calls, "
              << timeline::formatDuration(static_cast<double>(t.totalNs)) << "\n";
    char line[512];
    std::snprintf(line, sizeof line, "%12s %7s %7s %10s %10s %6s %3s  %s", "total", "share",
                  "calls", "mean", "max", "occ", "TC", "name  <- launching op [input shapes]");
    std::cout << line << "\n";
    for (size_t i = 0; i < t.rows.size() && i < static_cast<size_t>(top); ++i) {
        const auto& r = t.rows[i];
        std::snprintf(line, sizeof line, "%12s %7s %7lld %10s %10s %6s %3s  ",
                      timeline::formatDuration(static_cast<double>(r.totalNs)).c_str(),
                      formatShare(r.share).c_str(), static_cast<long long>(r.calls),
                      timeline::formatDuration(r.meanNs).c_str(),
                      timeline::formatDuration(static_cast<double>(r.maxNs)).c_str(),
                      r.occupancy ? formatShare(*r.occupancy).c_str() : "-",
                      r.tensorCore ? "yes" : "");
        std::cout << line << r.name.substr(0, 100);
        if (!r.grid.empty())
            std::cout << "  grid " << r.grid << " block " << r.block << " regs " << r.registers
                      << " smem " << r.sharedMemory;
        if (!r.op.empty())
            std::cout << "  <- " << r.op << (r.inputShapes.empty() ? "" : " " + r.inputShapes);
        std::cout << "\n";
    }
    return 0;
}

TS_CLI_COMMAND("kernels",
               "device kernels by name or launch configuration: time, occupancy, Tensor Cores, "
               "launching op",
               "SESSION [--source N] [--by name|config] [--top N] [--no-memory] [--csv FILE] "
               "[--json]",
               {{"source", true, "this source (default: the newest with device work)"},
                {"by", true,
                 "group by kernel name (default) or name + grid/block/registers/smem (config)"},
                {"top", true, "show the N rows with the most time (default 30)"},
                {"no-memory", false, "leave memcpy and memset rows out"},
                {"csv", true, "write every row to this CSV file"}},
               &runKernels, 1, 1);

}  // namespace
}  // namespace ts::cli
