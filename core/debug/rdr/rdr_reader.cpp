#include "core/debug/rdr/rdr_reader.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "core/common/file_io.h"
#include "core/common/json_read.h"
#include "core/debug/rdr/rdr_recorder.h"

namespace fs = std::filesystem;

namespace ts::rdr {
namespace {

// The most each file of an export may hold: the recorder writes a bounded tail of each (an
// index of a few lines, one step's ops twice, the pool's live blocks, the log's last lines).
// Past it, a folder is not one the recorder wrote, and it is refused rather than read.
uint64_t sizeCap(std::string_view name) {
    constexpr uint64_t kMiB = uint64_t{1} << 20;
    if (name == kIndexFile || name == kRunStateFile) return 4 * kMiB;
    if (name == kLogFile) return 32 * kMiB;
    return 256 * kMiB;  // graph, execution order, memory
}

// A file of the export folder `dir`: a regular file inside it (a link out of the folder, a
// FIFO or a device is refused, never opened for reading), at most sizeCap() bytes.
Result<std::string> readPartFile(const fs::path& dir, std::string_view name) {
    const fs::path p = dir / name;
    std::error_code ec;
    if (!fs::exists(fs::symlink_status(p, ec))) return Error{"missing"};
    return readRegularFile(p.string(), sizeCap(name), "RDR file", dir.string());
}

std::vector<std::string> splitTabs(const std::string& line) {
    std::vector<std::string> f;
    size_t start = 0;
    for (;;) {
        size_t t = line.find('\t', start);
        f.push_back(line.substr(start, t == std::string::npos ? std::string::npos : t - start));
        if (t == std::string::npos) return f;
        start = t + 1;
    }
}

// Value of "key=" inside a header line such as "## current epoch=1 step=3 ops=9 kept=9".
int64_t headerValue(const std::string& line, const std::string& key, int64_t def) {
    const size_t p = line.find(" " + key + "=");
    if (p == std::string::npos) return def;
    try {
        return std::stoll(line.substr(p + key.size() + 2));
    } catch (...) {
        return def;
    }
}

int64_t toInt(const std::string& s, int64_t def) {
    try {
        size_t used = 0;
        int64_t v = std::stoll(s, &used);
        return used == s.size() ? v : def;
    } catch (...) {
        return def;
    }
}

void parseExecOrder(const std::string& text, RdrExport& e) {
    std::istringstream in(text);
    std::string line;
    RdrStepOrder* cur = nullptr;
    while (std::getline(in, line)) {
        if (line.rfind("## ", 0) == 0) {
            cur = line.rfind("## current", 0) == 0    ? &e.current
                  : line.rfind("## previous", 0) == 0 ? &e.previous
                                                      : nullptr;
            if (cur) {
                cur->epoch = headerValue(line, "epoch", -1);
                cur->step = headerValue(line, "step", -1);
                cur->totalOps = static_cast<uint64_t>(headerValue(line, "ops", 0));
            }
            continue;
        }
        if (!cur || line.empty() || line[0] == '#' || line.rfind("seqid\t", 0) == 0) continue;
        auto f = splitTabs(line);
        if (f.size() < 5) {
            e.problems.push_back(std::string(kExecOrderFile) + ": malformed row: " + line);
            continue;
        }
        cur->rows.push_back({toInt(f[0], -1), f[1], f[2], f[3], f[4]});
    }
}

void parseMemory(const std::string& text, RdrExport& e) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("# pool", 0) == 0) {
            e.poolInUse = static_cast<uint64_t>(headerValue(line, "in_use_bytes", 0));
            e.poolPeak = static_cast<uint64_t>(headerValue(line, "peak_bytes", 0));
            e.poolCapacity = static_cast<uint64_t>(headerValue(line, "capacity_bytes", 0));
            continue;
        }
        if (line.empty() || line[0] == '#' || line.rfind("tensor\t", 0) == 0) continue;
        auto f = splitTabs(line);
        if (f.size() < 6) {
            e.problems.push_back(std::string(kMemoryFile) + ": malformed row: " + line);
            continue;
        }
        RdrAllocRow r;
        r.tensor = f[0];
        r.bytes = static_cast<uint64_t>(toInt(f[1], 0));
        r.offset = static_cast<uint64_t>(toInt(f[2], 0));
        r.allocNs = toInt(f[3], 0);
        r.freeNs = f[4] == "-" ? -1 : toInt(f[4], -1);
        r.status = f[5];
        e.allocations.push_back(std::move(r));
    }
}

void parseRunState(const std::string& text, RdrExport& e) {
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        if (line == "config:") {
            std::ostringstream rest;
            rest << in.rdbuf();
            e.runConfig = rest.str();
            while (!e.runConfig.empty() && e.runConfig.back() == '\n') e.runConfig.pop_back();
            return;
        }
        const size_t colon = line.find(": ");
        if (colon != std::string::npos) e.runState[line.substr(0, colon)] = line.substr(colon + 2);
    }
}

int64_t jsonInt(const rapidjson::Value& o, const char* key, int64_t def) {
    return o.HasMember(key) && o[key].IsInt64() ? o[key].GetInt64() : def;
}
std::string jsonStr(const rapidjson::Value& o, const char* key) {
    return o.HasMember(key) && o[key].IsString() ? o[key].GetString() : std::string();
}

Status parseIndex(const std::string& text, RdrExport& e) {
    rapidjson::Document d;
    const json::ParseResult p = json::parse(d, text);
    if (!p || !d.IsObject())
        return Error{std::string(kIndexFile) + ": not a JSON object (" + p.error + ")"};
    if (!d.HasMember("reason") || !d["reason"].IsString())
        return Error{std::string(kIndexFile) + ": no \"reason\""};
    e.reason = jsonStr(d, "reason");
    e.failingOp = jsonStr(d, "failing_op");
    e.time = jsonStr(d, "time");
    e.failingSeqid = jsonInt(d, "failing_seqid", -1);
    e.failingStep = jsonInt(d, "failing_step", -1);
    e.detail = jsonStr(d, "detail");
    e.signal = jsonInt(d, "signal", 0);
    e.epoch = jsonInt(d, "epoch", -1);
    e.step = jsonInt(d, "step", -1);
    e.timeNs = jsonInt(d, "time_ns", 0);
    e.rankId = jsonInt(d, "rank_id", 0);
    e.pid = jsonInt(d, "pid", 0);
    e.mode = static_cast<int>(jsonInt(d, "mode", 0));
    if (d.HasMember("files") && d["files"].IsArray())
        for (const auto& f : d["files"].GetArray())
            if (f.IsString()) e.files.emplace_back(f.GetString());
    return {};
}

bool hasIndex(const fs::path& dir) {
    std::error_code ec;
    return fs::is_regular_file(dir / kIndexFile, ec);
}

int rankOf(const fs::path& rdrDir) {
    const std::string name = rdrDir.parent_path().filename().string();
    return name.rfind("rank_", 0) == 0 ? static_cast<int>(toInt(name.substr(5), 1 << 30)) : -1;
}

void collectRanks(const fs::path& dir, std::vector<fs::path>& out) {
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.rfind("rank_", 0) == 0 && hasIndex(it->path() / "rdr"))
            out.push_back(it->path() / "rdr");
    }
}

}  // namespace

namespace {
int findRow(const std::vector<RdrOpRow>& rows, int64_t seqid, const std::string& name) {
    if (seqid >= 0)
        for (size_t i = rows.size(); i-- > 0;)
            if (rows[i].seqid == seqid) return static_cast<int>(i);
    if (!name.empty())
        for (size_t i = rows.size(); i-- > 0;)
            if (rows[i].scope == name || rows[i].op == name) return static_cast<int>(i);
    return -1;
}
}  // namespace

int RdrExport::failingRow() const {
    if (failingStep >= 0 && failingStep != current.step && failingStep == previous.step) return -1;
    return findRow(current.rows, failingSeqid, failingOp);
}

int RdrExport::failingPreviousRow() const {
    if (failingStep < 0 || failingStep != previous.step || failingStep == current.step) return -1;
    return findRow(previous.rows, failingSeqid, failingOp);
}

std::vector<std::string> findRdrFolders(const std::string& path) {
    std::error_code ec;
    fs::path p(path);
    if (fs::is_regular_file(p, ec)) {
        if (p.filename() == kIndexFile) return {p.parent_path().string()};
        return {};
    }
    if (!fs::is_directory(p, ec)) return {};
    if (hasIndex(p)) return {p.string()};
    std::vector<fs::path> found;
    if (hasIndex(p / "rdr")) found.push_back(p / "rdr");
    collectRanks(p, found);
    if (found.empty()) {
        for (fs::directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec))
            if (it->is_directory(ec)) collectRanks(it->path(), found);
    }
    std::sort(found.begin(), found.end(), [](const fs::path& a, const fs::path& b) {
        return std::make_pair(rankOf(a), a.string()) < std::make_pair(rankOf(b), b.string());
    });
    std::vector<std::string> out;
    for (const auto& f : found) out.push_back(f.string());
    return out;
}

std::vector<RdrMemoryPoint> rdrMemoryCurve(const std::vector<RdrAllocRow>& rows, int64_t endInUse) {
    std::vector<std::pair<int64_t, int64_t>> events;
    for (const auto& r : rows) {
        if (r.status == "FAILED") continue;
        const auto b = static_cast<int64_t>(r.bytes);
        events.emplace_back(r.allocNs, b);
        if (r.freeNs >= 0) events.emplace_back(r.freeNs, -b);
    }
    std::stable_sort(events.begin(), events.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    std::vector<RdrMemoryPoint> out;
    int64_t live = 0;
    for (const auto& [t, delta] : events) {
        live += delta;
        if (!out.empty() && out.back().timeNs == t)
            out.back().bytes = live;
        else
            out.push_back({t, live});
    }
    const int64_t base = endInUse >= 0 && endInUse > live ? endInUse - live : 0;
    if (base > 0) {
        if (!out.empty()) out.insert(out.begin(), {out.front().timeNs, 0});
        for (size_t i = 1; i < out.size(); ++i) out[i].bytes += base;
        if (!out.empty()) out.front().bytes = base;
    }
    return out;
}

Result<RdrExport> readRdrExport(const std::string& path) {
    auto folders = findRdrFolders(path);
    if (folders.empty())
        return Error{"no RDR export (" + std::string(kIndexFile) + " or rank_*/rdr) found in " +
                     path};
    RdrExport e;
    e.folder = folders.front();
    const fs::path dir(e.folder);
    auto index = readPartFile(dir, kIndexFile);
    if (!index) return Error{(dir / kIndexFile).string() + ": " + index.error()};
    if (auto st = parseIndex(index.value(), e); !st)
        return Error{(dir / kIndexFile).string() + ": " + st.error()};

    auto readPart = [&](const char* name, auto parse) {
        auto t = readPartFile(dir, name);
        if (!t) {
            e.problems.push_back(std::string(name) + ": " + t.error());
            return;
        }
        parse(t.value());
    };
    readPart(kGraphIrFile, [&](std::string& t) { e.graphIr = std::move(t); });
    readPart(kExecOrderFile, [&](std::string& t) { parseExecOrder(t, e); });
    readPart(kMemoryFile, [&](std::string& t) { parseMemory(t, e); });
    readPart(kLogFile, [&](std::string& t) {
        std::istringstream in(t);
        std::string line;
        while (std::getline(in, line)) e.logLines.push_back(line);
    });
    readPart(kRunStateFile, [&](std::string& t) { parseRunState(t, e); });
    return e;
}

}  // namespace ts::rdr
