#pragma once
// The "advice" tab (bottleneck findings with evidence) for the main window's view list.
#include "views/common/view_registry.h"

ViewInfo adviceViewInfo();
