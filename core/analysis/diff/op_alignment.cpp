#include "core/analysis/diff/op_alignment.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ts::analysis {
namespace {

// Myers' linear-space diff in the form of git's xdiff (xdiffi.c: xdl_split/xdl_recs_cmp):
// sequences are marked "changed" where they have no partner; the unchanged elements of the
// two sides then pair in order.
class MyersDiff {
public:
    MyersDiff(std::vector<uint32_t> a, std::vector<uint32_t> b, int64_t maxCost)
        : m_a(std::move(a)), m_b(std::move(b)), m_maxCost(maxCost) {
        const size_t diags = m_a.size() + m_b.size() + 3;
        m_kvd.assign(2 * diags + 2, 0);
        m_kvdf = m_kvd.data() + m_b.size() + 1;
        m_kvdb = m_kvd.data() + diags + m_b.size() + 1;
        m_changedA.assign(m_a.size(), 0);
        m_changedB.assign(m_b.size(), 0);
    }

    void run(JobControl* job) {
        struct Box {
            int64_t off1, lim1, off2, lim2;
            bool needMin;
        };
        std::vector<Box> stack{
            {0, static_cast<int64_t>(m_a.size()), 0, static_cast<int64_t>(m_b.size()), false}};
        while (!stack.empty()) {
            Box bx = stack.back();
            stack.pop_back();
            if (job && job->cancelled()) {
                markRange(bx.off1, bx.lim1, bx.off2, bx.lim2);
                continue;
            }
            // Shrink the box by the snakes at both ends.
            while (bx.off1 < bx.lim1 && bx.off2 < bx.lim2 && m_a[bx.off1] == m_b[bx.off2])
                ++bx.off1, ++bx.off2;
            while (bx.off1 < bx.lim1 && bx.off2 < bx.lim2 && m_a[bx.lim1 - 1] == m_b[bx.lim2 - 1])
                --bx.lim1, --bx.lim2;
            if (bx.off1 == bx.lim1 || bx.off2 == bx.lim2) {
                markRange(bx.off1, bx.lim1, bx.off2, bx.lim2);
                continue;
            }
            const Split s = split(bx.off1, bx.lim1, bx.off2, bx.lim2, bx.needMin);
            stack.push_back({s.i1, bx.lim1, s.i2, bx.lim2, s.minHi});
            stack.push_back({bx.off1, s.i1, bx.off2, s.i2, s.minLo});
        }
    }

    const std::vector<uint8_t>& changedA() const { return m_changedA; }
    const std::vector<uint8_t>& changedB() const { return m_changedB; }
    bool exact() const { return m_exact; }

private:
    struct Split {
        int64_t i1 = 0, i2 = 0;
        bool minLo = true, minHi = true;
    };

    void markRange(int64_t off1, int64_t lim1, int64_t off2, int64_t lim2) {
        for (int64_t i = off1; i < lim1; ++i) m_changedA[static_cast<size_t>(i)] = 1;
        for (int64_t j = off2; j < lim2; ++j) m_changedB[static_cast<size_t>(j)] = 1;
    }

    // Finds the middle snake of the box, or past the cost cap the furthest-reaching diagonal.
    Split split(int64_t off1, int64_t lim1, int64_t off2, int64_t lim2, bool needMin) {
        constexpr int64_t kLineMax = std::numeric_limits<int64_t>::max() / 4;
        const uint32_t* ha1 = m_a.data();
        const uint32_t* ha2 = m_b.data();
        int64_t* kvdf = m_kvdf;
        int64_t* kvdb = m_kvdb;
        const int64_t dmin = off1 - lim2, dmax = lim1 - off2;
        const int64_t fmid = off1 - off2, bmid = lim1 - lim2;
        const bool odd = ((fmid - bmid) & 1) != 0;
        int64_t fmin = fmid, fmax = fmid, bmin = bmid, bmax = bmid;
        kvdf[fmid] = off1;
        kvdb[bmid] = lim1;
        for (int64_t ec = 1;; ++ec) {
            if (fmin > dmin)
                kvdf[--fmin - 1] = -1;
            else
                ++fmin;
            if (fmax < dmax)
                kvdf[++fmax + 1] = -1;
            else
                --fmax;
            for (int64_t d = fmax; d >= fmin; d -= 2) {
                int64_t i1 = kvdf[d - 1] >= kvdf[d + 1] ? kvdf[d - 1] + 1 : kvdf[d + 1];
                int64_t i2 = i1 - d;
                while (i1 < lim1 && i2 < lim2 && ha1[i1] == ha2[i2]) ++i1, ++i2;
                kvdf[d] = i1;
                if (odd && bmin <= d && d <= bmax && kvdb[d] <= i1) return {i1, i2, true, true};
            }
            if (bmin > dmin)
                kvdb[--bmin - 1] = kLineMax;
            else
                ++bmin;
            if (bmax < dmax)
                kvdb[++bmax + 1] = kLineMax;
            else
                --bmax;
            for (int64_t d = bmax; d >= bmin; d -= 2) {
                int64_t i1 = kvdb[d - 1] < kvdb[d + 1] ? kvdb[d - 1] : kvdb[d + 1] - 1;
                int64_t i2 = i1 - d;
                while (i1 > off1 && i2 > off2 && ha1[i1 - 1] == ha2[i2 - 1]) --i1, --i2;
                kvdb[d] = i1;
                if (!odd && fmin <= d && d <= fmax && i1 <= kvdf[d]) return {i1, i2, true, true};
            }
            if (needMin || ec < m_maxCost) continue;
            // Too costly: split where the forward or the backward search got furthest.
            m_exact = false;
            int64_t fbest = -1, fbest1 = -1;
            for (int64_t d = fmax; d >= fmin; d -= 2) {
                int64_t i1 = std::min(kvdf[d], lim1);
                int64_t i2 = i1 - d;
                if (lim2 < i2) i1 = lim2 + d, i2 = lim2;
                if (fbest < i1 + i2) fbest = i1 + i2, fbest1 = i1;
            }
            int64_t bbest = kLineMax, bbest1 = kLineMax;
            for (int64_t d = bmax; d >= bmin; d -= 2) {
                int64_t i1 = std::max(off1, kvdb[d]);
                int64_t i2 = i1 - d;
                if (i2 < off2) i1 = off2 + d, i2 = off2;
                if (i1 + i2 < bbest) bbest = i1 + i2, bbest1 = i1;
            }
            if ((lim1 + lim2) - bbest < fbest - (off1 + off2))
                return {fbest1, fbest - fbest1, true, false};
            return {bbest1, bbest - bbest1, false, true};
        }
    }

    std::vector<uint32_t> m_a, m_b;
    int64_t m_maxCost;
    std::vector<int64_t> m_kvd;
    int64_t* m_kvdf = nullptr;
    int64_t* m_kvdb = nullptr;
    std::vector<uint8_t> m_changedA, m_changedB;
    bool m_exact = true;
};

}  // namespace

Alignment alignSequences(std::span<const uint32_t> a, std::span<const uint32_t> b,
                         const AlignOptions& options, JobControl* job) {
    Alignment out;
    // Tokens present on one side only can never pair: drop them before the search (xdiff's
    // xdl_cleanup_records does the same), keeping the original indexes.
    uint32_t maxId = 0;
    for (uint32_t t : a) maxId = std::max(maxId, t);
    for (uint32_t t : b) maxId = std::max(maxId, t);
    std::vector<uint8_t> seen(static_cast<size_t>(maxId) + 1, 0);
    for (uint32_t t : a) seen[t] |= 1;
    for (uint32_t t : b) seen[t] |= 2;
    std::vector<uint32_t> fa, fb, ia, ib;
    for (size_t i = 0; i < a.size(); ++i)
        if (seen[a[i]] == 3) fa.push_back(a[i]), ia.push_back(static_cast<uint32_t>(i));
    for (size_t j = 0; j < b.size(); ++j)
        if (seen[b[j]] == 3) fb.push_back(b[j]), ib.push_back(static_cast<uint32_t>(j));

    int64_t maxCost = options.maxCost;
    if (maxCost <= 0)
        maxCost = std::max<int64_t>(
            kMinAlignCost,
            static_cast<int64_t>(std::sqrt(static_cast<double>(fa.size() + fb.size() + 3))));
    MyersDiff diff(std::move(fa), std::move(fb), maxCost);
    diff.run(job);
    out.exact = diff.exact() && !(job && job->cancelled());

    std::vector<uint8_t> keptA(a.size(), 0), keptB(b.size(), 0);
    for (size_t k = 0; k < ia.size(); ++k)
        if (!diff.changedA()[k]) keptA[ia[k]] = 1;
    for (size_t k = 0; k < ib.size(); ++k)
        if (!diff.changedB()[k]) keptB[ib[k]] = 1;
    size_t i = 0, j = 0;
    out.pairs.reserve(std::min(a.size(), b.size()));
    while (i < a.size() || j < b.size()) {
        if (i < a.size() && !keptA[i]) {
            out.deleted.push_back(static_cast<uint32_t>(i++));
        } else if (j < b.size() && !keptB[j]) {
            out.inserted.push_back(static_cast<uint32_t>(j++));
        } else if (i < a.size() && j < b.size()) {
            out.pairs.emplace_back(static_cast<uint32_t>(i++), static_cast<uint32_t>(j++));
        } else {
            // Unreachable when the diff is consistent; never loop forever.
            if (i < a.size()) out.deleted.push_back(static_cast<uint32_t>(i++));
            if (j < b.size()) out.inserted.push_back(static_cast<uint32_t>(j++));
        }
    }
    return out;
}

std::vector<AlignmentGap> alignmentGaps(const Alignment& al, size_t n, size_t m) {
    std::vector<AlignmentGap> gaps;
    uint32_t nextA = 0, nextB = 0;
    auto add = [&](uint32_t aEnd, uint32_t bEnd) {
        if (aEnd > nextA || bEnd > nextB) gaps.push_back({nextA, aEnd, nextB, bEnd});
    };
    for (const auto& [pa, pb] : al.pairs) {
        add(pa, pb);
        nextA = pa + 1;
        nextB = pb + 1;
    }
    add(static_cast<uint32_t>(n), static_cast<uint32_t>(m));
    return gaps;
}

}  // namespace ts::analysis
