#pragma once
// The Cluster view's tables as FigureTableModels: stragglers with their evidence, the ranks
// with their figures, one rank's ops against the median rank. Tags: the summary's rank row
// (stragglers: the index into summary.stragglers).
#include "core/analysis/cluster/cluster_op_compare.h"
#include "core/analysis/cluster/cluster_summary.h"
#include "views/cluster/figure_table_model.h"

FigureTableModel* makeStragglerModel(QObject* parent);
FigureTableModel* makeRankModel(QObject* parent);
FigureTableModel* makeOpCompareModel(QObject* parent);

void fillStragglers(FigureTableModel& m, const ts::analysis::ClusterSummary& s);
void fillRanks(FigureTableModel& m, const ts::analysis::ClusterSummary& s);
void fillOpCompare(FigureTableModel& m, const ts::analysis::OpComparison& c);
