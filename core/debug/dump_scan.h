#pragma once
// Dump-level analysis of HDF5 files in the /<op>/<seqid>/{input,output}/<i> layout (and
// of any HDF5 file, treating every dataset as a tensor): ordered tensor lists, overflow
// (NaN/Inf) scan and msaccucmp-like comparison of two dumps.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/common/job_control.h"
#include "core/debug/compare_rule.h"
#include "core/debug/dump_pairing.h"
#include "core/debug/root_cause.h"
#include "core/debug/tensor_compare.h"
#include "core/debug/tensor_stats.h"
#include "core/hdf5/h5_file.h"

namespace ts::debug {

/// How tensors were put in execution order.
enum class OrderSource { Sequence, Creation, Name };
const char* orderSourceName(OrderSource o);  // "sequence" | "creation" | "name"

struct DumpTensor {
    std::string path;  // "Conv2d/1/output/0" (any dataset path for non-dump files)
    std::string op;    // "Conv2d" ("" when the path is not in dump layout)
    int64_t seqid = -1;
    std::string io;  // "input" | "output" | ""
    int slot = -1;
    int64_t order = 0;  // sort key within the chosen OrderSource
};

/// Splits "<op>/<seqid>/<io>/<slot>" (op may contain '/'); false when not in that layout.
bool parseDumpPath(const std::string& path, std::string& op, int64_t& seqid, std::string& io,
                   int& slot);

/// Every dataset of the file in execution order: by a "global_seq" attribute on every
/// tensor (or its seqid group) -> Sequence; else by creation order where every group
/// tracks it, or else by object-header address (the writing order of files written once)
/// -> Creation; else natural name order (seqid, then op, io, slot) -> Name.
/// `detail` (optional) says how in words, e.g. "object-header addresses (the file does not
/// track creation order)".
Result<std::vector<DumpTensor>> orderedTensors(const h5::File& file, OrderSource* used,
                                               std::string* detail = nullptr);

struct StatsRow {
    h5::DatasetInfo info;
    std::optional<TensorStats> stats;  // empty when error is set
    std::string error;
};

/// Stats of every dataset (or just `onlyPath`); unreadable datasets get an error row.
Result<std::vector<StatsRow>> statsAll(const h5::File& file, const std::string& onlyPath,
                                       JobControl* job = nullptr);

struct OverflowFinding {
    DumpTensor tensor;
    uint64_t nan = 0, posinf = 0, neginf = 0;
};

struct OverflowReport {
    std::vector<OverflowFinding> findings;  // execution order; findings[0] is the first
    OrderSource order = OrderSource::Name;
    std::string orderDetail;
    std::vector<std::string> errors;  // "path: message" for unreadable datasets
};

Result<OverflowReport> scanOverflow(const h5::File& file, JobControl* job = nullptr);

struct CompareThresholds {
    double minCosine = 0.99;
    std::optional<double> maxRel;  // fail when max relative error exceeds it
    std::optional<double> maxAbs;  // fail when max absolute error exceeds it
    /// Cosine: the figures above; Combined: also the share of elements within 0.1 % / 0.5 %
    /// relative error (core/debug/compare_rule.h).
    PassRule rule = PassRule::Cosine;
};

struct ComparePair {
    DumpTensor tensor;  // from A, in A's execution order
    bool shapeMatch = false, dtypeMatch = false;
    std::string dtypeA, dtypeB;
    std::vector<uint64_t> shapeA, shapeB;
    CompareFigures figures;
    bool pass = false;
    std::string error;        // read failure or shape mismatch
    std::string pathB;        // B's tensor (the same path unless paired by alignment)
    size_t unit = 0;          // the op (unit) of A it belongs to: index into unitNamesA
    bool passRatios = false;  // the share-within part of the combined rule holds
};

struct CompareReport {
    std::vector<ComparePair> pairs;
    std::optional<size_t> firstDivergent;  // index into pairs
    std::vector<std::string> unmatchedA, unmatchedB;
    OrderSource order = OrderSource::Name;
    std::string orderDetail;
    std::string pairing = "path";                     // "path" | "aligned"
    std::vector<std::string> unitNamesA, unitNamesB;  // per unit: "Conv2d/1", merged groups
    int64_t units = 0, fuzzyUnits = 0;  // ops paired; of those, paired by a different name
    /// The first op whose inputs agree while an output disagrees (see root_cause.h);
    /// recomputed with the pass flags.
    RootCause rootCause;
};

/// How the tensors of A and B are paired (core/debug/dump_pairing.h).
struct DumpPairOptions {
    bool aligned = false;  // false: identical paths; true: ops aligned by name order
    DumpAlignOptions align;
};

/// Re-evaluates pass flags, firstDivergent and the root cause for new thresholds (no re-read).
void applyThresholds(CompareReport& report, const CompareThresholds& t);

class DumpSource;  // dump_source.h: an HDF5 dump or a MindSpore dump iteration

/// Compares dump A (checked, "-m") with B (golden, "-g") of any formats: the tensors paired as
/// `pairing` says, read block by block, relative error taken against B.
Result<CompareReport> compareSources(const DumpSource& a, const DumpSource& b,
                                     const CompareThresholds& t, const DumpPairOptions& pairing,
                                     JobControl* job = nullptr);
/// Compares A (checked, "-m") with B (golden, "-g"): pairs matched by identical path
/// (op name, seqid, io, slot), relative error taken against B.
Result<CompareReport> compareDumps(const h5::File& a, const h5::File& b, const CompareThresholds& t,
                                   JobControl* job = nullptr);
/// Same, pairing the tensors as `pairing` says.
Result<CompareReport> compareDumps(const h5::File& a, const h5::File& b, const CompareThresholds& t,
                                   const DumpPairOptions& pairing, JobControl* job = nullptr);

/// CSV of a compare report (header plus one line per pair, then unmatched paths).
std::string compareCsv(const CompareReport& report);

}  // namespace ts::debug
