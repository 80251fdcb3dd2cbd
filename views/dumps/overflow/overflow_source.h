#pragma once
// What the Overflow view lists, loaded off the UI thread: the NaN/Inf tensors of a dump file
// (scanned in execution order) or the findings a training run recorded in the session
// (with the overflow dump file of each finding's step, when one was written).
#include <QString>
#include <memory>
#include <vector>

#include "core/common/job_control.h"
#include "core/hdf5/h5_file.h"

struct OverflowRow {
    int64_t step = -1;  // -1: from a dump file
    QString path;       // dataset path in `file` ("" when the tensor was not dumped)
    QString op, tensor, scope, origin;
    int64_t seqid = -1;
    uint64_t nan = 0, posinf = 0, neginf = 0;
    QString file;  // HDF5 file holding the tensor ("" when none)
};

struct OverflowListing {
    std::vector<OverflowRow> rows;
    QString order;  // "sequence (global_seq attribute)", ... or "order found" for runs
    QString error;
    QStringList problems;  // datasets that could not be read
    QString runStatus;     // for runs: running | completed | ...
};

/// Scans a dump file (every float dataset) for NaN/Inf.
OverflowListing scanDumpFile(const QString& path, ts::JobControl& jc);
/// Findings of run `runId` in the session at `sessionPath`.
OverflowListing loadRunFindings(const QString& sessionPath, int64_t runId);

struct RunChoice {
    int64_t id = 0;
    QString name, status;
    int64_t findings = 0;
};
/// Runs of the session that have overflow findings (newest first).
std::vector<RunChoice> runsWithFindings(const QString& sessionPath, QString* error);
