#pragma once
// Numpy broadcasting of two operands (the general case of ops::add): the output shape and
// each operand's strides over it, computed by the op and handed to its kernels.
#include <algorithm>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "core/engine/tensor/tensor.h"

namespace ts::engine::detail {

/// Shapes aligned at the right; each operand's strides over the output (0 where broadcast).
struct Broadcast {
    Shape out;
    std::vector<int64_t> sa, sb;
};

/// Throws std::invalid_argument naming Add when the shapes do not broadcast.
inline Broadcast broadcastOf(const Tensor& a, const Tensor& b) {
    const size_t r = static_cast<size_t>(std::max(a.rank(), b.rank()));
    Broadcast bc{Shape(r, 1), std::vector<int64_t>(r, 0), std::vector<int64_t>(r, 0)};
    auto dimOf = [r](const Tensor& t, size_t i) -> int64_t {
        const size_t lead = r - static_cast<size_t>(t.rank());
        return i < lead ? 1 : t.dim(static_cast<int>(i - lead));
    };
    for (size_t i = 0; i < r; ++i) {
        const int64_t da = dimOf(a, i), db = dimOf(b, i);
        if (da != db && da != 1 && db != 1)
            throw std::invalid_argument("Add: shapes " + shapeString(a.shape()) + " and " +
                                        shapeString(b.shape()) + " do not broadcast");
        bc.out[i] = std::max(da, db);
    }
    int64_t ka = 1, kb = 1;
    for (size_t i = r; i-- > 0;) {
        const int64_t da = dimOf(a, i), db = dimOf(b, i);
        bc.sa[i] = da == 1 ? 0 : ka;
        bc.sb[i] = db == 1 ? 0 : kb;
        ka *= da;
        kb *= db;
    }
    return bc;
}

/// Offsets in a and b of output row `row` (all dims but the last).
inline void rowOffsets(const Broadcast& bc, int64_t row, int64_t& oa, int64_t& ob) {
    oa = ob = 0;
    for (size_t i = bc.out.size() - 1; i-- > 0;) {
        const int64_t k = row % bc.out[i];
        row /= bc.out[i];
        oa += k * bc.sa[i];
        ob += k * bc.sb[i];
    }
}

}  // namespace ts::engine::detail
