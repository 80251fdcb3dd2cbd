#include "core/store/scalar_writer.h"

#include "core/store/trace_store.h"

namespace ts::store {

ScalarWriter::ScalarWriter(TraceStore& store, int64_t runId)
    : m_store(store),
      m_runId(runId),
      m_insert(store.db().prepare(
          "INSERT INTO scalars(run_id, tag_id, step, wall_time, value) VALUES(?,?,?,?,?)")) {}

Result<int64_t> ScalarWriter::add(int64_t tagId, int64_t step, int64_t wallNs, double value) {
    m_insert.bind(1, m_runId).bind(2, tagId).bind(3, step).bind(4, wallNs).bind(5, value);
    if (auto s = m_insert.run(); !s) return Error{s.error()};
    return m_store.db().lastInsertId();
}

Result<int64_t> ScalarWriter::add(std::string_view tag, int64_t step, int64_t wallNs,
                                  double value) {
    return add(m_store.intern(tag), step, wallNs, value);
}

}  // namespace ts::store
