#include "core/summary/summary_store.h"

#include <rapidjson/document.h>

#include <cmath>

#include "core/store/trace_store.h"

namespace ts::summary {

int64_t SummaryWriter::Counts::keptTotal() const {
    int64_t n = 0;
    for (const auto& [_, v] : kept) n += v;
    return n;
}

int64_t SummaryWriter::Counts::skippedTotal() const {
    int64_t n = 0;
    for (const auto& [_, v] : skipped) n += v;
    return n;
}

SummaryWriter::SummaryWriter(store::TraceStore& store, int64_t runId, int64_t sourceId)
    : m_store(store), m_runId(runId), m_sourceId(sourceId), m_scalars(store, runId) {}

Status SummaryWriter::write(const SummaryEvent& ev) {
    if (ev.items.empty()) return {};
    const int64_t wall = wallTimeNs(ev.wallTime);
    if (!m_insValue.ok())
        m_insValue = m_store.db().prepare(
            "INSERT INTO summary_values(run_id, source_id, tag_id, step, wall_time, kind, data) "
            "VALUES(?,?,?,?,?,?,?)");
    if (!m_scalars.ok()) return Error{m_scalars.error()};
    if (!m_insValue.ok()) return Error{m_insValue.error()};
    store::Statement& value = m_insValue;
    for (const SummaryItem& it : ev.items) {
        if (it.kind == ValueKind::Skipped) {
            ++m_counts.skipped[it.skipReason];
            continue;
        }
        if (it.kind == ValueKind::Scalar && std::isnan(it.scalar)) {
            // SQLite stores NaN as NULL, which scalars.value refuses.
            ++m_counts.skipped["scalar_nan"];
            continue;
        }
        if (it.kind == ValueKind::HParams)
            if (auto s = writeHParams(it.data); !s) return s;
        const int64_t tag = m_store.intern(it.tag);
        Status s;
        if (it.kind == ValueKind::Scalar) {
            if (auto r = m_scalars.add(tag, ev.step, wall, it.scalar); !r) s = Error{r.error()};
        } else {
            value.bind(1, m_runId);
            if (m_sourceId)
                value.bind(2, m_sourceId);
            else
                value.bindNull(2);
            value.bind(3, tag)
                .bind(4, ev.step)
                .bind(5, wall)
                .bind(6, valueKindName(it.kind))
                .bindBlob(7, it.data.data(), it.data.size());
            s = value.run();
        }
        if (!s) return s;
        ++m_counts.kept[valueKindName(it.kind)];
        if (!m_counts.wallMinNs || wall < *m_counts.wallMinNs) m_counts.wallMinNs = wall;
        if (!m_counts.wallMaxNs || wall > *m_counts.wallMaxNs) m_counts.wallMaxNs = wall;
    }
    return {};
}

Status SummaryWriter::writeHParams(const std::string& json) {
    rapidjson::Document d;
    d.Parse(json.c_str(), json.size());
    if (d.HasParseError() || !d.IsObject()) return {};
    if (d.HasMember("session_start") && d["session_start"].IsObject() &&
        d["session_start"].HasMember("hparams") && d["session_start"]["hparams"].IsObject()) {
        for (const auto& m : d["session_start"]["hparams"].GetObject()) {
            const std::string key = m.name.GetString();
            Status s;
            if (m.value.IsNumber())
                s = writeRunParam(m_store, m_runId, m_sourceId, "hparam", key, m.value.GetDouble());
            else if (m.value.IsBool())
                s = writeRunParam(m_store, m_runId, m_sourceId, "hparam", key, std::nullopt,
                                  m.value.GetBool() ? "true" : "false");
            else if (m.value.IsString())
                s = writeRunParam(m_store, m_runId, m_sourceId, "hparam", key, std::nullopt,
                                  m.value.GetString());
            if (!s) return s;
        }
    }
    if (d.HasMember("experiment") && d["experiment"].IsObject() &&
        d["experiment"].HasMember("metrics") && d["experiment"]["metrics"].IsArray())
        for (const auto& m : d["experiment"]["metrics"].GetArray())
            if (m.IsString()) m_metricTags.emplace_back(m.GetString());
    return {};
}

Status SummaryWriter::writeFinalMetrics(const std::vector<std::string>& tags) {
    auto q = m_store.db().prepare(
        "SELECT s.value FROM scalars s JOIN strings t ON t.id = s.tag_id "
        "WHERE s.run_id = ?1 AND t.str = ?2 ORDER BY s.step DESC, s.rowid DESC LIMIT 1");
    if (!q.ok()) return Error{q.error()};
    for (const std::string& tag : tags) {
        q.bind(1, m_runId).bind(2, tag);
        if (q.step() && !q.isNull(0)) {
            const double v = q.real(0);
            q.reset();
            if (auto s = writeRunParam(m_store, m_runId, m_sourceId, "metric", tag, v); !s)
                return s;
        } else {
            q.reset();
        }
    }
    return {};
}

Status writeRunParam(store::TraceStore& store, int64_t runId, int64_t sourceId,
                     const std::string& kind, const std::string& key, std::optional<double> value,
                     const std::string& text) {
    auto q = store.db().prepare(
        "INSERT OR REPLACE INTO run_params(run_id, source_id, kind, key, value, text) "
        "VALUES(?,?,?,?,?,?)");
    if (!q.ok()) return Error{q.error()};
    q.bind(1, runId);
    if (sourceId)
        q.bind(2, sourceId);
    else
        q.bindNull(2);
    q.bind(3, kind).bind(4, key);
    if (value && std::isfinite(*value))
        q.bind(5, *value);
    else
        q.bindNull(5);
    if (text.empty())
        q.bindNull(6);
    else
        q.bind(6, text);
    return q.run();
}

Result<std::vector<std::string>> summaryTags(store::TraceStore& store, int64_t runId,
                                             ValueKind kind) {
    auto q = store.db().prepare(
        "SELECT DISTINCT t.str FROM summary_values v JOIN strings t ON t.id = v.tag_id "
        "WHERE v.run_id = ?1 AND v.kind = ?2 ORDER BY t.str");
    if (!q.ok()) return Error{q.error()};
    q.bind(1, runId).bind(2, valueKindName(kind));
    std::vector<std::string> out;
    while (q.step()) out.push_back(q.text(0));
    if (!q.error().empty()) return Error{q.error()};
    return out;
}

Result<std::vector<StoredValue>> summaryValues(store::TraceStore& store, int64_t runId,
                                               ValueKind kind, const std::string& tag) {
    auto q = store.db().prepare(
        "SELECT v.id, v.step, v.wall_time, v.data FROM summary_values v "
        "JOIN strings t ON t.id = v.tag_id WHERE v.run_id = ?1 AND v.kind = ?2 AND t.str = ?3 "
        "ORDER BY v.step, v.id");
    if (!q.ok()) return Error{q.error()};
    q.bind(1, runId).bind(2, valueKindName(kind)).bind(3, tag);
    std::vector<StoredValue> out;
    while (q.step()) {
        StoredValue v;
        v.id = q.int64(0);
        v.step = q.int64(1);
        v.wallTimeNs = q.int64(2);
        v.data = std::string(q.blob(3));
        out.push_back(std::move(v));
    }
    if (!q.error().empty()) return Error{q.error()};
    return out;
}

Result<std::vector<std::pair<int64_t, std::string>>> runsWithSummaries(store::TraceStore& store,
                                                                       ValueKind kind) {
    auto q = store.db().prepare(
        "SELECT r.id, coalesce(r.name, '') FROM runs r WHERE EXISTS "
        "(SELECT 1 FROM summary_values v WHERE v.run_id = r.id AND v.kind = ?1) ORDER BY r.id");
    if (!q.ok()) return Error{q.error()};
    q.bind(1, valueKindName(kind));
    std::vector<std::pair<int64_t, std::string>> out;
    while (q.step()) out.emplace_back(q.int64(0), q.text(1));
    if (!q.error().empty()) return Error{q.error()};
    return out;
}

}  // namespace ts::summary
