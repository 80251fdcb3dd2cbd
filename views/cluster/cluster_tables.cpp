#include "views/cluster/cluster_tables.h"

#include <QObject>

using namespace ts::analysis;

namespace {
QString tr(const char* s) {
    return QObject::tr(s);
}
FigureTableModel::Column col(const char* header, int decimals = -1, const char* tip = nullptr) {
    return {QObject::tr(header), decimals, tip ? QObject::tr(tip) : QString()};
}
QVariant text(const std::string& s) {
    return QString::fromStdString(s);
}
}  // namespace

FigureTableModel* makeStragglerModel(QObject* parent) {
    return new FigureTableModel(
        {col("Rank"), col("Step"),
         col("Work ms", 3, "Step time minus its wait: the rank's own time in the step"),
         col("Median work ms", 3, "Median over the ranks of this step"), col("Step ms", 3),
         col("Median step ms", 3), col("Its wait ms", 3, "Its communication not hidden by compute"),
         col("Others' wait ms", 3, "Median wait of the other ranks: waiting for this one")},
        parent);
}

FigureTableModel* makeRankModel(QObject* parent) {
    return new FigureTableModel(
        {col("Rank"), col("Trace"), col("Steps"), col("Median step ms", 3), col("p95 step ms", 3),
         col("Compute ms", 3, "Per step (mean)"), col("Comm ms", 3, "Per step (mean)"),
         col("Overlap %", 1, "Share of communication covered by compute"),
         col("Wait ms", 3, "Communication not hidden, per step"),
         col("Idle ms", 3, "Neither compute nor communication, per step"), col("Median work ms", 3),
         col("Straggler steps"), col("Counted on"), col("Rank from")},
        parent);
}

FigureTableModel* makeOpCompareModel(QObject* parent) {
    return new FigureTableModel(
        {col("Op"), col("Category"), col("Self ms/step", 3), col("Median rank ms/step", 3),
         col("Δ ms/step", 3), col("Ratio", 2), col("Calls/step", 1),
         col("Median rank calls/step", 1)},
        parent);
}

void fillStragglers(FigureTableModel& m, const ClusterSummary& s) {
    std::vector<std::vector<QVariant>> rows;
    std::vector<int> tags;
    for (size_t i = 0; i < s.stragglers.size(); ++i) {
        const Straggler& g = s.stragglers[i];
        rows.push_back({qlonglong(g.rank), qlonglong(g.step), g.workMs, g.medianWorkMs, g.stepMs,
                        g.medianMs, g.waitMs, g.othersWaitMs});
        tags.push_back(static_cast<int>(i));
    }
    m.setRows(std::move(rows), std::move(tags));
}

void fillRanks(FigureTableModel& m, const ClusterSummary& s) {
    std::vector<std::vector<QVariant>> rows;
    std::vector<int> tags;
    for (size_t i = 0; i < s.rankCount(); ++i) {
        const RankProfile& r = s.ranks[i];
        const RankFigures& f = s.figures[i];
        rows.push_back({qlonglong(r.input.rank), text(r.input.label), qlonglong(f.steps),
                        f.stepMsMedian, f.stepMsP95, f.computeMs, f.commMs, f.overlapPct, f.waitMs,
                        f.idleMs, f.workMsMedian, qlonglong(f.stragglerSteps),
                        QVariant(r.device ? tr("device") : tr("host")), text(r.input.rankOrigin)});
        tags.push_back(static_cast<int>(i));
    }
    m.setRows(std::move(rows), std::move(tags));
}

void fillOpCompare(FigureTableModel& m, const OpComparison& c) {
    std::vector<std::vector<QVariant>> rows;
    for (const OpCompareRow& r : c.rows)
        rows.push_back({text(r.name), text(r.category), r.selfNs / 1e6, r.medianSelfNs / 1e6,
                        r.deltaNs() / 1e6, r.ratio(), r.calls, r.medianCalls});
    m.setRows(std::move(rows), {});
}
