#include "core/store/batched_insert.h"

namespace ts::store {

BatchedInsert::BatchedInsert(SqliteDb& db, std::string_view target, int columns,
                             int rowsPerStatement)
    : m_db(&db), m_columns(columns), m_rowsPerStatement(rowsPerStatement) {
    std::string row = "(";
    for (int c = 0; c < columns; ++c) row += c ? ",?" : "?";
    row += ")";
    std::string single = "INSERT OR FAIL INTO ";
    single.append(target).append(" VALUES");
    std::string multi = single;
    single += row;
    for (int r = 0; r < rowsPerStatement; ++r) {
        if (r) multi += ',';
        multi += row;
    }
    m_single = db.prepare(single);
    m_multi = db.prepare(multi);
    m_values.reserve(static_cast<size_t>(columns * rowsPerStatement));
}

BatchedInsert& BatchedInsert::i64(int64_t v) {
    m_values.push_back({Value::Int, v, 0, 0, 0});
    return *this;
}
BatchedInsert& BatchedInsert::real(double v) {
    m_values.push_back({Value::Real, 0, v, 0, 0});
    return *this;
}
BatchedInsert& BatchedInsert::text(std::string_view v) {
    m_values.push_back({Value::Text, 0, 0, m_text.size(), v.size()});
    m_text.append(v);
    return *this;
}
BatchedInsert& BatchedInsert::idOrNull(int64_t v) {
    if (v == 0)
        m_values.push_back({Value::Null, 0, 0, 0, 0});
    else
        i64(v);
    return *this;
}
BatchedInsert& BatchedInsert::textOrNull(std::string_view v) {
    if (v.empty())
        m_values.push_back({Value::Null, 0, 0, 0, 0});
    else
        text(v);
    return *this;
}

Status BatchedInsert::send(Statement& st, size_t firstRow, size_t rows) {
    int idx = 1;
    for (size_t v = firstRow * m_columns; v < (firstRow + rows) * m_columns; ++v, ++idx) {
        const Value& x = m_values[v];
        switch (x.kind) {
            case Value::Int:
                st.bind(idx, x.i);
                break;
            case Value::Real:
                st.bind(idx, x.r);
                break;
            case Value::Text:
                st.bind(idx, std::string_view(m_text).substr(x.off, x.len));
                break;
            case Value::Null:
                st.bindNull(idx);
                break;
        }
    }
    return st.run();
}

Status BatchedInsert::endRow() {
    const size_t rows = m_values.size() / static_cast<size_t>(m_columns);
    if (static_cast<int>(rows) < m_rowsPerStatement) return {};
    Status s = send(m_multi, 0, rows);
    m_values.clear();
    m_text.clear();
    return s;
}

Status BatchedInsert::flush() {
    Status result;
    const size_t rows = m_values.size() / static_cast<size_t>(m_columns ? m_columns : 1);
    for (size_t r = 0; r < rows; ++r)
        if (Status s = send(m_single, r, 1); !s && result.ok()) result = s;
    m_values.clear();
    m_text.clear();
    return result;
}

}  // namespace ts::store
