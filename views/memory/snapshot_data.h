#pragma once
// SnapshotData: one memory snapshot as the Memory snapshot view shows it — the snapshot, its
// answers (core/memory/snapshot_report) and memory_viz's stacked picture of each device —
// loaded on a job and shared read-only with the view's widgets.
#include <QString>
#include <memory>
#include <vector>

#include "core/common/job_control.h"
#include "core/memory/snapshot.h"
#include "core/memory/snapshot_report.h"
#include "core/memory/snapshot_timeline.h"

struct SnapshotData {
    QString path;
    ts::memory::Snapshot snapshot;
    ts::memory::SnapshotReport report;
    std::vector<ts::memory::StackedLayout> layouts;  // by report.devices index
    /// The index of allocations that leak, per device (by report.devices index).
    std::vector<std::vector<char>> leaked;
};

struct SnapshotLoad {
    std::shared_ptr<const SnapshotData> data;
    QString error;
};

/// Reads and analyses `path` (run it on a job: it streams the file and reports progress).
SnapshotLoad loadSnapshot(const QString& path, ts::JobControl& job);

/// Frames of a stack for a tooltip or the details pane: memory_viz's filter, one a line,
/// innermost first; "<block was allocated before _record_memory_history was enabled>" for none.
QString stackText(const ts::memory::Snapshot& s, uint32_t stack, int limit = 60);
/// "b7f3a2c000 4.0MiB allocation (stream 0)" and its frames.
QString allocationText(const SnapshotData& d, size_t device, size_t allocation);
/// A byte count as every view prints it ("4 MiB", units_text.h's bytesText).
QString bytesText(int64_t bytes);
