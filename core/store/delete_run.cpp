#include "core/store/delete_run.h"

#include <string>

#include "core/store/trace_store.h"

namespace ts::store {

Status deleteRun(TraceStore& store, int64_t runId) {
    const std::string rid = std::to_string(runId);
    // A savepoint nests in an open transaction and is one of its own outside it.
    std::string sql =
        "SAVEPOINT delete_run;"
        "DELETE FROM dump_tensors WHERE dump_file_id IN (SELECT id FROM dump_files WHERE run_id=" +
        rid + ");";
    for (const char* table : {"scalars", "summary_values", "run_params", "logs", "dump_files",
                              "overflow_findings", "rdr_records"})
        sql += std::string("DELETE FROM ") + table + " WHERE run_id=" + rid + ";";
    sql += "DELETE FROM runs WHERE id=" + rid + "; RELEASE delete_run;";
    if (auto s = store.db().exec(sql); !s) {
        (void)store.db().exec("ROLLBACK TO delete_run; RELEASE delete_run;");
        return s;
    }
    return {};
}

}  // namespace ts::store
