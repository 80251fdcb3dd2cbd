#pragma once
// Conv2D (one group, float32, NCHW) through oneDNN (Debian's libdnnl, when the build found it:
// TRAINSCOPE_WITH_DNNL): the forward and both gradients run oneDNN's JIT kernels in the
// blocked layouts they choose (format_tag::any), with the engine's NCHW tensors reordered in
// and out. The host's Conv2D kernels (cpu_conv.cpp) call in here first and run their own
// kernels when it declines, so the ops, their names and everything observers see stay the
// same. Threads: the batch is split into one part per intra-op thread, each part runs the
// primitive on one thread inside the engine's own pool (oneDNN's OpenMP stays at one thread,
// so nothing oversubscribes the cores), and per-part filter gradients are added in part order:
// results are bit-identical from run to run for a given thread count.
#include <string>

#include "core/engine/ops/conv_geometry.h"

namespace ts::engine::dnnlconv {

/// Which kernels run the one-group convolutions: Engine (cpu_conv.cpp's only), Dnnl (oneDNN
/// wherever it has a JIT kernel for the shape), Auto (oneDNN where it measured faster; see
/// docs/ENGINE.md, "CPU kernels and threads"). Default: the TRAINSCOPE_CONV environment
/// variable (engine, dnnl or auto), else Auto. Without oneDNN in the build every mode runs
/// the engine's kernels.
enum class Mode { Engine, Dnnl, Auto };
Mode mode();
/// Sets the mode for later convolutions (tests, benchmarks). Call between runs.
void setMode(Mode m);
/// True when this build has oneDNN.
bool built();
/// oneDNN's implementation for the forward of g ("brgconv:avx512_core", ...), or "" when
/// oneDNN is not built in or has no kernel for it (for benchmarks and diagnosis).
std::string forwardImplementation(const detail::ConvGeom& g, bool bias);

/// The kernels: an undefined Tensor when the mode or the shape leaves the convolution to the
/// engine's kernels (the caller then runs its own).
Tensor conv2d(const Tensor& x, const Tensor& w, const Tensor& bias, const detail::ConvGeom& g);
Tensor conv2dFilter(const Tensor& dy, const Tensor& x, const detail::ConvGeom& g);
Tensor conv2dInput(const Tensor& dy, const Tensor& w, const detail::ConvGeom& g);

}  // namespace ts::engine::dnnlconv
