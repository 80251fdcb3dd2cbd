#include "views/kernels/kernel_table_model.h"

#include "core/timeline/time_axis.h"
#include "views/common/units_text.h"

using ts::analysis::gpu::KernelRow;

namespace {

QString columnHelp(int c) {
    switch (c) {
        case KernelTableModel::Share:
            return QObject::tr("Share of all kernel, memcpy and memset time in the table.");
        case KernelTableModel::Occupancy:
            return QObject::tr(
                "Est. achieved occupancy: Kineto's \"est. achieved occupancy %\" where the "
                "trace gives it, else computed as Kineto computes it: min(active blocks per SM, "
                "grid blocks / SMs) x threads per block / max threads per SM, weighted by "
                "duration. Kineto reports 0 for kernels that opted in to more than 48 KiB of "
                "shared memory (see Theoretical).");
        case KernelTableModel::Theoretical:
            return QObject::tr(
                "Theoretical occupancy of the launch configuration: the resident blocks per SM "
                "that warps, registers, shared memory (with the opt-in limit the kernel needs) "
                "and the architecture allow, as threads over the SM's maximum.");
        case KernelTableModel::LimitedBy:
            return QObject::tr("What limits the resident blocks per SM.");
        case KernelTableModel::BlocksPerSm:
            return QObject::tr(
                "Grid blocks / SMs (Kineto's \"blocks per SM\"), the mean over calls. "
                "Below 1 the grid leaves SMs idle.");
        case KernelTableModel::TensorCores:
            return QObject::tr(
                "Uses Tensor Cores, by the kernel's name: MMA instructions (wgmma, gmma, hmma, "
                "imma, tcgen05), library tile names (s16816, h884, s1688, ...), engines that "
                "only exist on Tensor Cores (xmma, tensorop/CUTLASS, nvjet, flash attention). "
                "The rule is in docs/PROFILING.md.");
        case KernelTableModel::Op:
            return QObject::tr(
                "The op that launched most calls: the innermost operator around the "
                "runtime call with the kernel's correlation id.");
        case KernelTableModel::InputShapes:
            return QObject::tr("That op's input shapes in those calls (the commonest).");
        case KernelTableModel::Bound:
            return QObject::tr(
                "Ascend: what bounds the kernel by its pipeline ratios — compute when the cube "
                "(aic_mac_ratio) or vector (aiv_vec_ratio) unit is the busiest, memory when a "
                "data mover (MTE1/MTE2/MTE3) is, scalar when the scalar unit beats both.");
        case KernelTableModel::CoreType:
            return QObject::tr(
                "Ascend: the accelerator core the kernel ran on (AI_CORE, "
                "AI_VECTOR_CORE, MIX_AIC, AI_CPU).");
        default:
            return {};
    }
}

}  // namespace

KernelTableModel::KernelTableModel(QObject* parent) : QAbstractTableModel(parent) {}

void KernelTableModel::setTable(ts::analysis::gpu::KernelTable table) {
    beginResetModel();
    m_table = std::move(table);
    endResetModel();
}

int KernelTableModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_table.rows.size());
}

int KernelTableModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : FixedColumns + static_cast<int>(m_table.pipelineColumns.size());
}

QVariant KernelTableModel::headerData(int section, Qt::Orientation o, int role) const {
    if (o != Qt::Horizontal) return {};
    if (role == Qt::ToolTipRole) return columnHelp(section);
    if (role != Qt::DisplayRole) return {};
    static const char* names[] = {
        "Name",         "Kind",  "Calls",          "Total",       "Mean",       "Min",
        "Max",          "Share", "Est. occupancy", "Theoretical", "Limited by", "Blocks/SM",
        "Tensor Cores", "Grid",  "Block",          "Registers",   "Shared mem", "Launching op",
        "Input shapes", "Core",  "Block dim",      "Bound"};
    if (section < FixedColumns) return tr(names[section]);
    const size_t p = static_cast<size_t>(section - FixedColumns);
    return p < m_table.pipelineColumns.size() ? QString::fromStdString(m_table.pipelineColumns[p])
                                              : QVariant();
}

QVariant KernelTableModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const KernelRow& r = m_table.rows[static_cast<size_t>(index.row())];
    const int c = index.column();
    if (role == SlicesRole) {
        QList<qint64> ids;
        for (int64_t id : r.sliceIds) ids << id;
        return QVariant::fromValue(ids);
    }
    if (role == Qt::ToolTipRole) {
        if (c == Name || c == Op || c == InputShapes)
            return QString::fromStdString(c == Name ? r.name : c == Op ? r.op : r.inputShapes);
        return columnHelp(c);
    }
    if (role == Qt::TextAlignmentRole) {
        if (c == Name || c == Kind || c == Op || c == InputShapes || c == LimitedBy ||
            c == CoreType || c == Bound)
            return {};
        return int(Qt::AlignRight | Qt::AlignVCenter);
    }
    const bool sort = role == SortRole;
    if (role != Qt::DisplayRole && !sort) return {};
    auto text = [&](const std::string& s) -> QVariant { return QString::fromStdString(s); };
    auto number = [&](double v, const QString& shown) -> QVariant {
        return sort ? QVariant(v) : QVariant(shown);
    };
    auto optional = [&](const std::optional<double>& v) -> QVariant {
        if (!v) return sort ? QVariant(-1.0) : QVariant(QStringLiteral("–"));
        return number(*v, shareText(*v));
    };
    switch (c) {
        case Name:
            return text(r.name);
        case Kind:
            return text(r.kind);
        case Calls:
            return number(static_cast<double>(r.calls), QString::number(r.calls));
        case Total:
            return number(static_cast<double>(r.totalNs),
                          durationText(static_cast<double>(r.totalNs)));
        case Mean:
            return number(r.meanNs, durationText(r.meanNs));
        case Min:
            return number(static_cast<double>(r.minNs), durationText(static_cast<double>(r.minNs)));
        case Max:
            return number(static_cast<double>(r.maxNs), durationText(static_cast<double>(r.maxNs)));
        case Share:
            return number(r.share, shareText(r.share));
        case Occupancy:
            return optional(r.occupancy);
        case Theoretical:
            return optional(r.theoretical);
        case LimitedBy:
            return text(r.limitedBy);
        case BlocksPerSm:
            return r.blocksPerSm < 0
                       ? (sort ? QVariant(-1.0) : QVariant(QStringLiteral("–")))
                       : number(r.blocksPerSm, QString::number(r.blocksPerSm, 'f', 2));
        case TensorCores:
            return sort ? QVariant(r.tensorCore ? 1.0 : 0.0)
                        : QVariant(r.tensorCore ? tr("yes") : QString());
        case Grid:
            return text(r.grid);
        case Block:
            return text(r.block);
        case Registers:
            return r.registers < 0
                       ? (sort ? QVariant(-1.0) : QVariant())
                       : number(static_cast<double>(r.registers), QString::number(r.registers));
        case SharedMemory:
            return r.sharedMemory < 0 ? (sort ? QVariant(-1.0) : QVariant())
                                      : number(static_cast<double>(r.sharedMemory),
                                               QString::number(r.sharedMemory));
        case Op:
            return text(r.op);
        case InputShapes:
            return text(r.inputShapes);
        case CoreType:
            return text(r.acceleratorCore);
        case Bound:
            return text(r.bound);
        case BlockDim:
            return r.blockDim < 0
                       ? (sort ? QVariant(-1.0) : QVariant())
                       : number(static_cast<double>(r.blockDim), QString::number(r.blockDim));
        default: {
            const size_t p = static_cast<size_t>(c - FixedColumns);
            if (p >= m_table.pipelineColumns.size()) return {};
            auto it = r.pipeline.find(m_table.pipelineColumns[p]);
            if (it == r.pipeline.end()) return sort ? QVariant(-1.0) : QVariant();
            return number(it->second, QString::number(it->second, 'f', 3));
        }
    }
}
