// Ranks from file names and from a trace's distributedInfo (cluster_input.h).

#include <zlib.h>
#include "core/common/text.h"

#include <cctype>
#include <charconv>
#include <filesystem>
#include <string>

#include "core/analysis/cluster/cluster_input.h"
#include "core/common/json_read.h"

namespace ts::analysis {
namespace {

/// Digits at `pos` of `s` (after skipping one '-', '_' or ' ' when `sep`), as a number.
std::optional<int64_t> digitsAt(std::string_view s, size_t pos, bool sep) {
    if (sep && pos < s.size() && (s[pos] == '-' || s[pos] == '_' || s[pos] == ' ')) ++pos;
    size_t end = pos;
    while (end < s.size() && std::isdigit(static_cast<unsigned char>(s[end]))) ++end;
    if (end == pos || end - pos > 9) return std::nullopt;
    int64_t n = 0;
    std::from_chars(s.data() + pos, s.data() + end, n);
    return n;
}

/// `word` followed by a number, where `word` starts the name or follows a non-letter.
std::optional<int64_t> numberAfterWord(std::string_view name, std::string_view word, bool sep) {
    for (size_t at = name.find(word); at != std::string_view::npos; at = name.find(word, at + 1)) {
        if (at > 0 && std::isalpha(static_cast<unsigned char>(name[at - 1]))) continue;
        if (auto n = digitsAt(name, at + word.size(), sep)) return n;
    }
    return std::nullopt;
}

}  // namespace

std::optional<int64_t> rankFromFileName(std::string_view path) {
    namespace fs = std::filesystem;
    const fs::path p{std::string(path)};
    const std::string name = asciiLower(p.filename().string());
    if (auto n = numberAfterWord(name, "rank", true)) return n;
    // msprof / MindSpore: <kind>_<device>_<model>_<iteration>.json, <kind>_<device>.json.
    for (std::string_view kind :
         {"msprof_", "hccl_", "step_trace_", "task_time_", "timeline_display_",
          "ascend_timeline_display_", "gpu_timeline_display_"}) {
        if (name.starts_with(kind))
            if (auto n = digitsAt(name, kind.size(), false)) return n;
    }
    if (name.find("timeline_display_") != std::string::npos)
        if (auto n = numberAfterWord(name, "display_", false)) return n;
    if (auto n = numberAfterWord(name, "worker", false)) return n;
    // PROF_xxx/device_<n>/timeline/..., rank_<n>/...
    for (fs::path dir = p.parent_path(); !dir.empty() && dir != dir.root_path();
         dir = dir.parent_path()) {
        const std::string d = asciiLower(dir.filename().string());
        if (d.starts_with("device_"))
            if (auto n = digitsAt(d, 7, false)) return n;
        if (d.starts_with("rank"))
            if (auto n = digitsAt(d, 4, true)) return n;
    }
    return std::nullopt;
}

std::optional<DistributedInfo> readDistributedInfo(const std::string& path, size_t maxScan) {
    gzFile f = gzopen(path.c_str(), "rb");  // reads plain files as they are
    if (!f) return std::nullopt;
    constexpr std::string_view kKey = "\"distributedInfo\"";
    constexpr size_t kChunk = 1 << 16;
    constexpr size_t kMaxObject = 16 << 20;  // a 300-rank job's pg_config is ~16 KB
    std::string buf;
    std::string object;
    bool found = false;
    int depth = 0;
    bool inString = false, escaped = false, started = false;
    char chunk[kChunk];
    size_t scanned = 0;
    for (;;) {
        if (!found && scanned >= maxScan) break;
        const int n = gzread(f, chunk, static_cast<unsigned>(kChunk));
        if (n <= 0) break;
        scanned += static_cast<size_t>(n);
        size_t from = 0;
        if (!found) {
            buf.append(chunk, static_cast<size_t>(n));
            const size_t at = buf.find(kKey);
            if (at == std::string::npos) {
                if (buf.size() > kKey.size()) buf.erase(0, buf.size() - kKey.size());
                continue;
            }
            found = true;
            object = buf.substr(at + kKey.size());
            buf.clear();
        } else {
            object.append(chunk, static_cast<size_t>(n));
            from = object.size() - static_cast<size_t>(n);
        }
        // Scan for the end of the value (an object) after the colon.
        size_t i = from;
        for (; i < object.size(); ++i) {
            const char c = object[i];
            if (!started) {
                if (c == '{') {
                    started = true;
                    depth = 1;
                    object.erase(0, i);
                    i = 0;
                } else if (c != ':' && !std::isspace(static_cast<unsigned char>(c))) {
                    gzclose(f);
                    return std::nullopt;  // not an object
                }
                continue;
            }
            if (inString) {
                if (escaped)
                    escaped = false;
                else if (c == '\\')
                    escaped = true;
                else if (c == '"')
                    inString = false;
            } else if (c == '"') {
                inString = true;
            } else if (c == '{' || c == '[') {
                ++depth;
            } else if (c == '}' || c == ']') {
                if (--depth == 0) break;
            }
        }
        if (started && depth == 0 && i < object.size()) {
            object.resize(i + 1);
            break;
        }
        if (object.size() > kMaxObject) break;
    }
    gzclose(f);
    if (!found || !started || depth != 0) return std::nullopt;
    rapidjson::Document d;
    if (!ts::json::parse(d, object) || !d.IsObject()) return std::nullopt;
    auto rank = d.FindMember("rank");
    if (rank == d.MemberEnd() || !rank->value.IsInt64()) return std::nullopt;
    DistributedInfo info;
    info.rank = rank->value.GetInt64();
    auto world = d.FindMember("world_size");
    if (world != d.MemberEnd() && world->value.IsInt64()) info.worldSize = world->value.GetInt64();
    auto backend = d.FindMember("backend");
    if (backend != d.MemberEnd() && backend->value.IsString())
        info.backend = backend->value.GetString();
    return info;
}

std::vector<std::vector<std::string>> groupTracesByRank(const std::vector<std::string>& files) {
    std::vector<std::vector<std::string>> groups;
    std::vector<std::optional<int64_t>> keys;
    for (const std::string& f : files) {
        std::optional<int64_t> rank;
        if (auto info = readDistributedInfo(f, 1 << 20)) rank = info->rank;
        if (!rank) rank = rankFromFileName(f);
        size_t g = 0;
        while (g < groups.size() && !(rank && keys[g] == rank)) ++g;
        if (g == groups.size()) {
            groups.emplace_back();
            keys.push_back(rank);
        }
        groups[g].push_back(f);
    }
    return groups;
}

}  // namespace ts::analysis
