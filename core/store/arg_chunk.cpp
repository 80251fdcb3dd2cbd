#include "core/store/arg_chunk.h"

#include <sqlite3.h>

#include <algorithm>

#include "core/store/varint.h"

namespace ts::store {
namespace {
constexpr uint8_t kFormat = 1;
bool fail(std::string* why, const char* what) {
    if (why) *why = what;
    return false;
}
}  // namespace

bool decodeArgChunk(std::string_view blob, ArgTexts& out, std::string* why) {
    const auto* p = reinterpret_cast<const uint8_t*>(blob.data());
    const uint8_t* end = p + blob.size();
    if (blob.empty() || p[0] != kFormat) return fail(why, "arg chunk: unknown format");
    VarintReader r(p + 1, end);
    const uint64_t count = r.next();
    if (!r.ok() || count > blob.size()) return fail(why, "arg chunk: damaged header");
    out.offsets.assign(static_cast<size_t>(count) + 1, 0);
    uint64_t total = 0;
    for (size_t i = 0; i < count; ++i) {
        total += r.next();
        if (!r.ok() || total > blob.size()) return fail(why, "arg chunk: damaged lengths");
        out.offsets[i + 1] = static_cast<uint32_t>(total);
    }
    if (static_cast<uint64_t>(end - r.pos()) != total)
        return fail(why, "arg chunk: texts do not fill the BLOB");
    out.blob.assign(reinterpret_cast<const char*>(r.pos()), static_cast<size_t>(total));
    return true;
}

ArgChunkWriter::ArgChunkWriter(SqliteDb& db, int64_t sourceId)
    : m_insert(
          db.prepare("INSERT INTO arg_chunks(source_id, min_id, count, data) VALUES(?, ?, ?, ?)")),
      m_sourceId(sourceId) {}

Status ArgChunkWriter::add(int64_t id, std::string_view json) {
    if (!m_lengths.empty() && id != m_firstId + static_cast<int64_t>(m_lengths.size()))
        if (auto s = flush(); !s) return s;  // ids must be consecutive within a chunk
    if (m_lengths.empty()) m_firstId = id;
    m_lengths.push_back(static_cast<uint32_t>(json.size()));
    m_texts.append(json);
    if (m_lengths.size() >= kArgChunkRows || m_texts.size() >= kArgChunkBytes) return flush();
    return {};
}

Status ArgChunkWriter::flush() {
    if (m_lengths.empty()) return {};
    m_blob.clear();
    m_blob.push_back(static_cast<char>(kFormat));
    putVarint(m_blob, m_lengths.size());
    for (uint32_t n : m_lengths) putVarint(m_blob, n);
    m_blob += m_texts;
    m_insert.bind(1, m_sourceId).bind(2, m_firstId).bind(3, static_cast<int64_t>(m_lengths.size()));
    m_insert.bindBlobNoCopy(4, m_blob.data(), m_blob.size());
    m_lengths.clear();
    m_texts.clear();
    return m_insert.run();
}

Result<std::shared_ptr<const ArgDirectory>> ArgDirectory::load(sqlite3* db) {
    auto dir = std::make_shared<ArgDirectory>();
    sqlite3_stmt* st = nullptr;
    if (sqlite3_prepare_v2(db, "SELECT id, source_id, min_id, count FROM arg_chunks", -1, &st,
                           nullptr) != SQLITE_OK)
        return Error{std::string("arg chunks: ") + sqlite3_errmsg(db)};
    int rc;
    while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
        ArgChunkInfo c{sqlite3_column_int64(st, 0), sqlite3_column_int64(st, 1),
                       sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3)};
        dir->m_rows += c.count;
        dir->m_chunks.push_back(c);
    }
    const std::string err = rc == SQLITE_DONE ? "" : sqlite3_errmsg(db);
    sqlite3_finalize(st);
    if (!err.empty()) return Error{"arg chunks: " + err};
    std::sort(dir->m_chunks.begin(), dir->m_chunks.end(),
              [](const ArgChunkInfo& a, const ArgChunkInfo& b) { return a.minId < b.minId; });
    return std::shared_ptr<const ArgDirectory>(std::move(dir));
}

size_t ArgDirectory::lowerBound(int64_t id) const {
    // The chunk holding id, if any, is the last one starting at or before it.
    auto it = std::upper_bound(m_chunks.begin(), m_chunks.end(), id,
                               [](int64_t v, const ArgChunkInfo& c) { return v < c.minId; });
    if (it != m_chunks.begin() && id - std::prev(it)->minId < std::prev(it)->count) --it;
    return static_cast<size_t>(it - m_chunks.begin());
}

ptrdiff_t ArgDirectory::find(int64_t id) const {
    const size_t i = lowerBound(id);
    if (i < m_chunks.size() && m_chunks[i].minId <= id &&
        id - m_chunks[i].minId < m_chunks[i].count)
        return static_cast<ptrdiff_t>(i);
    return -1;
}

Result<std::shared_ptr<const ArgTexts>> ArgChunkReader::read(const ArgChunkInfo& c) {
    auto texts = std::make_shared<ArgTexts>();
    Status s = m_blobs.read(c.rowid, [&](std::string_view blob) -> Status {
        std::string why;
        const bool ok = decodeArgChunk(blob, *texts, &why);
        if (ok && texts->count() == static_cast<size_t>(c.count)) return {};
        return Error{
            "arg chunk " + std::to_string(c.rowid) + " is damaged" +
            (ok ? ": it holds another number of texts than its summary says" : ": " + why)};
    });
    if (!s) return Error{s.error()};
    return std::shared_ptr<const ArgTexts>(std::move(texts));
}

}  // namespace ts::store
