#pragma once
// The checkpoint view for the main window: parameters of a *.ckpt file.
#include "views/common/view_registry.h"

/// name "checkpoint", title "Checkpoint"; accepts *.ckpt files; not opened by default.
ViewInfo checkpointViewInfo();
