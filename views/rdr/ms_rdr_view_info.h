#pragma once
#include "views/common/view_registry.h"

/// "msrdr": MindSpore's own RDR folders (accepts rank_*/rdr folders of <MODULE>_<tag>_<time>
/// files).
ViewInfo msRdrViewInfo();
