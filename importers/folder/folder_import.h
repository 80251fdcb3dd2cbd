#pragma once
// A folder of a batch import (batch_import.h: `trainscope-cli import DIR`, File > Open
// Folder): every file the folder holds gets a fate. What is more than one file is found
// first: crash-record folders, the studio's (rdr_index.json) or MindSpore's (a source each,
// also a crash record of the session), MindSpore dump iteration folders (a source and a dump
// file each; the tensors stay in the .npy files, the rank's execution order, graphs and
// metadata belong to them) and HDF5 dumps (registered as dump files). Every other file goes
// to the registry's best importer (registry.h); summary, lineage and event files go into a
// run named by their folder below DIR, so a summary folder of many runs is one session that
// compares them. Hidden files, stray .npy files and files no importer reads are skipped with
// the reason. No file is left out of the report.
#include <string>

#include "core/common/job_control.h"
#include "importers/batch_import.h"

namespace ts::store {
class TraceStore;
}

namespace ts::importers {

/// Imports everything under `dir` into `store`: its sources into `out.reports`, every file's
/// fate into `out.files` (kept in path order), `dir` into `out.folders`. Neither labels
/// processes nor undoes a cancel: the batch does both.
void importFolder(const std::string& dir, store::TraceStore& store, JobControl& control,
                  BatchImport& out);

/// Removes the rows a folder import registered beside a source of its own (the dump files
/// and crash records of `report`); nothing for other reports. Part of undoing a batch.
void discardFolderRows(store::TraceStore& store, const ImportReport& report);

}  // namespace ts::importers
