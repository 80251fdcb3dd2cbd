#include "importers/common/source_labels.h"

#include <filesystem>

#include "core/session/source_label.h"

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
        if (auto s = session::labelSource(store, src.id, label); !s) {
            (void)store.rollback();
            return s;
        }
    }
    return store.commit();
}

}  // namespace ts::importers
