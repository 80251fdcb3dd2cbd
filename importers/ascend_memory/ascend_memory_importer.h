#pragma once
// The Ascend memory importer ("ascend_memory"): the memory tables the Ascend PyTorch
// Profiler (torch_npu) and msprof write beside their traces — operator_memory.csv (one row
// per tensor an operator allocated: Name, Size(KB), Allocation Time(us), Release Time(us) or
// Duration(us), the pool's totals at allocation and release, Device Type) and
// memory_record.csv (the pools over time: Component, Timestamp(us), Total Allocated(MB),
// Total Reserved(MB), Device Type); msprof's operator_memory_*.csv / memory_record_*.csv
// (KB, Device_id) too. Rows become what the Memory view reads: per device, the counters
// "Memory In Use (bytes)" / "Memory Pool (bytes)" and an "Allocations" thread of "alloc"
// instants naming the operator (op) and when it was released (free_ts). Times are the
// files' (microseconds since the epoch, as trace_view.json's), so both sit on one time axis.
// Fields may carry Excel's trailing tab; a row that cannot be read is skipped with a key.
#include <string>
#include <string_view>
#include <vector>

#include "importers/registry.h"

namespace ts::importers {

Importer ascendMemoryImporter();

namespace ascend_memory {

/// 90 for a header of operator_memory or memory_record; else 0.
int sniff(const std::string& path, std::string_view head);

}  // namespace ascend_memory
}  // namespace ts::importers
