#pragma once
// The "memory" tab (memory in use, peak, top allocations) for the main window's view list.
#include "views/common/view_registry.h"

ViewInfo memoryViewInfo();
