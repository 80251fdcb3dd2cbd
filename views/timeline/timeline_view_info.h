#pragma once
// The "timeline" tab for the main window's view list.
#include "views/common/view_registry.h"

ViewInfo timelineViewInfo();
