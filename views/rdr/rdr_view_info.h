#pragma once
// The "rdr" tab: opens a Running Data Recorder export folder (see core/debug/rdr).
#include "views/common/view_registry.h"

/// accepts(): a folder holding rdr_index.json, rdr/ or rank_*/rdr, or the index file.
ViewInfo rdrViewInfo();
