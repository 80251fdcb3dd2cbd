#pragma once
// The Gloo process group (built when CMake finds Gloo: Debian's libgloo-dev).
#include <memory>

#include "core/common/result.h"
#include "core/dist/process_group.h"

namespace ts::dist {

Result<std::unique_ptr<ProcessGroup>> connectGlooGroup(const DistConfig& config);

}  // namespace ts::dist
