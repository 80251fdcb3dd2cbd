#include "core/summary/lineage_table.h"

#include <algorithm>
#include <set>

#include "core/store/trace_store.h"

namespace ts::summary {

Result<LineageTable> readLineageTable(store::TraceStore& store, bool lastScalars) {
    LineageTable t;
    std::map<int64_t, size_t> rowOf;
    auto runs = store.db().prepare("SELECT id, coalesce(name, ''), status FROM runs ORDER BY id");
    if (!runs.ok()) return Error{runs.error()};
    std::map<int64_t, LineageRow> all;
    while (runs.step()) {
        LineageRow r;
        r.runId = runs.int64(0);
        r.run = runs.text(1);
        r.status = runs.text(2);
        all.emplace(r.runId, std::move(r));
    }
    std::set<std::string> hk, mk, lk;
    std::set<int64_t> used;
    auto p = store.db().prepare("SELECT run_id, kind, key, value, text FROM run_params");
    if (!p.ok()) return Error{p.error()};
    while (p.step()) {
        auto it = all.find(p.int64(0));
        if (it == all.end()) continue;
        ParamValue v;
        if (!p.isNull(3)) v.number = p.real(3);
        if (!p.isNull(4)) v.text = p.text(4);
        const std::string kind = p.text(1), key = p.text(2);
        if (kind == "metric") {
            it->second.metrics[key] = v;
            mk.insert(key);
        } else {
            it->second.hparams[key] = v;
            hk.insert(key);
        }
        used.insert(it->first);
    }
    if (lastScalars) {
        // The value at each tag's last step (the latest row among equal steps).
        auto s = store.db().prepare(
            "SELECT s.run_id, t.str, s.value FROM scalars s JOIN strings t ON t.id = s.tag_id "
            "JOIN (SELECT run_id, tag_id, max(step) AS step FROM scalars GROUP BY run_id, tag_id) "
            "m "
            "ON m.run_id = s.run_id AND m.tag_id = s.tag_id AND m.step = s.step ORDER BY s.rowid");
        if (!s.ok()) return Error{s.error()};
        while (s.step()) {
            auto it = all.find(s.int64(0));
            if (it == all.end()) continue;
            const std::string key = "last:" + s.text(1);
            it->second.metrics[key] =
                ParamValue{s.isNull(2) ? std::nullopt : std::optional<double>(s.real(2)), {}};
            lk.insert(key);
            used.insert(it->first);
        }
    }
    for (auto& [id, r] : all)
        if (used.count(id)) t.rows.push_back(std::move(r));
    t.hparamKeys.assign(hk.begin(), hk.end());
    t.metricKeys.assign(mk.begin(), mk.end());
    t.metricKeys.insert(t.metricKeys.end(), lk.begin(), lk.end());
    return t;
}

}  // namespace ts::summary
