#include "core/analysis/cluster/cluster_input.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <set>

#include "core/analysis/gpu/ascend_tables.h"
#include "core/analysis/profile/profile_data.h"
#include "core/common/json_read.h"
#include "core/store/trace_store.h"

namespace ts::analysis {
namespace {

namespace fs = std::filesystem;
using store::Statement;

struct SourceRank {
    int64_t id = 0;
    std::string label;
    std::optional<int64_t> rank, worldSize;
    std::string origin;
};

/// "rank" and "world_size" of a run's config JSON (the engine's data-parallel runs).
std::pair<std::optional<int64_t>, std::optional<int64_t>> rankOfRunConfig(const std::string& json) {
    rapidjson::Document d;
    if (!ts::json::parse(d, json) || !d.IsObject()) return {};
    std::optional<int64_t> rank, world;
    if (auto it = d.FindMember("rank"); it != d.MemberEnd() && it->value.IsInt64())
        rank = it->value.GetInt64();
    if (auto it = d.FindMember("world_size"); it != d.MemberEnd() && it->value.IsInt64())
        world = it->value.GetInt64();
    return {rank, world};
}

Result<std::vector<SourceRank>> sourceRanks(store::TraceStore& store) {
    Statement q = store.db().prepare(
        "SELECT s.id, s.path, COALESCE(s.label, ''), COALESCE(s.stats, ''),"
        " COALESCE(r.config, r2.config, '') FROM sources s"
        " LEFT JOIN runs r ON r.id = s.run_id"
        " LEFT JOIN runs r2 ON r2.profile_source_id = s.id"
        " WHERE s.status <> 'failed' AND EXISTS (SELECT 1 FROM tracks t JOIN slice_chunks c"
        " ON c.track_id = t.id WHERE t.source_id = s.id) GROUP BY s.id ORDER BY s.id");
    if (!q.ok()) return Error{q.error()};
    std::vector<SourceRank> out;
    while (q.step()) {
        SourceRank s;
        s.id = q.int64(0);
        const std::string path = q.text(1);
        s.label = q.text(2);
        if (s.label.empty()) s.label = fs::path(path).filename().string();
        if (q.textView(3).find("distributedInfo") != std::string_view::npos) {
            if (auto info = readDistributedInfo(path)) {
                s.rank = info->rank;
                s.worldSize = info->worldSize;
                s.origin = "distributedInfo";
            }
        }
        if (!s.rank) {
            // Every engine run's config holds rank and world_size; a run of one process
            // (world_size 1) says nothing about the rank it plays in a folder of runs.
            auto [rank, world] = rankOfRunConfig(q.text(4));
            if (rank && world.value_or(1) > 1) {
                s.rank = rank;
                s.worldSize = world;
                s.origin = "run config";
            }
        }
        if (!s.rank) {
            if (auto r = rankFromFileName(path)) {
                s.rank = r;
                s.origin = "file name";
            }
        }
        out.push_back(std::move(s));
    }
    if (!q.error().empty()) return Error{q.error()};
    return out;
}

}  // namespace

Result<std::vector<RankInput>> ranksOfSession(store::TraceStore& store,
                                              const std::string& sessionPath,
                                              std::vector<std::string>* warnings) {
    // msprof-analyze's cluster_step_trace_time.csv: one rank per "rank" row's index.
    if (auto tables = gpu::loadAscendTables(store); tables) {
        if (const gpu::AscendTable* t = tables.value().table("cluster_step_trace_time")) {
            std::set<int64_t> ranks;
            for (const gpu::AscendStep& a : gpu::ascendSteps(tables.value(), true))
                if (a.rank >= 0) ranks.insert(a.rank);
            if (!ranks.empty()) {
                std::vector<RankInput> out;
                for (int64_t r : ranks) {
                    RankInput in;
                    in.rank = r;
                    in.rankOrigin = "cluster_step_trace_time.csv";
                    in.sessionPath = sessionPath;
                    in.sourceIds = {t->sourceId};
                    in.label = "rank " + std::to_string(r) + " (msprof-analyze)";
                    out.push_back(std::move(in));
                }
                return out;
            }
        }
    }
    auto sources = sourceRanks(store);
    if (!sources) return Error{sources.error()};
    std::map<int64_t, RankInput> byRank;
    std::vector<RankInput> unknown;
    for (const SourceRank& s : sources.value()) {
        if (!s.rank) {
            RankInput in;
            in.sessionPath = sessionPath;
            in.sourceIds = {s.id};
            in.label = s.label;
            unknown.push_back(std::move(in));
            continue;
        }
        RankInput& in = byRank[*s.rank];
        if (in.sourceIds.empty()) {
            in.rank = *s.rank;
            in.rankOrigin = s.origin;
            in.worldSize = s.worldSize;
            in.sessionPath = sessionPath;
            in.label = s.label;
        } else {
            in.label += ", " + s.label;
        }
        in.sourceIds.push_back(s.id);
    }
    std::vector<RankInput> out;
    if (byRank.size() >= 2) {
        for (auto& [rank, in] : byRank) out.push_back(std::move(in));
        for (auto& in : unknown) {
            if (warnings)
                warnings->push_back(in.label +
                                    ": no rank in the trace or its name; ranked by order");
            out.push_back(std::move(in));
        }
        return out;
    }
    // One rank: the session. Named after the session file when that names the rank
    // (rank_3.tscope), else after its traces.
    const std::string sessionName = fs::path(sessionPath).filename().string();
    const bool namedByRank = sessionName.starts_with("rank") && sessionName.ends_with(".tscope") &&
                             rankFromFileName(sessionName).has_value();
    RankInput one;
    one.sessionPath = sessionPath;
    if (byRank.size() == 1) {
        one = std::move(byRank.begin()->second);
        if (!unknown.empty() && warnings)
            warnings->push_back(one.label + ": " + std::to_string(unknown.size()) +
                                " source(s) without a rank left out");
    } else {
        // The newest profile, or every source with slices when none has steps (msprof: its
        // device, HCCL and step trace timelines are one rank together).
        std::optional<int64_t> profile;
        if (auto list = listProfileSources(store); list)
            for (const ProfileSourceInfo& p : list.value())
                if (!p.deviceOnly) {
                    profile = p.id;
                    break;
                }
        for (const RankInput& u : unknown) {
            if (profile && u.sourceIds.front() != *profile) continue;
            one.sourceIds.push_back(u.sourceIds.front());
            one.label += (one.label.empty() ? "" : ", ") + u.label;
        }
        if (one.sourceIds.empty())
            return Error{sessionPath + ": no trace or profile in this session"};
        if (unknown.size() > one.sourceIds.size() && warnings)
            warnings->push_back(
                sessionPath + ": " + std::to_string(unknown.size() - one.sourceIds.size()) +
                " other source(s) carry no rank (no distributedInfo, no rank in the file name): "
                "the session is one rank, its newest profile");
        if (auto r = rankFromFileName(sessionPath)) {
            one.rank = *r;
            one.rankOrigin = "file name";
        }
    }
    if (namedByRank || one.label.empty()) one.label = sessionName;
    if (auto fileRank = rankFromFileName(sessionPath);
        fileRank && one.rank >= 0 && *fileRank != one.rank && warnings &&
        fs::path(sessionPath).extension() == ".tscope")
        warnings->push_back(sessionPath + ": its name says rank " + std::to_string(*fileRank) +
                            ", its " + one.rankOrigin + " says " + std::to_string(one.rank) +
                            "; the latter is used");
    out.push_back(std::move(one));
    return out;
}

std::vector<std::string> rankSessionFiles(const std::string& dir) {
    std::vector<std::pair<int64_t, std::string>> found;
    std::error_code ec;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
        const std::string name = e.path().filename().string();
        if (!e.is_regular_file() || !name.starts_with("rank_") || !name.ends_with(".tscope"))
            continue;
        if (auto r = rankFromFileName(name)) found.emplace_back(*r, e.path().string());
    }
    std::sort(found.begin(), found.end());
    std::vector<std::string> out;
    for (auto& [r, p] : found) out.push_back(std::move(p));
    return out;
}

Result<std::vector<RankInput>> ranksOfPaths(const std::vector<std::string>& paths,
                                            std::vector<std::string>* warnings) {
    std::vector<RankInput> out;
    for (const std::string& p : paths) {
        std::vector<std::string> sessions;
        if (fs::is_directory(p)) {
            sessions = rankSessionFiles(p);
            if (sessions.empty()) return Error{p + ": a folder without rank_<r>.tscope files"};
        } else {
            sessions = {p};
        }
        for (const std::string& s : sessions) {
            auto store = store::TraceStore::open(s, store::TraceStore::Mode::ReadOnly);
            if (!store) return Error{s + ": " + store.error()};
            auto ranks = ranksOfSession(*store.value(), s, warnings);
            if (!ranks) return Error{ranks.error()};
            for (auto& r : ranks.value()) out.push_back(std::move(r));
        }
    }
    return out;
}

void assignMissingRanks(std::vector<RankInput>& ranks) {
    std::set<int64_t> taken;
    for (const RankInput& r : ranks)
        if (r.rank >= 0) taken.insert(r.rank);
    int64_t next = 0;
    for (RankInput& r : ranks) {
        if (r.rank >= 0) continue;
        while (taken.count(next)) ++next;
        r.rank = next;
        r.rankOrigin = "order";
        taken.insert(next);
    }
}

}  // namespace ts::analysis
