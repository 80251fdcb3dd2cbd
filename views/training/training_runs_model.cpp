#include "views/training/training_runs_model.h"

#include <QColor>
#include <QDateTime>
#include <QLocale>
#include <algorithm>

#include "views/common/run_colour.h"

TrainingRunsModel::TrainingRunsModel(QObject* parent) : QAbstractTableModel(parent) {}

void TrainingRunsModel::setRuns(std::vector<ts::run::RunSummary> runs) {
    std::sort(runs.begin(), runs.end(), [](const auto& a, const auto& b) { return a.id > b.id; });
    beginResetModel();
    m_runs = std::move(runs);
    endResetModel();
}

const ts::run::RunSummary* TrainingRunsModel::run(qint64 id) const {
    const int row = rowOf(id);
    return row < 0 ? nullptr : &m_runs[static_cast<size_t>(row)];
}

int TrainingRunsModel::rowOf(qint64 id) const {
    for (size_t i = 0; i < m_runs.size(); ++i)
        if (m_runs[i].id == id) return static_cast<int>(i);
    return -1;
}

int TrainingRunsModel::rowCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : static_cast<int>(m_runs.size());
}

int TrainingRunsModel::columnCount(const QModelIndex& parent) const {
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant TrainingRunsModel::data(const QModelIndex& index, int role) const {
    if (!index.isValid() || index.row() >= rowCount()) return {};
    const auto& r = m_runs[static_cast<size_t>(index.row())];
    if (role == Qt::UserRole) return QVariant::fromValue<qint64>(r.id);
    auto evalValue = [&](const char* k) -> double {
        auto it = r.eval.find(k);
        return it == r.eval.end() ? -1.0 : it->second;
    };
    const QLocale loc;
    if (role == SortRole) {
        switch (index.column()) {
            case RunCol:
                return QVariant::fromValue<qint64>(r.id);
            case EpochsCol:
                return r.epochs;
            case StepsCol:
                return QVariant::fromValue<qint64>(r.steps);
            case AccuracyCol:
                return evalValue("accuracy");
            case LossCol:
                return evalValue("loss");
            case RateCol:
                return r.samplesPerS;
            case StartedCol:
                return QVariant::fromValue<qint64>(r.startedAtNs);
            default:
                return data(index, Qt::DisplayRole);
        }
    }
    if (role == Qt::DecorationRole && index.column() == RunCol) return runColour(r.id);
    if (role == Qt::ForegroundRole && index.column() == StatusCol) {
        if (r.status == ts::store::RunStatus::Failed) return QColor(200, 40, 40);
        if (r.status == ts::store::RunStatus::Interrupted) return QColor(200, 110, 0);
        if (r.status == ts::store::RunStatus::Running) return QColor(30, 110, 200);
    }
    if (role == Qt::ToolTipRole) {
        QString tip = QString::fromStdString(r.reason);
        for (const auto& w : r.warnings) tip += QStringLiteral("\n⚠ ") + QString::fromStdString(w);
        return tip;
    }
    if (role == Qt::TextAlignmentRole && index.column() >= EpochsCol && index.column() <= RateCol)
        return QVariant(Qt::AlignRight | Qt::AlignVCenter);
    if (role != Qt::DisplayRole) return {};
    switch (index.column()) {
        case RunCol:
            return QStringLiteral("#%1  %2").arg(r.id).arg(QString::fromStdString(r.name));
        case StatusCol:
            return QString::fromLatin1(ts::store::statusName(r.status));
        case ModelCol:
            if (r.isCommand()) return tr("command");
            return r.hasConfig ? QString::fromStdString(r.config.model) : QString();
        case DatasetCol:
            if (r.isCommand()) return QString::fromStdString(r.commandLine);
            return r.hasConfig ? QString::fromStdString(r.config.dataset) : QString();
        case EpochsCol:
            return r.hasSummary && !r.isCommand()
                       ? QStringLiteral("%1/%2").arg(r.epochs).arg(r.config.epochs)
                       : QString();
        case StepsCol:
            return r.hasSummary && !r.isCommand() ? loc.toString(static_cast<qlonglong>(r.steps))
                                                  : QString();
        case AccuracyCol: {
            const double a = evalValue("accuracy");
            return a >= 0 ? QStringLiteral("%1%").arg(a * 100, 0, 'f', 2) : QString();
        }
        case LossCol: {
            const double l = evalValue("loss");
            return l >= 0 ? QString::number(l, 'f', 4) : QString();
        }
        case RateCol:
            return r.samplesPerS > 0 ? loc.toString(r.samplesPerS, 'f', 0) : QString();
        case StartedCol:
            return r.startedAtNs > 0 ? QDateTime::fromMSecsSinceEpoch(r.startedAtNs / 1'000'000)
                                           .toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"))
                                     : QString();
        default:
            return {};
    }
}

QVariant TrainingRunsModel::headerData(int section, Qt::Orientation orientation, int role) const {
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
    static const char* names[] = {"Run",   "Status",   "Model",     "Dataset",   "Epochs",
                                  "Steps", "Accuracy", "Eval loss", "Samples/s", "Started"};
    return section >= 0 && section < ColumnCount ? tr(names[section]) : QVariant();
}
