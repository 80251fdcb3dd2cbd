#pragma once
// BatchedInsert: rows of one INSERT sent many at a time through a multi-row statement
// ("INSERT ... VALUES (...),(...),..."), which costs SQLite far less per row than one
// statement run per row. Values are int64, double, text or NULL; a partial batch goes out
// row by row on flush(). Rows are buffered: they are not in the table before the batch is
// sent (StoreWriter flushes before it commits). Statements are INSERT OR FAIL: with the
// default ABORT, SQLite keeps a statement journal (a copy of every page a multi-row
// statement touches); FAIL needs none, and a failed insert fails the import anyway.
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/common/result.h"
#include "core/store/sqlite_db.h"

namespace ts::store {

class BatchedInsert {
public:
    BatchedInsert() = default;
    /// `target` is the table and its columns, e.g. "args(id, source_id, json)".
    BatchedInsert(SqliteDb& db, std::string_view target, int columns, int rowsPerStatement = 32);

    BatchedInsert& i64(int64_t v);
    BatchedInsert& real(double v);
    BatchedInsert& text(std::string_view v);
    /// NULL when v == 0 (ids that are optional).
    BatchedInsert& idOrNull(int64_t v);
    BatchedInsert& textOrNull(std::string_view v);
    /// Ends a row (exactly `columns` values given); sends a full batch.
    Status endRow();
    /// Sends the rows still buffered.
    Status flush();

private:
    struct Value {
        enum Kind : uint8_t { Int, Real, Text, Null } kind;
        int64_t i;
        double r;
        size_t off, len;
    };
    Status send(Statement& st, size_t firstRow, size_t rows);

    SqliteDb* m_db = nullptr;
    Statement m_multi, m_single;
    int m_columns = 0, m_rowsPerStatement = 0;
    std::vector<Value> m_values;
    std::string m_text;  // text values of the buffered rows
};

}  // namespace ts::store
