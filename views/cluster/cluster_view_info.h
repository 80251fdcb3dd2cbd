#pragma once
// The "cluster" tab (every rank of a data-parallel job) for the main window's view list. It
// opens folders of rank_<r>.tscope files itself (`trainscope DIR`).
#include "views/common/view_registry.h"

ViewInfo clusterViewInfo();
