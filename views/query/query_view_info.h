#pragma once
// The SQL view for the main window: read-only queries over the session, with Cancel.
#include "views/common/view_registry.h"

/// name "query", title "SQL"; not opened by default.
ViewInfo queryViewInfo();
