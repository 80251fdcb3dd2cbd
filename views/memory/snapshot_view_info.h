#pragma once
// The "memory-snapshot" tab (PyTorch CUDA memory snapshots) for the main window's view list.
#include "views/common/view_registry.h"

ViewInfo memorySnapshotViewInfo();
/// True for a file the Memory snapshot view opens: *.pickle / *.pkl (also gzipped).
bool looksLikeMemorySnapshot(const QString& path);
