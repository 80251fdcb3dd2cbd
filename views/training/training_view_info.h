#pragma once
// The Training panel for the main window.
#include "views/common/view_registry.h"

/// name "training", title "Training"; not opened by default (View menu / toolbar, --view).
ViewInfo trainingViewInfo();
