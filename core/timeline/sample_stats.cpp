#include "core/timeline/sample_stats.h"

#include <algorithm>
#include <cstdio>
#include <unordered_map>
#include <unordered_set>

#include "core/common/csv.h"
#include "core/common/pair_hash.h"
#include "core/store/trace_store.h"

namespace ts::timeline {
namespace {

struct Frame {
    int64_t parent = 0, nameId = 0, catId = 0;
};

}  // namespace

Result<SampleStats> computeSampleStats(store::TraceStore& store, const SampleStatsOptions& options,
                                       JobControl* job) {
    store::SqliteDb& db = store.db();
    const std::string source = options.sourceId ? std::to_string(*options.sourceId) : "";
    // the frames the samples may reach, by id
    std::unordered_map<int64_t, Frame> frames;
    {
        store::Statement q = db.prepare(
            "SELECT id, coalesce(parent_id, 0), name_id, coalesce(cat_id, 0) FROM stack_frames" +
            (source.empty() ? std::string() : " WHERE source_id = " + source));
        while (q.step()) frames[q.int64(0)] = {q.int64(1), q.int64(2), q.int64(3)};
        if (!q.error().empty()) return Error{q.error()};
    }
    // samples per leaf frame
    std::string sql =
        "SELECT coalesce(i.frame_id, 0), count(*) FROM instants i JOIN tracks t ON "
        "t.id = i.track_id WHERE i.scope = 's'";
    if (!source.empty()) sql += " AND t.source_id = " + source;
    if (options.range)
        sql += " AND i.ts >= " + std::to_string(options.range->first) + " AND i.ts < " +
               std::to_string(options.range->second);
    sql += " GROUP BY 1";
    store::Statement q = db.prepare(sql);
    SampleStats out;
    using Key = std::pair<int64_t, int64_t>;  // (name, category)
    std::unordered_map<Key, SampleStatsRow, Int64PairHash> rows;
    std::unordered_set<Key, Int64PairHash> seen;
    while (q.step()) {
        if (job && job->cancelled()) return Error{"cancelled"};
        const int64_t leaf = q.int64(0), n = q.int64(1);
        out.samples += n;
        auto it = frames.find(leaf);
        if (it == frames.end()) {
            out.withoutStack += n;
            continue;
        }
        rows[{it->second.nameId, it->second.catId}].self += n;
        seen.clear();
        // leaf to root; the frames form a tree written parent first, so ids fall, but a
        // damaged file could loop: stop after as many steps as there are frames
        size_t steps = 0;
        for (int64_t f = leaf; f != 0 && steps <= frames.size(); ++steps) {
            auto fr = frames.find(f);
            if (fr == frames.end()) break;
            const Key key{fr->second.nameId, fr->second.catId};
            if (seen.insert(key).second) rows[key].total += n;
            f = fr->second.parent;
        }
    }
    if (!q.error().empty()) return Error{q.error()};
    for (auto& [key, row] : rows) {
        row.name = store.string(key.first);
        row.category = key.second ? store.string(key.second) : std::string();
        row.selfPercent =
            out.samples ? 100.0 * static_cast<double>(row.self) / static_cast<double>(out.samples)
                        : 0;
        row.totalPercent =
            out.samples ? 100.0 * static_cast<double>(row.total) / static_cast<double>(out.samples)
                        : 0;
        out.rows.push_back(std::move(row));
    }
    std::sort(out.rows.begin(), out.rows.end(), [](const auto& a, const auto& b) {
        if (a.self != b.self) return a.self > b.self;
        if (a.total != b.total) return a.total > b.total;
        return a.name < b.name;
    });
    return out;
}

Result<SampleStats> computeSampleStats(const std::string& path, const SampleStatsOptions& options,
                                       JobControl* job) {
    auto store = store::TraceStore::open(path, store::TraceStore::Mode::ReadOnly);
    if (!store) return Error{store.error()};
    return computeSampleStats(*store.value(), options, job);
}

std::string sampleStatsCsv(const SampleStats& stats) {
    std::string out = "name,category,self,self_percent,total,total_percent\n";
    char num[64];
    for (const auto& r : stats.rows) {
        out += csvField(r.name) + "," + csvField(r.category) + "," + std::to_string(r.self) + ",";
        std::snprintf(num, sizeof num, "%.4f", r.selfPercent);
        out += std::string(num) + "," + std::to_string(r.total) + ",";
        std::snprintf(num, sizeof num, "%.4f", r.totalPercent);
        out += std::string(num) + "\n";
    }
    return out;
}

}  // namespace ts::timeline
