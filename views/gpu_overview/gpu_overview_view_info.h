#pragma once
// The "gpu" tab (the GPU overview) for the main window's view list.
#include "views/common/view_registry.h"

ViewInfo gpuOverviewViewInfo();
