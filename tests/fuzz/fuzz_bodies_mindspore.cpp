// Fuzz bodies of the MindSpore formats: summary files (and the decoders of the values they
// keep), lineage files, NumPy .npy files, dump iteration folders and MindSpore RDR folders.
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "core/debug/msdump/ms_dump.h"
#include "core/debug/msdump/npy_file.h"
#include "core/debug/rdr/ms_rdr_reader.h"
#include "core/engine/train/tb_events.h"
#include "core/summary/graph_model.h"
#include "core/summary/lineage_file.h"
#include "core/summary/summary_file.h"
#include "core/summary/summary_values.h"
#include "tests/fuzz/fuzz_bodies.h"

namespace fs = std::filesystem;

namespace ts::fuzz {

namespace {

/// The input's parts, split at "\n--8<--\n".
std::vector<std::string_view> parts(const uint8_t* data, size_t size, size_t max) {
    const std::string_view text(reinterpret_cast<const char*>(data), size);
    constexpr std::string_view kCut = "\n--8<--\n";
    std::vector<std::string_view> out;
    size_t at = 0;
    while (at <= text.size() && out.size() < max) {
        size_t end = text.find(kCut, at);
        if (end == std::string_view::npos) end = text.size();
        out.push_back(text.substr(at, end - at));
        at = end + kCut.size();
    }
    return out;
}

/// The input with every record's two CRCs made right, so that mutations of a payload reach
/// the decoders behind the framing (with the CRCs as the input has them, nearly every mutation
/// stops at the CRC check). A cut last record stays cut.
std::string withRightCrcs(const uint8_t* data, size_t size) {
    std::string out(reinterpret_cast<const char*>(data), size);
    size_t at = 0;
    while (at + 12 <= out.size()) {
        uint64_t n = 0;
        std::memcpy(&n, out.data() + at, 8);
        const uint32_t lengthCrc = engine::tb::maskedCrc(out.data() + at, 8);
        std::memcpy(out.data() + at + 8, &lengthCrc, 4);
        if (n > out.size() - at - 12 || out.size() - at - 12 - n < 4) break;
        const uint32_t payloadCrc = engine::tb::maskedCrc(out.data() + at + 12, n);
        std::memcpy(out.data() + at + 12 + n, &payloadCrc, 4);
        at += 16 + n;
    }
    return out;
}

fs::path freshDir(const char* name) {
    const fs::path dir = scratch() / name;
    std::error_code ec;
    fs::remove_all(dir, ec);
    fs::create_directories(dir, ec);
    return dir;
}

void summaryFile(const uint8_t* data, size_t size) {
    const fs::path p = writeInput("events.summary.0.fuzz_MS", data, size);
    auto f = summary::SummaryFile::open(p.string());
    if (f) {
        (void)f.value()->poll([](summary::SummaryEvent&& ev) {
            for (const auto& it : ev.items) {
                switch (it.kind) {
                    case summary::ValueKind::Histogram:
                        if (auto h = summary::decodeHistogram(it.data))
                            (void)summary::distributionPercentiles(h.value());
                        break;
                    case summary::ValueKind::Tensor:
                        (void)summary::decodeTensor(it.data);
                        break;
                    case summary::ValueKind::Image:
                        (void)summary::decodeImage(it.data);
                        break;
                    case summary::ValueKind::Landscape:
                        (void)summary::decodeLandscape(it.data);
                        break;
                    case summary::ValueKind::Graph:
                        if (auto g = summary::decodeGraph(it.data)) {
                            (void)summary::buildScopeTree(g.value());
                            (void)summary::searchGraph(g.value(), "conv");
                        }
                        break;
                    default:
                        break;
                }
            }
            return true;
        });
    }
    importWith("mindspore_summary", p);
}

}  // namespace

void mindsporeSummary(const uint8_t* data, size_t size) {
    summaryFile(data, size);
    const std::string fixed = withRightCrcs(data, size);
    summaryFile(reinterpret_cast<const uint8_t*>(fixed.data()), fixed.size());
}

void mindsporeLineage(const uint8_t* data, size_t size) {
    const std::string fixed = withRightCrcs(data, size);
    for (const std::string_view in :
         {std::string_view(reinterpret_cast<const char*>(data), size), std::string_view(fixed)}) {
        const fs::path p = writeInput("events.summary.0.fuzz_lineage",
                                      reinterpret_cast<const uint8_t*>(in.data()), in.size());
        (void)summary::readLineageFile(p.string());
        importWith("mindspore_lineage", p);
    }
}

void npyFile(const uint8_t* data, size_t size) {
    (void)debug::npy::parseHeader(std::string_view(reinterpret_cast<const char*>(data), size));
    const fs::path p = writeInput("in.npy", data, size);
    auto r = debug::npy::Reader::open(p.string());
    if (!r) return;
    if (r.value()->header().count <= (uint64_t{1} << 20)) (void)r.value()->readAll();
}

// Parts: statistic.csv, mapping.csv, file names (one per line, at most 16), the bytes every
// named file gets, an execution order csv.
void msdumpFolder(const uint8_t* data, size_t size) {
    const auto p = parts(data, size, 5);
    const fs::path dir = freshDir("rank_0/net/0/1");
    if (!p.empty()) std::ofstream(dir / "statistic.csv", std::ios::binary) << p[0];
    if (p.size() > 1) std::ofstream(dir / "mapping.csv", std::ios::binary) << p[1];
    if (p.size() > 2) {
        size_t n = 0, at = 0;
        const std::string_view names = p[2];
        while (at < names.size() && n < 16) {
            size_t end = names.find('\n', at);
            if (end == std::string_view::npos) end = names.size();
            std::string name(names.substr(at, end - at));
            at = end + 1;
            if (name.empty() || name.size() > 200 || name.find('/') != std::string::npos ||
                name == "." || name == "..")
                continue;
            ++n;
            (void)debug::msdump::parseFileName(name);
            std::ofstream(dir / name, std::ios::binary)
                << (p.size() > 3 ? p[3] : std::string_view());
        }
    }
    std::vector<std::string> order;
    if (p.size() > 4) {
        const fs::path csv = scratch() / "order.csv";
        std::ofstream(csv, std::ios::binary) << p[4];
        if (auto o = debug::msdump::readExecutionOrder(csv.string())) order = std::move(o.value());
    }
    (void)debug::msdump::scanTree((scratch() / "rank_0").string());
    auto it = debug::msdump::readIteration(dir.string(), order);
    if (!it) return;
    for (const auto& t : it->tensors) {
        (void)t.path();
        (void)debug::msdump::nonFiniteOf(t);
    }
}

// Parts: an execution order, a stream order (JSON), memory addresses, a task list, a graph
// IR, a log beside the export.
void msRdrFolder(const uint8_t* data, size_t size) {
    static const char* const kFiles[] = {"SESSION_graph_exec_order.0_20240101010101.txt",
                                         "KERNEL_stream_exec_order_20240101010101.json",
                                         "KERNEL_mem_address_list_20240101010101.txt",
                                         "DEVICE_task_debug_info_0_20240101010101.ir",
                                         "PIPELINE_hwopt_d_before_graph_0_20240101010101.ir",
                                         "../mindspore.log"};
    const auto p = parts(data, size, 6);
    const fs::path dir = freshDir("msrdr/rank_0/rdr");
    for (size_t i = 0; i < p.size(); ++i) std::ofstream(dir / kFiles[i], std::ios::binary) << p[i];
    auto e = rdr::readMsRdrExport((scratch() / "msrdr").string());
    if (!e) return;
    for (size_t k = 0; k < e->execOrders.size(); ++k) (void)e->failingIndex(k);
}

}  // namespace ts::fuzz
