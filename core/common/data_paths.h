#pragma once
// Where TrainScope finds the files it ships beside its programs (the demo session, the
// Python package for command runs): installed under <prefix>/share/trainscope/, or in the
// source and build trees when run from a build folder. No Qt; used by both programs.
#include <string>

namespace ts {

/// The folder of the running executable ("" when /proc/self/exe cannot be read).
std::string executableDir();

/// The first existing path among, in this order:
///   $<envVar> (when envVar is not empty and the variable is set, even to a missing path:
///             then "" is returned, so a wrong override is noticed, not silently bypassed),
///   <executableDir>/../share/trainscope/<relative>   (an installed prefix),
///   <buildTree>/<relative> and <sourceTree>/resources/<relative> (a build folder),
/// or "" when none exists.
std::string findDataPath(const std::string& relative, const char* envVar = nullptr);

/// One of TrainScope's programs ("trainscope-cli"): beside the running one (installed, or a
/// build's app/ folder), else in the build tree, else the bare name (looked up on PATH).
std::string siblingProgram(const std::string& name);

/// The folder holding the Python package of command runs (sitecustomize.py and
/// trainscope_hooks/): findDataPath("python", "TRAINSCOPE_PYTHON_DIR").
std::string pythonHooksDir();

}  // namespace ts
