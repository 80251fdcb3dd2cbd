#include "core/log_store/log_store.h"

namespace ts::log {

Status insertLogs(store::TraceStore& store, const std::vector<LogRecord>& records,
                  std::optional<int64_t> sourceId, std::optional<int64_t> runId) {
    if (records.empty()) return Status::success();
    const bool ownTx = !store.inTransaction();
    if (ownTx)
        if (auto s = store.begin(); !s) return s;
    store::Statement st = store.db().prepare(
        "INSERT INTO logs(source_id, run_id, ts, level, module, file, line, pid, tid, message) "
        "VALUES(?,?,?,?,?,?,?,?,?,?)");
    if (!st.ok()) {
        if (ownTx) (void)store.rollback();
        return Error{"cannot write logs: " + st.error()};
    }
    for (const LogRecord& r : records) {
        if (sourceId)
            st.bind(1, *sourceId);
        else
            st.bindNull(1);
        if (runId)
            st.bind(2, *runId);
        else
            st.bindNull(2);
        if (r.tsNs)
            st.bind(3, *r.tsNs);
        else
            st.bindNull(3);
        st.bind(4, static_cast<int64_t>(r.level));
        if (r.module.empty())
            st.bindNull(5);
        else
            st.bind(5, r.module);
        if (r.file.empty())
            st.bindNull(6);
        else
            st.bind(6, r.file);
        if (r.line)
            st.bind(7, r.line);
        else
            st.bindNull(7);
        if (r.pid)
            st.bind(8, r.pid);
        else
            st.bindNull(8);
        if (r.tid)
            st.bind(9, r.tid);
        else
            st.bindNull(9);
        st.bind(10, r.message);
        if (auto s = st.run(); !s) {
            if (ownTx) (void)store.rollback();
            return Error{"cannot write logs: " + s.error()};
        }
    }
    return ownTx ? store.commit() : Status::success();
}

Result<std::vector<LogRow>> queryLogs(store::TraceStore& store, const LogQuery& q) {
    auto matcher = LogMatcher::create(q.filter);
    if (!matcher) return Error{matcher.error()};
    std::string sql =
        "SELECT id, source_id, run_id, ts, level, module, file, line, pid, tid, message "
        "FROM logs WHERE id > ? AND level >= ?";
    if (q.sourceId) sql += " AND source_id = ?";
    if (q.runId) sql += " AND run_id = ?";
    if (q.filter.fromNs) sql += " AND ts >= ?";
    if (q.filter.toNs) sql += " AND ts <= ?";
    sql += " ORDER BY id";
    store::Statement st = store.db().prepare(sql);
    if (!st.ok()) return Error{"cannot read logs: " + st.error()};
    int i = 1;
    st.bind(i++, q.afterId);
    st.bind(i++, static_cast<int64_t>(q.filter.minLevel));
    if (q.sourceId) st.bind(i++, *q.sourceId);
    if (q.runId) st.bind(i++, *q.runId);
    if (q.filter.fromNs) st.bind(i++, *q.filter.fromNs);
    if (q.filter.toNs) st.bind(i++, *q.filter.toNs);
    std::vector<LogRow> rows;
    while (static_cast<int64_t>(rows.size()) < q.limit && st.step()) {
        LogRow row;
        row.id = st.int64(0);
        if (!st.isNull(1)) row.sourceId = st.int64(1);
        if (!st.isNull(2)) row.runId = st.int64(2);
        LogRecord& r = row.record;
        if (!st.isNull(3)) r.tsNs = st.int64(3);
        const int64_t level = st.int64(4);
        r.level = static_cast<Level>(level < 0 ? 0 : level > 4 ? 4 : level);
        r.module = st.text(5);
        r.file = st.text(6);
        r.line = st.int64(7);
        r.pid = st.int64(8);
        r.tid = st.int64(9);
        r.message = st.text(10);
        if (matcher->matches(r)) rows.push_back(std::move(row));
    }
    if (!st.error().empty()) return Error{"cannot read logs: " + st.error()};
    return rows;
}

Result<std::vector<std::string>> logModules(store::TraceStore& store) {
    store::Statement st = store.db().prepare(
        "SELECT DISTINCT module FROM logs WHERE module IS NOT NULL AND module != '' ORDER BY 1");
    if (!st.ok()) return Error{"cannot read logs: " + st.error()};
    std::vector<std::string> out;
    while (st.step()) out.push_back(st.text(0));
    if (!st.error().empty()) return Error{"cannot read logs: " + st.error()};
    return out;
}

}  // namespace ts::log
