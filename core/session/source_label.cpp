#include "core/session/source_label.h"

#include "core/store/trace_store.h"

namespace ts::session {

Status labelSource(store::TraceStore& store, int64_t sourceId, const std::string& label) {
    store::SqliteDb& db = store.db();
    store::Statement setLabel = db.prepare("UPDATE sources SET label = ? WHERE id = ?");
    setLabel.bind(1, label).bind(2, sourceId);
    if (Status s = setLabel.run(); !s) return s;
    store::Statement q = db.prepare(
        "UPDATE processes SET name = ?1 || ': ' || coalesce(name, 'pid ' || pid) "
        "WHERE source_id = ?2 AND (name IS NULL OR substr(name, 1, length(?1) + 2) != ?1 || ': "
        "')");
    q.bind(1, label).bind(2, sourceId);
    return q.run();
}

}  // namespace ts::session
