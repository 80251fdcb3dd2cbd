#pragma once
// The views of summary values and run lineage (views/summary).
#include "views/common/view_registry.h"

ViewInfo histogramsViewInfo();  // "histograms"
ViewInfo imagesViewInfo();      // "images"
ViewInfo tensorsViewInfo();     // "tensors"
ViewInfo landscapeViewInfo();   // "landscape"
ViewInfo graphViewInfo();       // "graph"
ViewInfo lineageViewInfo();     // "lineage"
