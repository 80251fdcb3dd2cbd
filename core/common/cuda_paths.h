#pragma once
// Where the GPU libraries are and whether this machine can use them, for the programs and
// the launcher. Nothing here links or loads CUDA: the libraries are found as files and the
// driver is probed with dlopen, so a build or a machine without them answers plainly.
#include <string>

#include "core/common/result.h"

namespace ts {

/// Whether this build made the CUPTI collector / the engine's CUDA backend.
bool cuptiCollectorBuilt();
bool cudaBackendBuilt();

/// The first existing `file` among $TRAINSCOPE_GPU_LIB_DIR/<file> (when set),
/// <executableDir>/../lib/trainscope/<file>, <executableDir>/../<libdir>/trainscope/<file>
/// and the build tree's lib/trainscope/<file>; "" when none exists.
std::string findGpuLibrary(const std::string& file);

/// libtrainscope_cupti.so, or an error saying why it cannot be used (not built: no CUDA
/// toolkit at build time; built but not found).
Result<std::string> cuptiCollectorPath();
/// libtrainscope_cuda.so, or why not.
Result<std::string> cudaBackendPath();

/// Whether the NVIDIA driver's libcuda.so.1 can be loaded; else "no CUDA driver: ..." with
/// the loader's reason. (A driver does not mean a device: the backend asks the runtime.)
Status cudaDriverAvailable();

/// The CUPTI collector for a run that records CUDA activity: cuptiCollectorPath() when a
/// driver could load it too, else why nothing could be recorded here. The front ends ask it
/// before they offer or start a recording (`record`, `launch --record-cuda`, the Command
/// form); a command run given no collector looks it up with cuptiCollectorPath().
Result<std::string> cuptiForRecording();

}  // namespace ts
