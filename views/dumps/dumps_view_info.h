#pragma once
// The three views over HDF5 tensor dumps (registered in app/gui/view_list.cpp):
//   "hdf5"     Hdf5InspectorView — any HDF5 file; accepts *.h5 / *.hdf5 / *.he5 and any file
//              that starts with the HDF5 signature, so `trainscope FILE.h5` opens it;
//   "overflow" OverflowView — NaN/Inf tensors of a dump or of a run's findings;
//   "compare"  CompareView — two dumps compared pair by pair.
#include "views/common/view_registry.h"

ViewInfo hdf5InspectorViewInfo();
ViewInfo overflowViewInfo();
ViewInfo compareViewInfo();

/// True for a path the HDF5 inspector opens: an .h5/.hdf5/.he5 name or the HDF5 signature
/// ("\x89HDF\r\n\x1a\n") at offset 0, 512, 1024, ... (a user block may precede it).
bool looksLikeHdf5(const QString& path);
