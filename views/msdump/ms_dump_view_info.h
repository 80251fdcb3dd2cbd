#pragma once
#include "views/common/view_registry.h"

/// "msdump": MindSpore dump folders (accepts a dump root, rank, net, graph or iteration folder).
ViewInfo msDumpViewInfo();
