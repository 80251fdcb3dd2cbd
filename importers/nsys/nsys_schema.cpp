#include "importers/nsys/nsys_schema.h"

#include "core/store/sqlite_db.h"

namespace ts::importers::nsys {

Result<NsysSchema> NsysSchema::read(store::SqliteDb& db) {
    NsysSchema s;
    store::Statement tables =
        db.prepare("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')");
    if (!tables.ok()) return Error{"not an SQLite database: " + tables.error()};
    while (tables.step()) s.m_tables[tables.text(0)];
    if (!tables.error().empty()) return Error{"cannot read the table list: " + tables.error()};
    for (auto& [name, columns] : s.m_tables) {
        store::Statement info = db.prepare("SELECT name FROM pragma_table_info(?)");
        info.bind(1, name);
        while (info.step()) columns.insert(info.text(0));
    }
    if (!s.hasTable("StringIds"))
        return Error{"not an Nsight Systems export: the SQLite file has no StringIds table"};
    for (const char* meta : {"META_DATA_EXPORT", "EXPORT_META_DATA"}) {
        if (!s.hasColumns(meta, {"name", "value"})) continue;
        s.m_metaTable = meta;
        store::Statement st = db.prepare(std::string("SELECT name, value FROM ") + meta);
        while (st.step()) s.m_meta[st.text(0)] = st.text(1);
        break;
    }
    bool events = false;
    for (const auto& [name, cols] : s.m_tables)
        events |=
            name.starts_with("CUPTI_ACTIVITY_KIND_") || name == "NVTX_EVENTS" || name == "OSRT_API";
    if (s.m_metaTable.empty() && !events)
        return Error{
            "not an Nsight Systems export: no EXPORT_META_DATA / META_DATA_EXPORT table and no "
            "CUPTI, NVTX or OS runtime tables"};
    return s;
}

bool NsysSchema::hasTable(std::string_view table) const {
    return m_tables.contains(table);
}

bool NsysSchema::hasColumn(std::string_view table, std::string_view column) const {
    auto it = m_tables.find(table);
    return it != m_tables.end() && it->second.contains(std::string(column));
}

bool NsysSchema::hasColumns(std::string_view table,
                            std::initializer_list<std::string_view> columns) const {
    if (!hasTable(table)) return false;
    for (std::string_view c : columns)
        if (!hasColumn(table, c)) return false;
    return true;
}

std::string NsysSchema::columnOr(std::string_view table, std::string_view column,
                                 std::string_view fallback) const {
    return std::string(hasColumn(table, column) ? column : fallback);
}

std::string NsysSchema::meta(const std::string& name) const {
    auto it = m_meta.find(name);
    return it == m_meta.end() ? std::string() : it->second;
}

bool looksLikeNsysExport(const std::string& path, std::string_view head) {
    if (!head.starts_with(store::kSqliteHeader)) return false;
    auto db = store::SqliteDb::open(path, store::SqliteDb::Mode::ReadOnly);
    if (!db) return false;
    return NsysSchema::read(db.value()).ok();
}

}  // namespace ts::importers::nsys
