#pragma once
// The Memory snapshot view's "Answers" page and headline: the peak and who allocated it,
// the leaks with their frames, each out-of-memory with its cause, fragmentation — as HTML
// for a QTextBrowser and a one-line summary.
#include <QString>

#include "views/memory/snapshot_data.h"

QString snapshotAnswersHtml(const SnapshotData& d, size_t device);
QString snapshotHeadline(const SnapshotData& d, size_t device);
