#pragma once
// Streaming comparison of two tensors element by element (msaccucmp-like figures).
// Positions where both values are NaN, or both the same infinity, count as agreement;
// positions where exactly one side is non-finite (or they differ in kind) are
// disagreements. All error figures are computed over positions finite in both.
#include <cstddef>
#include <cstdint>

namespace ts::debug {

struct CompareFigures {
    uint64_t count = 0;              // positions compared
    uint64_t finitePairs = 0;        // positions finite in both
    uint64_t nonfiniteMismatch = 0;  // positions whose NaN/Inf status differs
    double cosine = 1.0;             // 1 when both finite parts are all-zero or empty
    double maxAbs = 0, maxRel = 0, meanAbs = 0, rmse = 0;
    /// Finite positions whose relative error |a - b| / |b| is at most 0.1 % / 0.5 % (b, the
    /// golden value, exactly 0: only when a is 0 too).
    uint64_t within1e3 = 0, within5e3 = 0;
    /// Shares of the finite positions within 0.1 % / 0.5 % (1 when there is none).
    double share1e3() const {
        return finitePairs ? static_cast<double>(within1e3) / static_cast<double>(finitePairs)
                           : 1.0;
    }
    double share5e3() const {
        return finitePairs ? static_cast<double>(within5e3) / static_cast<double>(finitePairs)
                           : 1.0;
    }
};

/// Accumulates CompareFigures over aligned blocks of the two tensors (as doubles).
class CompareAccumulator {
public:
    void add(const double* a, const double* b, size_t n);
    CompareFigures result() const;

private:
    uint64_t m_count = 0, m_finite = 0, m_mismatch = 0, m_within1e3 = 0, m_within5e3 = 0;
    double m_dot = 0, m_na = 0, m_nb = 0, m_sumAbs = 0, m_sumSq = 0, m_maxAbs = 0, m_maxRel = 0;
};

}  // namespace ts::debug
