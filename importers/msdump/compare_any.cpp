#include "importers/msdump/compare_any.h"

namespace ts::dumps {

namespace {

h5::ComparePair comparePair(const DumpSource& a, const DumpSource& b, const SourceTensor& x,
                            const SourceTensor& y) {
    h5::ComparePair p;
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
    debug::CompareAccumulator acc;
    std::vector<double> da, db;
    size_t ia = 0, ib = 0;
    for (;;) {
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

std::vector<debug::DumpTensorRef> refs(const std::vector<SourceTensor>& ts) {
    std::vector<debug::DumpTensorRef> out;
    out.reserve(ts.size());
    for (const auto& t : ts)
        out.push_back(
            {t.tensor.path, t.tensor.op, t.tensor.seqid, t.tensor.io, t.tensor.slot, t.scope});
    return out;
}

}  // namespace

Result<h5::CompareReport> compareSources(const DumpSource& a, const DumpSource& b,
                                         const h5::CompareThresholds& t,
                                         const h5::DumpPairOptions& how, JobControl* job) {
    h5::CompareReport rep;
    auto ta = a.tensors(&rep.order, &rep.orderDetail);
    if (!ta) return Error{"A: " + ta.error()};
    h5::OrderSource ob;
    auto tb = b.tensors(&ob, nullptr);
    if (!tb) return Error{"B: " + tb.error()};
    const auto ra = refs(ta.value()), rb = refs(tb.value());
    const debug::TensorPairing pairing =
        how.aligned ? debug::pairByAlignment(ra, rb, how.align) : debug::pairByPath(ra, rb);
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
        h5::ComparePair p = comparePair(a, b, (*ta)[i], (*tb)[j]);
        p.unit = pairing.unit[k];
        rep.pairs.push_back(std::move(p));
    }
    for (size_t i : pairing.unmatchedA) rep.unmatchedA.push_back((*ta)[i].tensor.path);
    for (size_t j : pairing.unmatchedB) rep.unmatchedB.push_back((*tb)[j].tensor.path);
    h5::applyThresholds(rep, t);
    return rep;
}

Result<h5::CompareReport> compareAnyDumps(const std::string& a, const std::string& b,
                                          const h5::CompareThresholds& t,
                                          const h5::DumpPairOptions& how, JobControl* job) {
    auto sa = openDumpSource(a);
    if (!sa) return Error{"A: " + sa.error()};
    auto sb = openDumpSource(b);
    if (!sb) return Error{"B: " + sb.error()};
    return compareSources(*sa.value(), *sb.value(), t, how, job);
}

}  // namespace ts::dumps
