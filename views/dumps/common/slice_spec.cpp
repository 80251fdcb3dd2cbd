#include "views/dumps/common/slice_spec.h"

#include <QStringList>

SliceSpec SliceSpec::defaultFor(const std::vector<uint64_t>& shape) {
    SliceSpec s;
    s.shape = shape;
    const int rank = static_cast<int>(shape.size());
    if (rank >= 2) {
        s.rowDim = rank - 2;
        s.colDim = rank - 1;
    } else if (rank == 1) {
        s.rowDim = 0;
    }
    s.fixed.assign(shape.size(), 0);
    return s;
}

void SliceSpec::normalize() {
    const int rank = static_cast<int>(shape.size());
    fixed.resize(shape.size(), 0);
    if (rowDim >= rank) rowDim = -1;
    if (colDim >= rank) colDim = -1;
    if (rank >= 2 && (rowDim < 0 || colDim < 0 || rowDim == colDim)) {
        const SliceSpec d = defaultFor(shape);
        rowDim = d.rowDim;
        colDim = d.colDim;
    }
    if (rank == 1) {
        rowDim = 0;
        colDim = -1;
    }
    for (size_t k = 0; k < shape.size(); ++k)
        if (shape[k] > 0 && fixed[k] >= shape[k]) fixed[k] = shape[k] - 1;
}

void SliceSpec::block(uint64_t r0, uint64_t nr, uint64_t c0, uint64_t nc,
                      std::vector<uint64_t>& start, std::vector<uint64_t>& count,
                      std::vector<uint64_t>& stride, uint64_t sr, uint64_t sc) const {
    const size_t rank = shape.size();
    start.assign(rank, 0);
    count.assign(rank, 1);
    stride.assign(rank, 1);
    for (size_t k = 0; k < rank; ++k) start[k] = k < fixed.size() ? fixed[k] : 0;
    if (rowDim >= 0) {
        start[static_cast<size_t>(rowDim)] = r0;
        count[static_cast<size_t>(rowDim)] = nr;
        stride[static_cast<size_t>(rowDim)] = sr;
    }
    if (colDim >= 0) {
        start[static_cast<size_t>(colDim)] = c0;
        count[static_cast<size_t>(colDim)] = nc;
        stride[static_cast<size_t>(colDim)] = sc;
    }
}

QString SliceSpec::describe() const {
    QStringList parts;
    for (size_t k = 0; k < shape.size(); ++k) {
        const int d = static_cast<int>(k);
        parts << (d == rowDim || d == colDim ? QStringLiteral(":")
                                             : QString::number(k < fixed.size() ? fixed[k] : 0));
    }
    return QStringLiteral("[%1]").arg(parts.join(QStringLiteral(", ")));
}
