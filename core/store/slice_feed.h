#pragma once
// The slice-row feed: a table-valued function, ts_slice_rows(?), over a buffer of slice
// rows in memory, so StoreWriter inserts thousands of rows with one
// "INSERT INTO slices(...) SELECT ... FROM ts_slice_rows(?)" step and no bind call per
// value (store_ingest: 2.2 -> 2.5 M slices/s against 64-row VALUES lists; per-row costs
// in bench/sqlite_row_cost).
#include <cstdint>
#include <vector>

#include "core/common/result.h"

struct sqlite3;
struct sqlite3_stmt;

namespace ts::store {

class Statement;

struct SliceRow {
    int64_t trackId = 0;
    int64_t ts = 0;
    int64_t dur = 0;
    int32_t depth = 0;
    int64_t nameId = 0;
    int64_t catId = 0;     // 0 = none
    int64_t argSetId = 0;  // 0 = none
    int32_t flags = 0;
};

struct FeedRow {
    int64_t id = 0;
    SliceRow row;
};

/// Registers ts_slice_rows on a connection (once; later calls are no-ops).
Status registerSliceFeed(sqlite3* db);
/// Binds `rows` to parameter `idx` of a statement that reads ts_slice_rows(?). The vector
/// must live until the statement is stepped.
void bindSliceRows(Statement& st, int idx, const std::vector<FeedRow>* rows);
void bindSliceRows(sqlite3_stmt* st, int idx, const std::vector<FeedRow>* rows);

}  // namespace ts::store
