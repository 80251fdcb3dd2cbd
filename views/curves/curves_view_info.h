#pragma once
// The curves view for the main window: live loss curves of the session's training runs.
#include "views/common/view_registry.h"

/// name "curves", title "Curves"; opens no files; not opened by default (the main window
/// opens it when a session has runs).
ViewInfo curvesViewInfo();
