#pragma once
// The "kernels" tab (the Kernel view) for the main window's view list.
#include "views/common/view_registry.h"

ViewInfo kernelViewInfo();
