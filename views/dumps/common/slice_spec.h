#pragma once
// SliceSpec: which 2-D slice of an N-D dataset the value table and the heatmap show: one
// dimension along the rows, one along the columns, a fixed index for every other one
// (1-D: rows only; scalar: one cell). Plain data, tested without widgets.
#include <QString>
#include <cstdint>
#include <vector>

struct SliceSpec {
    std::vector<uint64_t> shape;
    int rowDim = -1;              // -1: a single row
    int colDim = -1;              // -1: a single column
    std::vector<uint64_t> fixed;  // index for each dimension not shown

    /// Rows = last-but-one dimension, columns = last; other indices 0.
    static SliceSpec defaultFor(const std::vector<uint64_t>& shape);
    uint64_t rows() const { return rowDim < 0 ? 1 : shape[static_cast<size_t>(rowDim)]; }
    uint64_t cols() const { return colDim < 0 ? 1 : shape[static_cast<size_t>(colDim)]; }
    /// Hyperslab for rows [r0, r0 + nr*sr) step sr and columns [c0, c0 + nc*sc) step sc.
    void block(uint64_t r0, uint64_t nr, uint64_t c0, uint64_t nc, std::vector<uint64_t>& start,
               std::vector<uint64_t>& count, std::vector<uint64_t>& stride, uint64_t sr = 1,
               uint64_t sc = 1) const;
    /// Position of cell (r, c) in the block read by block() (C order of the dataset's dims,
    /// so a transposed choice, rowDim > colDim, reads column-major).
    size_t offset(uint64_t r, uint64_t c, uint64_t nr, uint64_t nc) const {
        return rowDim > colDim && colDim >= 0 ? static_cast<size_t>(c * nr + r)
                                              : static_cast<size_t>(r * nc + c);
    }
    /// numpy-like text, e.g. "[0, 3, :, :]" (rows and columns as ':').
    QString describe() const;
    /// Makes the choice valid for the shape (dims in range, distinct, indices clamped).
    void normalize();
};
