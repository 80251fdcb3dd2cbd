#pragma once
// The C interface of libtrainscope_cupti.so, the CUPTI collector.
//
// Injected into any CUDA program with CUDA_INJECTION64_PATH=<this library> (the mechanism
// Nsight Systems and CUPTI's samples use): the CUDA driver calls InitializeInjection() at
// cuInit, which starts the Activity API into $TRAINSCOPE_CUPTI_DIR/cuda-<pid>.tscupti (the
// working folder without it) and flushes at exit. NVTX_INJECTION64_PATH=<this library>
// routes NVTX to CUPTI too (the lookup of InitializeInjectionNvtx2 finds libcupti's through
// this library's dependencies), so NVTX ranges become MARKER records.
//
// Linked by the engine's CUDA backend, which calls start/stop around a profiled run.
// Every function returns 0 on success, else writes why into `error` (`size` bytes).
#include <cstddef>

#define TRAINSCOPE_CUPTI_API extern "C" __attribute__((visibility("default")))

/// Starts collecting into `path` (created or truncated). Fails when already collecting.
TRAINSCOPE_CUPTI_API int trainscope_cupti_start(const char* path, char* error, size_t size);
/// Flushes every buffer, records the end clock pair and the dropped count, closes the file.
TRAINSCOPE_CUPTI_API int trainscope_cupti_stop(char* error, size_t size);
/// Called by the CUDA driver when this library is CUDA_INJECTION64_PATH; returns 1 (success).
TRAINSCOPE_CUPTI_API int InitializeInjection(void);
