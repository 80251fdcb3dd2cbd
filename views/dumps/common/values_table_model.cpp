#include "views/dumps/common/values_table_model.h"

#include <QBrush>
#include <QColor>

#include "core/hdf5/h5_text.h"
#include "views/common/job_tracker.h"

namespace {
struct BlockResult {
    std::vector<QString> cells;
    uint64_t nr = 0, nc = 0;
    QString error;
};
}  // namespace

ValuesTableModel::ValuesTableModel(JobTracker* jobs, QObject* parent)
    : QAbstractTableModel(parent), m_jobs(jobs) {}

void ValuesTableModel::setDataset(std::shared_ptr<const ts::h5::File> file, const QString& path,
                                  const SliceSpec& spec) {
    beginResetModel();
    m_file = std::move(file);
    m_path = path;
    m_spec = spec;
    ++m_generation;
    m_blocks.clear();
    m_pending.clear();
    m_error.clear();
    endResetModel();
}

void ValuesTableModel::setSlice(const SliceSpec& spec) {
    setDataset(m_file, m_path, spec);
}

int ValuesTableModel::rowCount(const QModelIndex& parent) const {
    if (parent.isValid() || !m_file || m_path.isEmpty()) return 0;
    return static_cast<int>(std::min<uint64_t>(m_spec.rows(), INT32_MAX));
}

int ValuesTableModel::columnCount(const QModelIndex& parent) const {
    if (parent.isValid() || !m_file || m_path.isEmpty()) return 0;
    return static_cast<int>(std::min<uint64_t>(m_spec.cols(), kMaxColumns));
}

void ValuesTableModel::request(uint64_t br, uint64_t bc) const {
    const quint64 k = key(br, bc);
    if (m_pending.contains(k)) return;
    m_pending.insert(k);
    const uint64_t r0 = br * kBlockRows, c0 = bc * kBlockCols;
    const uint64_t nr = std::min<uint64_t>(kBlockRows, m_spec.rows() - r0);
    const uint64_t nc = std::min<uint64_t>(kBlockCols, m_spec.cols() - c0);
    auto file = m_file;
    const std::string path = m_path.toStdString();
    const SliceSpec spec = m_spec;
    const quint64 gen = m_generation;
    auto* self = const_cast<ValuesTableModel*>(this);
    m_jobs->run<BlockResult>(
        self,
        QStringLiteral("h5values:%1:%2:%3").arg(reinterpret_cast<quintptr>(this)).arg(gen).arg(k),
        tr("Reading values of %1").arg(m_path),
        [file, path, spec, r0, nr, c0, nc](ts::JobControl&) {
            BlockResult out;
            out.nr = nr;
            out.nc = nc;
            std::vector<uint64_t> start, count, stride;
            spec.block(r0, nr, c0, nc, start, count, stride);
            auto v = ts::h5::readHyperslabText(*file, path, start, count);
            if (!v) {
                out.error = QString::fromStdString(v.error());
                return out;
            }
            out.cells.resize(nr * nc);
            for (uint64_t r = 0; r < nr; ++r)
                for (uint64_t c = 0; c < nc; ++c) {
                    const size_t at = spec.offset(r, c, nr, nc);
                    if (at < v->size()) out.cells[r * nc + c] = QString::fromStdString((*v)[at]);
                }
            return out;
        },
        [self, gen, k, br, bc](BlockResult res) {
            if (gen != self->m_generation) return;
            self->m_pending.remove(k);
            if (!res.error.isEmpty()) self->m_error = res.error;
            Block b;
            b.nr = res.nr;
            b.nc = res.nc;
            b.cells = std::move(res.cells);
            if (b.cells.empty()) b.cells.assign(b.nr * b.nc, tr("<error>"));
            self->m_blocks.insert(k, std::move(b));
            const int r0 = static_cast<int>(br * kBlockRows),
                      c0 = static_cast<int>(bc * kBlockCols);
            emit self->dataChanged(
                self->index(r0, c0),
                self->index(r0 + static_cast<int>(res.nr) - 1, c0 + static_cast<int>(res.nc) - 1));
            emit self->blockLoaded();
        });
}

QVariant ValuesTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid()) return {};
    if (role != Qt::DisplayRole && role != Qt::BackgroundRole && role != Qt::TextAlignmentRole &&
        role != Qt::ToolTipRole && role != Qt::ForegroundRole)
        return {};
    const auto r = static_cast<uint64_t>(index.row()), c = static_cast<uint64_t>(index.column());
    const uint64_t br = r / kBlockRows, bc = c / kBlockCols;
    auto it = m_blocks.constFind(key(br, bc));
    if (it == m_blocks.constEnd()) {
        if (role == Qt::DisplayRole) {
            request(br, bc);
            return QStringLiteral("…");
        }
        return {};
    }
    const Block& b = it.value();
    const uint64_t rr = r - br * kBlockRows, cc = c - bc * kBlockCols;
    if (rr >= b.nr || cc >= b.nc) return {};
    const QString& v = b.cells[rr * b.nc + cc];
    switch (role) {
        case Qt::DisplayRole:
            return v;
        case Qt::ToolTipRole:
            return v.size() > 40 ? v : QVariant();
        case Qt::TextAlignmentRole:
            return v.isEmpty() || v[0].isDigit() || v[0] == '-' || v == QLatin1String("nan") ||
                           v == QLatin1String("inf")
                       ? QVariant(Qt::AlignRight | Qt::AlignVCenter)
                       : QVariant(Qt::AlignLeft | Qt::AlignVCenter);
        case Qt::BackgroundRole:
            if (v == QLatin1String("nan")) return QBrush(QColor(255, 205, 210));
            if (v == QLatin1String("inf") || v == QLatin1String("-inf"))
                return QBrush(QColor(255, 224, 178));
            return {};
        case Qt::ForegroundRole:  // dark on the light tints, in either theme
            return v == QLatin1String("nan") || v == QLatin1String("inf") ||
                           v == QLatin1String("-inf")
                       ? QVariant(QBrush(QColor(Qt::black)))
                       : QVariant();
        default:
            return {};
    }
}

QVariant ValuesTableModel::headerData(int section, Qt::Orientation o, int role) const {
    if (role != Qt::DisplayRole) return {};
    if (o == Qt::Horizontal && m_spec.colDim < 0) return tr("value");
    return QString::number(section);
}
