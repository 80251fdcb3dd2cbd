#pragma once
// The "diff" tab (run against run) for the main window's view list.
#include "views/common/view_registry.h"

ViewInfo diffViewInfo();
