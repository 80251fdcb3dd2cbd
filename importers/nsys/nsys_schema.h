#pragma once
// NsysSchema: what one Nsight Systems SQLite export (`nsys export --type sqlite`) holds.
// The export's tables and columns changed across releases: the metadata table is
// EXPORT_META_DATA up to schema 2.x and META_DATA_EXPORT from 3.x on, columns come and go
// (NVTX textId/domainId, kernel mangledName, ...), and a report without CUDA or NVTX data
// has no such tables at all. Readers ask this object what exists and build their SELECT
// lists from it, so a missing table or column is a gap, never an error.
#include <map>
#include <set>
#include <string>
#include <string_view>

#include "core/common/result.h"
#include "core/profiler/gpu/gpu_trace_builder.h"

namespace ts::store {
class SqliteDb;
}

namespace ts::importers::nsys {

class NsysSchema {
public:
    /// Reads the table list and metadata. Error when the file is not an nsys export (no
    /// StringIds table, or neither a metadata table nor any CUPTI/NVTX/OSRT table).
    static Result<NsysSchema> read(store::SqliteDb& db);

    bool hasTable(std::string_view table) const;
    bool hasColumn(std::string_view table, std::string_view column) const;
    /// `column` when the table has it, else `fallback` (an SQL expression, e.g. "NULL").
    std::string columnOr(std::string_view table, std::string_view column,
                         std::string_view fallback = "NULL") const;
    /// Whether `table` exists with every column in `columns`.
    bool hasColumns(std::string_view table, std::initializer_list<std::string_view> columns) const;

    /// "EXPORT_META_DATA", "META_DATA_EXPORT", or "" when the file has neither.
    const std::string& metaTable() const { return m_metaTable; }
    /// A metadata value (e.g. "EXPORT_SCHEMA_VERSION"), "" when absent.
    std::string meta(const std::string& name) const;

private:
    std::map<std::string, std::set<std::string>, std::less<>> m_tables;
    std::map<std::string, std::string> m_meta;
    std::string m_metaTable;
};

/// Cheap check used by the importer registry: `head` starts with the SQLite magic and the
/// file has the tables of an nsys export.
bool looksLikeNsysExport(const std::string& path, std::string_view head);

/// Serialized global ids of nsys: bits 24..47 hold the pid, bits 0..23 the tid; the bits
/// above identify the host/VM. A kernel's globalPid equals its launching thread's
/// globalTid with the tid bits cleared (core/profiler/gpu/gpu_trace_builder.h).
using profiler::gpu::pidOf;
using profiler::gpu::processKey;
using profiler::gpu::tidOf;

}  // namespace ts::importers::nsys
