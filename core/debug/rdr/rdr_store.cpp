#include "core/debug/rdr/rdr_store.h"

#include "core/common/clock.h"
#include "core/store/sqlite_db.h"

namespace ts::rdr {

Status insertRdrRow(store::TraceStore& st, const RdrRecordRow& row) {
    auto q = st.db().prepare(
        "INSERT INTO rdr_records(run_id, path, reason, failing_op, epoch, step, created_at) "
        "VALUES(?,?,?,?,?,?,?)");
    if (!q.ok()) return Error{q.error()};
    if (row.runId > 0)
        q.bind(1, row.runId);
    else
        q.bindNull(1);
    q.bind(2, row.path).bind(3, row.reason);
    if (row.failingOp.empty())
        q.bindNull(4);
    else
        q.bind(4, row.failingOp);
    if (row.epoch >= 0)
        q.bind(5, row.epoch);
    else
        q.bindNull(5);
    if (row.step >= 0)
        q.bind(6, row.step);
    else
        q.bindNull(6);
    q.bind(7, row.createdAt > 0 ? row.createdAt : nowNs());
    return q.run();
}

Status insertRdrRecord(store::TraceStore& st, int64_t runId, const RdrExport& e) {
    RdrRecordRow row;
    row.runId = runId;
    row.path = e.folder;
    row.reason = e.reason;
    row.failingOp = e.failingOp;
    row.epoch = e.epoch;
    row.step = e.step;
    row.createdAt = e.timeNs;
    return insertRdrRow(st, row);
}

Result<std::vector<RdrRecordRow>> readRdrRecords(store::TraceStore& st, int64_t runId) {
    auto q = st.db().prepare(
        "SELECT id, coalesce(run_id, 0), path, coalesce(reason, ''), coalesce(failing_op, ''), "
        "coalesce(epoch, -1), coalesce(step, -1), coalesce(created_at, 0) FROM rdr_records "
        "WHERE ?1 = 0 OR run_id = ?1 ORDER BY id");
    q.bind(1, runId);
    std::vector<RdrRecordRow> out;
    while (q.step())
        out.push_back({q.int64(0), q.int64(1), q.text(2), q.text(3), q.text(4), q.int64(5),
                       q.int64(6), q.int64(7)});
    if (!q.error().empty()) return Error{q.error()};
    return out;
}

}  // namespace ts::rdr
