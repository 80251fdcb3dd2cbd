#pragma once
// The "stats" tab (op statistics) for the main window's view list.
#include "views/common/view_registry.h"

ViewInfo statsViewInfo();
