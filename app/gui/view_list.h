#pragma once
// Every view the studio offers, in tab order.
#include <vector>

#include "views/common/view_registry.h"

const std::vector<ViewInfo>& allViews();
