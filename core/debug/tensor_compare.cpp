#include "core/debug/tensor_compare.h"

#include <cmath>

namespace ts::debug {

void CompareAccumulator::add(const double* a, const double* b, size_t n) {
    for (size_t i = 0; i < n; ++i) {
        const double x = a[i], y = b[i];
        const bool fx = std::isfinite(x), fy = std::isfinite(y);
        if (!fx || !fy) {
            const bool same = !fx && !fy && ((std::isnan(x) && std::isnan(y)) || x == y);
            if (!same) ++m_mismatch;
            continue;
        }
        ++m_finite;
        m_dot += x * y;
        m_na += x * x;
        m_nb += y * y;
        const double d = std::fabs(x - y);
        m_sumAbs += d;
        m_sumSq += d * d;
        if (d > m_maxAbs) m_maxAbs = d;
        const double ay = std::fabs(y);
        m_within1e3 += d <= 1e-3 * ay ? 1 : 0;
        m_within5e3 += d <= 5e-3 * ay ? 1 : 0;
        // Relative error against the reference (b); exact zeros in b are skipped.
        if (y != 0) {
            const double r = d / std::fabs(y);
            if (r > m_maxRel) m_maxRel = r;
        }
    }
    m_count += n;
}

CompareFigures CompareAccumulator::result() const {
    CompareFigures f;
    f.count = m_count;
    f.finitePairs = m_finite;
    f.nonfiniteMismatch = m_mismatch;
    f.within1e3 = m_within1e3;
    f.within5e3 = m_within5e3;
    if (m_finite > 0) {
        const double n = static_cast<double>(m_finite);
        f.meanAbs = m_sumAbs / n;
        f.rmse = std::sqrt(m_sumSq / n);
        f.maxAbs = m_maxAbs;
        f.maxRel = m_maxRel;
        if (m_na > 0 && m_nb > 0) {
            f.cosine = m_dot / (std::sqrt(m_na) * std::sqrt(m_nb));
        } else {
            f.cosine = (m_na == 0 && m_nb == 0) ? 1.0 : 0.0;
        }
    }
    return f;
}

}  // namespace ts::debug
