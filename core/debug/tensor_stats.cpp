#include "core/debug/tensor_stats.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

namespace ts::debug {

namespace {

// Fast pass for blocks that are (probably) all finite: 8 independent lanes so the
// compiler can keep several adds in flight. Any NaN/Inf makes sum or min/max non-finite,
// which the caller detects and then redoes the block with the careful loop.
template <class T>
bool fastPass(const T* v, size_t n, double& sum, T& lo, T& hi, uint64_t& zeros) {
    constexpr size_t L = 8;
    double s[L] = {};
    T mn[L], mx[L];
    uint64_t z[L] = {};
    for (size_t k = 0; k < L; ++k) mn[k] = mx[k] = v[0];
    size_t i = 0;
    for (; i + L <= n; i += L) {
        for (size_t k = 0; k < L; ++k) {
            const T x = v[i + k];
            s[k] += static_cast<double>(x);
            mn[k] = x < mn[k] ? x : mn[k];
            mx[k] = x > mx[k] ? x : mx[k];
            z[k] += (x == T(0));
        }
    }
    for (; i < n; ++i) {
        const T x = v[i];
        s[0] += static_cast<double>(x);
        mn[0] = x < mn[0] ? x : mn[0];
        mx[0] = x > mx[0] ? x : mx[0];
        z[0] += (x == T(0));
    }
    sum = 0;
    zeros = 0;
    lo = mn[0];
    hi = mx[0];
    for (size_t k = 0; k < L; ++k) {
        sum += s[k];
        zeros += z[k];
        lo = mn[k] < lo ? mn[k] : lo;
        hi = mx[k] > hi ? mx[k] : hi;
    }
    return std::isfinite(sum) && std::isfinite(lo) && std::isfinite(hi);
}

template <class T>
double sumSquaredDev(const T* v, size_t n, double mean) {
    constexpr size_t L = 8;
    double m[L] = {};
    size_t i = 0;
    for (; i + L <= n; i += L) {
        for (size_t k = 0; k < L; ++k) {
            const double d = static_cast<double>(v[i + k]) - mean;
            m[k] += d * d;
        }
    }
    for (; i < n; ++i) {
        const double d = static_cast<double>(v[i]) - mean;
        m[0] += d * d;
    }
    double t = 0;
    for (double x : m) t += x;
    return t;
}

}  // namespace

template <class T>
void StatsAccumulator::addBlock(const T* v, size_t n) {
    if (n == 0) return;
    {
        double fsum = 0;
        T flo{}, fhi{};
        uint64_t fz = 0;
        if (fastPass(v, n, fsum, flo, fhi, fz)) {
            m_count += n;
            m_zeros += fz;
            const double bmean = fsum / static_cast<double>(n);
            mergeBlock(n, flo, fhi, bmean, sumSquaredDev(v, n, bmean));
            return;
        }
    }
    // Pass 1 over the (cache-resident) block: counts, min/max and sum of finite values.
    uint64_t nan = 0, pinf = 0, ninf = 0, zeros = 0, fin = 0;
    T lo = std::numeric_limits<T>::infinity(), hi = -std::numeric_limits<T>::infinity();
    double sum = 0;
    for (size_t i = 0; i < n; ++i) {
        const T x = v[i];
        if (std::isfinite(x)) {
            ++fin;
            sum += x;
            lo = x < lo ? x : lo;
            hi = x > hi ? x : hi;
            zeros += (x == T(0));
        } else if (std::isnan(x)) {
            ++nan;
        } else if (x > 0) {
            ++pinf;
        } else {
            ++ninf;
        }
    }
    m_count += n;
    m_nan += nan;
    m_pinf += pinf;
    m_ninf += ninf;
    m_zeros += zeros;
    if (fin == 0) return;
    // Pass 2: squared deviations from the block mean (stable), then Chan merge.
    const double bmean = sum / static_cast<double>(fin);
    double m2 = 0;
    if (nan + pinf + ninf == 0) {
        for (size_t i = 0; i < n; ++i) {
            const double d = static_cast<double>(v[i]) - bmean;
            m2 += d * d;
        }
    } else {
        for (size_t i = 0; i < n; ++i) {
            if (!std::isfinite(v[i])) continue;
            const double d = static_cast<double>(v[i]) - bmean;
            m2 += d * d;
        }
    }
    mergeBlock(fin, lo, hi, bmean, m2);
}

void StatsAccumulator::mergeBlock(uint64_t fin, double lo, double hi, double bmean, double m2) {
    if (m_finite == 0) {
        m_min = lo;
        m_max = hi;
        m_mean = bmean;
        m_m2 = m2;
        m_finite = fin;
        return;
    }
    m_min = std::min<double>(m_min, lo);
    m_max = std::max<double>(m_max, hi);
    const double na = static_cast<double>(m_finite), nb = static_cast<double>(fin);
    const double delta = bmean - m_mean;
    const double total = na + nb;
    m_mean += delta * nb / total;
    m_m2 += m2 + delta * delta * na * nb / total;
    m_finite += fin;
}

// Blocks are reduced in slices that stay in L1/L2 cache, so the second pass of a slice (the
// squared deviations) reads cache, not memory.
constexpr size_t kSlice = 8192;

void StatsAccumulator::add(const float* v, size_t n) {
    for (size_t i = 0; i < n; i += kSlice) addBlock(v + i, std::min(kSlice, n - i));
}
void StatsAccumulator::add(const double* v, size_t n) {
    for (size_t i = 0; i < n; i += kSlice) addBlock(v + i, std::min(kSlice, n - i));
}

void StatsAccumulator::merge(const StatsAccumulator& o) {
    m_count += o.m_count;
    m_nan += o.m_nan;
    m_pinf += o.m_pinf;
    m_ninf += o.m_ninf;
    m_zeros += o.m_zeros;
    if (o.m_finite == 0) return;
    if (m_finite == 0) {
        m_min = o.m_min;
        m_max = o.m_max;
        m_mean = o.m_mean;
        m_m2 = o.m_m2;
        m_finite = o.m_finite;
        return;
    }
    m_min = std::min(m_min, o.m_min);
    m_max = std::max(m_max, o.m_max);
    const double na = static_cast<double>(m_finite), nb = static_cast<double>(o.m_finite);
    const double delta = o.m_mean - m_mean;
    m_mean += delta * nb / (na + nb);
    m_m2 += o.m_m2 + delta * delta * na * nb / (na + nb);
    m_finite += o.m_finite;
}

TensorStats StatsAccumulator::result() const {
    TensorStats s;
    s.count = m_count;
    s.finite = m_finite;
    s.nan = m_nan;
    s.posinf = m_pinf;
    s.neginf = m_ninf;
    s.zeros = m_zeros;
    if (m_finite > 0) {
        s.min = m_min;
        s.max = m_max;
        s.mean = m_mean;
        s.std = std::sqrt(std::max(0.0, m_m2 / static_cast<double>(m_finite)));
    }
    return s;
}

Histogram::Histogram(double lo, double hi, int bins, bool logScale)
    : m_lo(lo), m_hi(hi), m_log(logScale), m_counts(static_cast<size_t>(std::max(1, bins)), 0) {
    if (m_log) {
        m_lo = std::max(m_lo, std::numeric_limits<double>::min());
        m_hi = std::max(m_hi, m_lo);
    }
    if (!(m_hi > m_lo)) m_hi = m_lo + 1.0;
}

double Histogram::edge(int i) const {
    const double f = static_cast<double>(i) / static_cast<double>(m_counts.size());
    if (m_log) return std::pow(10.0, std::log10(m_lo) + f * (std::log10(m_hi) - std::log10(m_lo)));
    return m_lo + f * (m_hi - m_lo);
}

template <class T>
void Histogram::addBlock(const T* v, size_t n) {
    const double nb = static_cast<double>(m_counts.size());
    const double a = m_log ? std::log10(m_lo) : m_lo;
    const double b = m_log ? std::log10(m_hi) : m_hi;
    const double scale = nb / (b - a);
    for (size_t i = 0; i < n; ++i) {
        double x = static_cast<double>(v[i]);
        if (!std::isfinite(x)) continue;
        if (m_log) {
            x = std::fabs(x);
            if (x < m_lo) {
                ++underflow;
                continue;
            }
            x = std::log10(x);
        }
        if (x < a) {
            ++underflow;
        } else if (x > b) {
            ++overflow;
        } else {
            auto k = static_cast<size_t>((x - a) * scale);
            m_counts[std::min(k, m_counts.size() - 1)]++;
        }
    }
}

void Histogram::add(const float* v, size_t n) {
    addBlock(v, n);
}
void Histogram::add(const double* v, size_t n) {
    addBlock(v, n);
}

namespace {
constexpr int kMinExp = -1075;  // below the smallest double denormal (2^-1074)
constexpr int kMaxExp = 1024;
}  // namespace

MagnitudeHistogram::MagnitudeHistogram()
    : m_counts(static_cast<size_t>((kMaxExp - kMinExp) * kSub), 0) {}

double MagnitudeHistogram::lowerEdge(int i) {
    const int e = i / kSub + kMinExp;
    return std::ldexp(1.0 + static_cast<double>(i % kSub) / kSub, e);
}

void MagnitudeHistogram::addValue(double x) {
    if (!std::isfinite(x)) return;
    if (x == 0) {
        ++zeros;
        return;
    }
    int e = 0;
    const double m = std::frexp(std::fabs(x), &e);  // |x| = m * 2^e, m in [0.5, 1)
    const int sub = std::min(kSub - 1, static_cast<int>((m * 2.0 - 1.0) * kSub));
    const int i = (e - 1 - kMinExp) * kSub + sub;
    if (i >= 0 && i < bins()) ++m_counts[static_cast<size_t>(i)];
}

void MagnitudeHistogram::add(const float* v, size_t n) {
    // Normal floats: exponent and the top two mantissa bits straight from the bits.
    static_assert(kSub == 4, "the fast path takes two mantissa bits");
    for (size_t k = 0; k < n; ++k) {
        uint32_t b;
        std::memcpy(&b, v + k, sizeof b);
        const uint32_t ex = (b >> 23) & 0xffu;
        if (ex == 0 || ex == 0xffu) {
            addValue(v[k]);  // zero, denormal, inf, nan
            continue;
        }
        const int e = static_cast<int>(ex) - 127;
        const int i = (e - kMinExp) * kSub + static_cast<int>((b >> 21) & 3u);
        ++m_counts[static_cast<size_t>(i)];
    }
}

void MagnitudeHistogram::add(const double* v, size_t n) {
    for (size_t k = 0; k < n; ++k) addValue(v[k]);
}

std::pair<int, int> MagnitudeHistogram::usedRange() const {
    int a = 0, b = bins();
    while (a < b && m_counts[static_cast<size_t>(a)] == 0) ++a;
    while (b > a && m_counts[static_cast<size_t>(b - 1)] == 0) --b;
    return {a, b};
}

}  // namespace ts::debug
