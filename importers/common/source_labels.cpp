#include "importers/common/source_labels.h"

#include <filesystem>

namespace ts::importers {

std::string sourceShortName(const std::string& path) {
    std::string name = std::filesystem::path(path).filename().string();
    for (const char* suffix : {".gz", ".zip", ".json", ".trace", ".pt"})
        if (name.size() > std::string_view(suffix).size() && name.ends_with(suffix))
            name.resize(name.size() - std::string_view(suffix).size());
    return name;
}

Status labelProcessesBySource(store::TraceStore& store) {
    store::SqliteDb& db = store.db();
    auto n = db.queryInt(
        "SELECT count(DISTINCT source_id) FROM processes WHERE source_id IN "
        "(SELECT id FROM sources WHERE status IN ('complete','partial'))");
    if (!n) return Error{n.error()};
    if (n.value() < 2) return {};
    auto sources = store.sources();
    if (!sources) return Error{sources.error()};
    if (auto s = store.begin(); !s) return s;
    for (const auto& src : sources.value()) {
        const std::string label = src.label.empty() ? sourceShortName(src.path) : src.label;
        store::Statement setLabel = db.prepare("UPDATE sources SET label = ? WHERE id = ?");
        setLabel.bind(1, label).bind(2, src.id);
        (void)setLabel.run();
        store::Statement q = db.prepare(
            "UPDATE processes SET name = ?1 || ': ' || coalesce(name, 'pid ' || pid) "
            "WHERE source_id = ?2 AND (name IS NULL OR substr(name, 1, length(?1) + 2) != ?1 || ': "
            "')");
        q.bind(1, label).bind(2, src.id);
        if (auto s = q.run(); !s) {
            (void)store.rollback();
            return Error{q.error()};
        }
    }
    return store.commit();
}

}  // namespace ts::importers
