#include "core/debug/overflow_store.h"

#include "core/common/clock.h"
#include "core/store/sqlite_db.h"

namespace ts::debug {

std::string OverflowRecord::datasetPath() const {
    if (origin != "op" || seqid < 0) return {};
    std::string p = op;
    p += '/';
    p += std::to_string(seqid);
    p += '/';
    p += tensor;
    return p;
}

Status insertOverflowFindings(store::TraceStore& st, const std::vector<OverflowRecord>& rows) {
    if (rows.empty()) return {};
    const bool ownTx = !st.inTransaction();
    if (ownTx)
        if (auto s = st.begin(); !s) return s;
    auto stmt = st.db().prepare(
        "INSERT INTO overflow_findings(run_id, step, op, scope, seqid, tensor, nan, posinf, "
        "neginf, origin, ts) VALUES(?,?,?,?,?,?,?,?,?,?,?)");
    Status result;
    if (!stmt.ok()) result = Error{stmt.error()};
    for (size_t i = 0; result && i < rows.size(); ++i) {
        const OverflowRecord& r = rows[i];
        stmt.bind(1, r.runId).bind(2, r.step).bind(3, r.op).bind(4, r.scope);
        if (r.seqid >= 0)
            stmt.bind(5, r.seqid);
        else
            stmt.bindNull(5);
        stmt.bind(6, r.tensor)
            .bind(7, static_cast<int64_t>(r.nan))
            .bind(8, static_cast<int64_t>(r.posinf))
            .bind(9, static_cast<int64_t>(r.neginf))
            .bind(10, r.origin)
            .bind(11, r.ts);
        result = stmt.run();
    }
    if (!ownTx) return result;
    if (!result) {
        (void)st.rollback();
        return result;
    }
    return st.commit();
}

Status insertDumpFile(store::TraceStore& st, int64_t runId, const std::string& path, int64_t step) {
    auto stmt =
        st.db().prepare("INSERT INTO dump_files(run_id, path, step, created_at) VALUES(?,?,?,?)");
    if (!stmt.ok()) return Error{stmt.error()};
    stmt.bind(1, runId).bind(2, path);
    if (step >= 0)
        stmt.bind(3, step);
    else
        stmt.bindNull(3);
    stmt.bind(4, nowNs());
    return stmt.run();
}

Result<std::vector<OverflowRecord>> readOverflowFindings(store::TraceStore& st, int64_t runId,
                                                         int64_t limit) {
    auto stmt = st.db().prepare(
        "SELECT id, run_id, step, op, scope, seqid, tensor, nan, posinf, neginf, origin, ts "
        "FROM overflow_findings WHERE (?1 = 0 OR run_id = ?1) ORDER BY id LIMIT ?2");
    if (!stmt.ok()) return Error{stmt.error()};
    stmt.bind(1, runId).bind(2, limit);
    std::vector<OverflowRecord> out;
    while (stmt.step()) {
        OverflowRecord r;
        r.id = stmt.int64(0);
        r.runId = stmt.isNull(1) ? 0 : stmt.int64(1);
        r.step = stmt.isNull(2) ? 0 : stmt.int64(2);
        r.op = stmt.text(3);
        r.scope = stmt.text(4);
        r.seqid = stmt.isNull(5) ? -1 : stmt.int64(5);
        r.tensor = stmt.text(6);
        r.nan = static_cast<uint64_t>(stmt.int64(7));
        r.posinf = static_cast<uint64_t>(stmt.int64(8));
        r.neginf = static_cast<uint64_t>(stmt.int64(9));
        r.origin = stmt.text(10);
        r.ts = stmt.isNull(11) ? 0 : stmt.int64(11);
        out.push_back(std::move(r));
    }
    if (!stmt.error().empty()) return Error{stmt.error()};
    return out;
}

Result<std::vector<DumpFileRecord>> readDumpFiles(store::TraceStore& st, int64_t runId) {
    auto stmt = st.db().prepare(
        "SELECT id, run_id, path, step, created_at FROM dump_files "
        "WHERE (?1 = 0 OR run_id = ?1) ORDER BY id");
    if (!stmt.ok()) return Error{stmt.error()};
    stmt.bind(1, runId);
    std::vector<DumpFileRecord> out;
    while (stmt.step()) {
        DumpFileRecord r;
        r.id = stmt.int64(0);
        r.runId = stmt.isNull(1) ? 0 : stmt.int64(1);
        r.path = stmt.text(2);
        r.step = stmt.isNull(3) ? -1 : stmt.int64(3);
        r.createdAt = stmt.isNull(4) ? 0 : stmt.int64(4);
        out.push_back(std::move(r));
    }
    if (!stmt.error().empty()) return Error{stmt.error()};
    return out;
}

}  // namespace ts::debug
