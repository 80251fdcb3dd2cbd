#include "core/debug/dump_scan.h"

#include <algorithm>
#include <cstdio>
#include <map>

#include "core/debug/dataset_stats.h"
#include "core/debug/dump_source.h"
#include "core/hdf5/h5_read.h"

namespace ts::debug {
namespace {

bool allDigits(const std::string& s) {
    return !s.empty() && s.size() < 18 &&
           std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Natural order: seqid, op, io (input before output), slot; non-dump paths last by name.
bool naturalLess(const DumpTensor& a, const DumpTensor& b) {
    const bool da = !a.op.empty(), db = !b.op.empty();
    if (da != db) return da;
    if (!da) return a.path < b.path;
    if (a.seqid != b.seqid) return a.seqid < b.seqid;
    if (a.op != b.op) return a.op < b.op;
    if (a.io != b.io) return a.io < b.io;
    return a.slot < b.slot;
}

std::string parentOf(const std::string& p) {
    auto k = p.rfind('/');
    return k == std::string::npos ? "" : p.substr(0, k);
}

}  // namespace

const char* orderSourceName(OrderSource o) {
    switch (o) {
        case OrderSource::Sequence:
            return "sequence";
        case OrderSource::Creation:
            return "creation";
        case OrderSource::Name:
            return "name";
    }
    return "name";
}

bool parseDumpPath(const std::string& path, std::string& op, int64_t& seqid, std::string& io,
                   int& slot) {
    std::vector<std::string> parts;
    size_t s = 0;
    for (size_t i = 0; i <= path.size(); ++i) {
        if (i == path.size() || path[i] == '/') {
            parts.push_back(path.substr(s, i - s));
            s = i + 1;
        }
    }
    if (parts.size() < 4) return false;
    const size_t n = parts.size();
    if (!allDigits(parts[n - 1]) || (parts[n - 2] != "input" && parts[n - 2] != "output") ||
        !allDigits(parts[n - 3]))
        return false;
    op.clear();
    for (size_t i = 0; i + 3 < n; ++i) op += (i ? "/" : "") + parts[i];
    if (op.empty()) return false;
    seqid = std::stoll(parts[n - 3]);
    io = parts[n - 2];
    slot = std::stoi(parts[n - 1]);
    return true;
}

Result<std::vector<DumpTensor>> orderedTensors(const h5::File& file, OrderSource* used,
                                               std::string* detail) {
    auto paths = file.allDatasets();
    if (!paths) return Error{paths.error()};
    std::vector<DumpTensor> out;
    out.reserve(paths->size());
    bool allSeq = !paths->empty();
    bool allAddr = true;
    bool allTracked = file.tracksCreationOrder("");
    std::map<std::string, bool> tracked;
    for (const auto& p : paths.value()) {
        DumpTensor t;
        t.path = p;
        if (!parseDumpPath(p, t.op, t.seqid, t.io, t.slot)) t.op.clear();
        int64_t g = 0;
        if (file.intAttribute(p, "global_seq", g) ||
            (!t.op.empty() && file.intAttribute(parentOf(parentOf(p)), "global_seq", g))) {
            t.order = g;
        } else {
            allSeq = false;
        }
        out.push_back(std::move(t));
        // Every group on the way must track creation order for "creation" to hold.
        for (std::string q = parentOf(p); allTracked && !q.empty(); q = parentOf(q)) {
            auto it = tracked.find(q);
            if (it == tracked.end()) it = tracked.emplace(q, file.tracksCreationOrder(q)).first;
            allTracked = it->second;
        }
    }
    OrderSource src = OrderSource::Name;
    std::string how = "natural name order (seqid, op, input before output, slot)";
    if (allSeq) {
        how = "global_seq attribute";
        src = OrderSource::Sequence;
        // Inputs and outputs of one op share the group's sequence; keep io/slot order.
        std::stable_sort(out.begin(), out.end(), [](const DumpTensor& a, const DumpTensor& b) {
            if (a.order != b.order) return a.order < b.order;
            if (a.io != b.io) return a.io < b.io;
            return a.slot < b.slot;
        });
    } else if (allTracked) {
        src = OrderSource::Creation;  // allDatasets() already walks in creation order
        how = "tracked link creation order";
        for (size_t i = 0; i < out.size(); ++i) out[i].order = static_cast<int64_t>(i);
    } else {
        for (auto& t : out) {
            auto a = file.objectAddress(t.path);
            if (!a) {
                allAddr = false;
                break;
            }
            t.order = static_cast<int64_t>(a.value());
        }
        if (allAddr && !out.empty()) {
            src = OrderSource::Creation;  // object headers are allocated in writing order
            how =
                "object-header addresses, i.e. writing order (the file does not track "
                "creation order)";
            std::stable_sort(out.begin(), out.end(), [](const DumpTensor& a, const DumpTensor& b) {
                return a.order < b.order;
            });
        } else {
            std::stable_sort(out.begin(), out.end(), naturalLess);
            for (size_t i = 0; i < out.size(); ++i) out[i].order = static_cast<int64_t>(i);
        }
    }
    if (used) *used = src;
    if (detail) *detail = how;
    return out;
}

Result<std::vector<StatsRow>> statsAll(const h5::File& file, const std::string& onlyPath,
                                       JobControl* job) {
    std::vector<std::string> paths;
    if (!onlyPath.empty()) {
        std::string p = onlyPath;
        while (!p.empty() && p[0] == '/') p.erase(0, 1);
        paths.push_back(p);
    } else {
        OrderSource o;
        auto ts = orderedTensors(file, &o);
        if (!ts) return Error{ts.error()};
        for (const auto& t : ts.value()) paths.push_back(t.path);
    }
    std::vector<StatsRow> rows;
    for (const auto& p : paths) {
        if (job && job->cancelled()) return Error{"cancelled"};
        StatsRow row;
        auto info = file.datasetInfo(p);
        if (!info) {
            row.info.path = p;
            row.error = info.error();
            rows.push_back(std::move(row));
            continue;
        }
        row.info = info.value();
        auto s = datasetStats(file, p, job, false);
        if (s)
            row.stats = s.value();
        else
            row.error = s.error();
        rows.push_back(std::move(row));
    }
    return rows;
}

Result<OverflowReport> scanOverflow(const h5::File& file, JobControl* job) {
    OverflowReport rep;
    auto ts = orderedTensors(file, &rep.order, &rep.orderDetail);
    if (!ts) return Error{ts.error()};
    if (job) job->setTotal(ts->size());
    for (const auto& t : ts.value()) {
        if (job && job->cancelled()) return Error{"cancelled"};
        auto info = file.datasetInfo(t.path);
        if (info && info->valueClass != h5::ValueClass::Float) {  // only floats hold NaN/Inf
            if (job) job->addDone(1);
            continue;
        }
        auto s = datasetStats(file, t.path, job, false);
        if (job) job->addDone(1);
        if (!s) {
            rep.errors.push_back(t.path + ": " + s.error());
            continue;
        }
        if (s->hasNonFinite()) rep.findings.push_back({t, s->nan, s->posinf, s->neginf});
    }
    return rep;
}

void applyThresholds(CompareReport& report, const CompareThresholds& t) {
    report.firstDivergent.reset();
    std::vector<PairVerdict> verdicts;
    std::vector<std::string> paths;
    for (size_t i = 0; i < report.pairs.size(); ++i) {
        auto& p = report.pairs[i];
        const auto& f = p.figures;
        p.passRatios = p.error.empty() && ratiosPass(f, p.dtypeA, p.dtypeB);
        p.pass = p.error.empty() && p.shapeMatch && f.nonfiniteMismatch == 0 &&
                 f.cosine >= t.minCosine && (!t.maxRel || f.maxRel <= *t.maxRel) &&
                 (!t.maxAbs || f.maxAbs <= *t.maxAbs) &&
                 (t.rule != PassRule::Combined || p.passRatios);
        if (!p.pass && !report.firstDivergent) report.firstDivergent = i;
        verdicts.push_back({p.unit, p.tensor.io == "input", p.pass});
        paths.push_back(p.tensor.path);
    }
    report.rootCause = findRootCause(verdicts, report.unitNamesA, paths);
}

namespace {

ComparePair comparePair(const DumpSource& a, const DumpSource& b, const SourceTensor& x,
                        const SourceTensor& y, const JobControl* job) {
    ComparePair p;
    p.tensor = x.tensor;
    p.pathB = y.tensor.path;
    auto ra = a.open(x);
    auto rb = b.open(y);
    if (!ra || !rb) {
        p.error = !ra ? "A: " + ra.error() : "B: " + rb.error();
        return p;
    }
    TensorBlocks& ba = *ra.value();
    TensorBlocks& bb = *rb.value();
    p.dtypeA = ba.dtype();
    p.dtypeB = bb.dtype();
    p.shapeA = ba.shape();
    p.shapeB = bb.shape();
    p.dtypeMatch = p.dtypeA == p.dtypeB;
    p.shapeMatch = p.shapeA == p.shapeB;
    if (!p.shapeMatch) {
        p.error = "shape mismatch";
        return p;
    }
    // The two sides come in blocks of their own sizes: compare the overlap, keep the rest.
    CompareAccumulator acc;
    std::vector<double> da, db;
    size_t ia = 0, ib = 0;
    for (;;) {
        if (job && job->cancelled()) {
            p.error = "cancelled";
            break;
        }
        if (ia == da.size()) {
            auto n = ba.next(da);
            if (!n) {
                p.error = "A: " + n.error();
                break;
            }
            da.resize(n.value());  // a reader may leave its last block in the buffer at the end
            ia = 0;
        }
        if (ib == db.size()) {
            auto n = bb.next(db);
            if (!n) {
                p.error = "B: " + n.error();
                break;
            }
            db.resize(n.value());
            ib = 0;
        }
        const size_t n = std::min(da.size() - ia, db.size() - ib);
        if (n == 0) {
            if (da.size() - ia != db.size() - ib) p.error = "the tensors end at different lengths";
            break;
        }
        acc.add(da.data() + ia, db.data() + ib, n);
        ia += n;
        ib += n;
    }
    p.figures = acc.result();
    return p;
}

std::vector<DumpTensorRef> refsOf(const std::vector<SourceTensor>& ts) {
    std::vector<DumpTensorRef> out;
    out.reserve(ts.size());
    for (const auto& t : ts)
        out.push_back(
            {t.tensor.path, t.tensor.op, t.tensor.seqid, t.tensor.io, t.tensor.slot, t.scope});
    return out;
}

}  // namespace

Result<CompareReport> compareSources(const DumpSource& a, const DumpSource& b,
                                     const CompareThresholds& t, const DumpPairOptions& how,
                                     JobControl* job) {
    CompareReport rep;
    const bool scopes = how.aligned && (how.align.key == DumpKey::Scope || !how.align.map.empty());
    auto ta = a.tensors(&rep.order, &rep.orderDetail, scopes);
    if (!ta) return Error{"A: " + ta.error()};
    OrderSource ob;
    auto tb = b.tensors(&ob, nullptr, scopes);
    if (!tb) return Error{"B: " + tb.error()};
    const auto ra = refsOf(ta.value()), rb = refsOf(tb.value());
    const TensorPairing pairing =
        how.aligned ? pairByAlignment(ra, rb, how.align) : pairByPath(ra, rb);
    rep.pairing = how.aligned ? "aligned" : "path";
    rep.unitNamesA = pairing.unitNamesA;
    rep.unitNamesB = pairing.unitNamesB;
    rep.units = pairing.units;
    rep.fuzzyUnits = pairing.fuzzyUnits;
    if (job) job->setTotal(pairing.pairs.size());
    for (size_t k = 0; k < pairing.pairs.size(); ++k) {
        if (job && job->cancelled()) return Error{"cancelled"};
        if (job) job->addDone(1);
        const auto [i, j] = pairing.pairs[k];
        ComparePair p = comparePair(a, b, (*ta)[i], (*tb)[j], job);
        p.unit = pairing.unit[k];
        rep.pairs.push_back(std::move(p));
    }
    if (job && job->cancelled()) return Error{"cancelled"};
    for (size_t i : pairing.unmatchedA) rep.unmatchedA.push_back(ra[i].path);
    for (size_t j : pairing.unmatchedB) rep.unmatchedB.push_back(rb[j].path);
    applyThresholds(rep, t);
    return rep;
}

Result<CompareReport> compareDumps(const h5::File& a, const h5::File& b, const CompareThresholds& t,
                                   JobControl* job) {
    return compareDumps(a, b, t, DumpPairOptions{}, job);
}

Result<CompareReport> compareDumps(const h5::File& a, const h5::File& b, const CompareThresholds& t,
                                   const DumpPairOptions& how, JobControl* job) {
    return compareSources(*hdf5DumpSource(a), *hdf5DumpSource(b), t, how, job);
}

std::string compareCsv(const CompareReport& r) {
    std::string out =
        "order,path,op,seqid,io,slot,dtype_a,dtype_b,shape_match,cosine,max_abs,max_rel,mean_abs,"
        "rmse,"
        "nonfinite_mismatch,pass,error,path_b,share_1e-3,share_5e-3,pass_ratios\n";
    char buf[256];
    for (const auto& p : r.pairs) {
        const auto& f = p.figures;
        std::snprintf(buf, sizeof buf, "%.9g,%.9g,%.9g,%.9g,%.9g,%llu,%d", f.cosine, f.maxAbs,
                      f.maxRel, f.meanAbs, f.rmse,
                      static_cast<unsigned long long>(f.nonfiniteMismatch), p.pass ? 1 : 0);
        std::string err = p.error;
        std::replace(err.begin(), err.end(), ',', ';');
        out += std::to_string(p.tensor.order) + "," + p.tensor.path + "," + p.tensor.op + "," +
               std::to_string(p.tensor.seqid) + "," + p.tensor.io + "," +
               std::to_string(p.tensor.slot) + "," + p.dtypeA + "," + p.dtypeB + "," +
               (p.shapeMatch ? "1" : "0") + "," + buf + "," + err;
        std::snprintf(buf, sizeof buf, ",%.9g,%.9g,%d\n", f.share1e3(), f.share5e3(),
                      p.passRatios ? 1 : 0);
        out += "," + p.pathB + buf;
    }
    for (const auto& u : r.unmatchedA) out += ",unmatched_in_b," + u + ",,,,,,,,,,,,,,,,,,\n";
    for (const auto& u : r.unmatchedB) out += ",unmatched_in_a," + u + ",,,,,,,,,,,,,,,,,,\n";
    return out;
}

}  // namespace ts::debug
