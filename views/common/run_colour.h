#pragma once
// Stable colour of a training run in every curve plot: the run id picks one of ten
// well-separated colours (Tableau 10), so a run keeps its colour across sessions and views.
#include <QColor>

/// Colour of run `runId` (ids 1, 2, ... get distinct colours up to ten runs).
QColor runColour(qint64 runId);
