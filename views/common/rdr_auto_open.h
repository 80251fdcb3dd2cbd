#pragma once
// The entry point the studio's run controller (the Training panel) calls when a run ends:
// after an abnormal end with an RDR export, the crash record opens itself in the RDR view.
//
//   const ts::engine::TrainResult r = job.run();              // on the training thread
//   // back on the UI thread (queued):
//   openRdrAfterRun(ctx, QString::fromStdString(r.status),
//                   QString::fromStdString(job.rdrExportDir()));
#include <QString>

class SessionContext;

/// True when this end of a run shows its crash record: status "failed" (an op threw, an
/// allocation failed, the loss turned NaN/Inf, ...) and an export folder that holds
/// rdr_index.json or a MindSpore RDR export (rank_*/rdr of <MODULE>_<tag>_<time> files).
/// Completed or user-stopped runs (exported in mode 2) do not open.
bool rdrShouldOpenAfterRun(const QString& status, const QString& exportDir);

/// Opens `exportDir` in the RDR view (SessionContext::requestOpen) when
/// rdrShouldOpenAfterRun(); returns whether it asked.
bool openRdrAfterRun(SessionContext* ctx, const QString& status, const QString& exportDir);
