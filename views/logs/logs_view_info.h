#pragma once
// The logs view for the main window: live log view with level controls; opens log files.
#include "views/common/view_registry.h"

/// name "logs"; accepts *.log, *.txt and glog/MindSpore log names (*.log.*).
ViewInfo logsViewInfo();
