#pragma once
// The "steps" tab (per-step stacked bars of a profile) for the main window's view list.
#include "views/common/view_registry.h"

ViewInfo stepsViewInfo();
