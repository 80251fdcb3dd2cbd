#pragma once
// Streaming tensor statistics: feed blocks of values, read min/max/mean/std (population,
// over finite values) and NaN/+Inf/-Inf/zero counts. Blocks are merged with Chan's
// parallel formula, so any block size gives the same figures as a two-pass computation.
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace ts::debug {

struct TensorStats {
    uint64_t count = 0;   // all elements seen
    uint64_t finite = 0;  // elements that are neither NaN nor Inf
    uint64_t nan = 0, posinf = 0, neginf = 0, zeros = 0;
    double min = 0, max = 0, mean = 0, std = 0;  // over finite values; valid when finite > 0
    bool hasNonFinite() const { return nan + posinf + neginf > 0; }
};

/// Accumulates TensorStats over blocks of float or double values.
class StatsAccumulator {
public:
    void add(const float* v, size_t n);
    void add(const double* v, size_t n);
    /// Merges another accumulator (e.g. from another thread or chunk).
    void merge(const StatsAccumulator& o);
    TensorStats result() const;

private:
    template <class T>
    void addBlock(const T* v, size_t n);
    void mergeBlock(uint64_t finite, double lo, double hi, double mean, double m2);
    uint64_t m_count = 0, m_finite = 0, m_nan = 0, m_pinf = 0, m_ninf = 0, m_zeros = 0;
    double m_min = 0, m_max = 0, m_mean = 0, m_m2 = 0;
};

/// A histogram over finite values. Log bins cover |x| in [lo, hi] (lo > 0) on a log10
/// scale; values with |x| < lo go to `underflow`, for linear bins values outside [lo, hi]
/// are counted in underflow/overflow.
class Histogram {
public:
    Histogram(double lo, double hi, int bins, bool logScale);
    void add(const float* v, size_t n);
    void add(const double* v, size_t n);
    const std::vector<uint64_t>& counts() const { return m_counts; }
    /// Lower edge of bin i (bin i spans [edge(i), edge(i+1))).
    double edge(int i) const;
    int bins() const { return static_cast<int>(m_counts.size()); }
    bool logScale() const { return m_log; }
    uint64_t underflow = 0, overflow = 0;

private:
    template <class T>
    void addBlock(const T* v, size_t n);
    double m_lo, m_hi;
    bool m_log;
    std::vector<uint64_t> m_counts;
};

/// Logarithmic histogram of |x| over finite non-zero values with no range to choose: bins
/// are binary orders of magnitude split in kSub parts (from the exponent and the top
/// mantissa bits), so one pass covers denormals to the largest double. Zeros are counted
/// apart. Bin i spans [lowerEdge(i), lowerEdge(i + 1)).
class MagnitudeHistogram {
public:
    static constexpr int kSub = 4;
    MagnitudeHistogram();
    void add(const float* v, size_t n);
    void add(const double* v, size_t n);
    const std::vector<uint64_t>& counts() const { return m_counts; }
    int bins() const { return static_cast<int>(m_counts.size()); }
    static double lowerEdge(int i);
    /// First and one-past-last non-empty bin (first == last when all are empty).
    std::pair<int, int> usedRange() const;
    uint64_t zeros = 0;

private:
    void addValue(double x);
    std::vector<uint64_t> m_counts;
};

}  // namespace ts::debug
