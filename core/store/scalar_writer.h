#pragma once
// ScalarWriter: the one writer of the `scalars` table (docs/SCHEMA.md) — the engine's run
// recorder, a command run's recorder and the TensorBoard importer add their points through
// it. One prepared INSERT, bound to a run; the caller owns the transaction and decides what
// it keeps (the table holds no NULL: a NaN is the caller's to skip or count).
#include <cstdint>
#include <string_view>

#include "core/common/result.h"
#include "core/store/sqlite_db.h"

namespace ts::store {

class TraceStore;

class ScalarWriter {
public:
    /// Prepares the insert of points of run `runId`; ok() says whether it could.
    ScalarWriter(TraceStore& store, int64_t runId);

    bool ok() const { return m_insert.ok(); }
    const std::string& error() const { return m_insert.error(); }

    /// Adds one point of tag `tagId` (an interned string) at `step`, wall time `wallNs`
    /// (Unix ns); returns the new row's id.
    Result<int64_t> add(int64_t tagId, int64_t step, int64_t wallNs, double value);
    /// The same with the tag's text (interned here).
    Result<int64_t> add(std::string_view tag, int64_t step, int64_t wallNs, double value);

private:
    TraceStore& m_store;
    int64_t m_runId;
    Statement m_insert;
};

}  // namespace ts::store
