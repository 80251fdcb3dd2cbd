#include "core/debug/rdr/ms_rdr_reader.h"

#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <map>

#include "core/common/text.h"

namespace fs = std::filesystem;

namespace ts::rdr {
namespace {

constexpr size_t kMaxFiles = 4096;
constexpr size_t kMaxRows = 1'000'000;
constexpr uint64_t kMaxLogBytes = uint64_t{32} << 20;

std::vector<std::string_view> lines(std::string_view text) {
    std::vector<std::string_view> out;
    size_t start = 0;
    while (start <= text.size() && out.size() < kMaxRows * 4) {
        size_t end = text.find('\n', start);
        if (end == std::string_view::npos) end = text.size();
        std::string_view l = text.substr(start, end - start);
        if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
        out.push_back(l);
        if (end == text.size()) break;
        start = end + 1;
    }
    return out;
}

int64_t toInt(std::string_view s, int64_t def = -1) {
    s = asciiTrim(s);
    if (s.empty() || s.size() > 19) return def;
    int64_t v = 0;
    bool neg = false;
    size_t i = 0;
    if (s[0] == '-') {
        neg = true;
        i = 1;
    }
    if (i == s.size()) return def;
    for (; i < s.size(); ++i) {
        if (!std::isdigit(static_cast<unsigned char>(s[i]))) return def;
        v = v * 10 + (s[i] - '0');
    }
    return neg ? -v : v;
}

bool isTokenChar(char c) {
    return !std::isspace(static_cast<unsigned char>(c)) && c != '{' && c != '}' && c != '(' &&
           c != ')' && c != ',' && c != '[' && c != ']' && c != '@' && c != '"' && c != '\'' &&
           c != ':' && c != '<' && c != '>';
}

/// The first "<scope>/<Op>-op<N>" (or "<Op>-op<N>") token of a node's debug string.
std::string fullNameIn(std::string_view s) {
    for (size_t p = s.find("-op"); p != std::string_view::npos; p = s.find("-op", p + 3)) {
        size_t end = p + 3;
        while (end < s.size() && std::isdigit(static_cast<unsigned char>(s[end]))) ++end;
        if (end == p + 3) continue;
        size_t start = p;
        while (start > 0 && isTokenChar(s[start - 1])) --start;
        if (start < p) return std::string(s.substr(start, end - start));
    }
    return {};
}

/// "0x12ab(512)" or "&0x12ab #512" addresses on a line.
std::vector<MsAddress> addresses(std::string_view line) {
    std::vector<MsAddress> out;
    size_t p = 0;
    while (p < line.size() && out.size() < 4096) {
        while (p < line.size() &&
               (std::isspace(static_cast<unsigned char>(line[p])) || line[p] == '&'))
            ++p;
        size_t start = p;
        while (p < line.size() && !std::isspace(static_cast<unsigned char>(line[p])) &&
               line[p] != '(')
            ++p;
        if (p == start) break;
        MsAddress a;
        a.address = std::string(line.substr(start, p - start));
        if (p < line.size() && line[p] == '(') {
            const size_t close = line.find(')', p);
            if (close == std::string_view::npos) break;
            a.size = static_cast<uint64_t>(
                std::max<int64_t>(0, toInt(line.substr(p + 1, close - p - 1), 0)));
            p = close + 1;
        } else {
            while (p < line.size() && std::isspace(static_cast<unsigned char>(line[p]))) ++p;
            if (p < line.size() && line[p] == '#') {
                size_t s2 = ++p;
                while (p < line.size() && std::isdigit(static_cast<unsigned char>(line[p]))) ++p;
                a.size =
                    static_cast<uint64_t>(std::max<int64_t>(0, toInt(line.substr(s2, p - s2), 0)));
            }
        }
        out.push_back(std::move(a));
    }
    return out;
}

bool readFile(const fs::path& p, uint64_t limit, std::string& out, bool& truncated) {
    std::ifstream in(p, std::ios::binary);
    if (!in) return false;
    std::error_code ec;
    const uint64_t size = fs::file_size(p, ec);
    const uint64_t want = ec ? limit : std::min(size, limit);
    out.resize(static_cast<size_t>(want));
    in.read(out.data(), static_cast<std::streamsize>(want));
    out.resize(static_cast<size_t>(in.gcount()));
    truncated = !ec && size > limit;
    return true;
}

bool looksText(std::string_view s) {
    const size_t n = std::min<size_t>(s.size(), 4096);
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c == 0) return false;
        if (c < 9 || (c > 13 && c < 32)) ++bad;
    }
    return bad * 50 < n + 1;
}

bool endsWith(const std::string& s, std::string_view suffix) {
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

/// MODULE_tag[_suffix]_YYYYmmddHHMMSS.ext -> module, tag (with suffix), timestamp.
void splitName(MsRdrFile& f) {
    std::string stem = fs::path(f.name).stem().string();
    const size_t last = stem.rfind('_');
    if (last != std::string::npos && stem.size() - last - 1 == 14 &&
        std::all_of(stem.begin() + static_cast<ptrdiff_t>(last) + 1, stem.end(),
                    [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
        f.timestamp = stem.substr(last + 1);
        stem.resize(last);
    }
    const size_t first = stem.find('_');
    if (first != std::string::npos &&
        std::all_of(stem.begin(), stem.begin() + static_cast<ptrdiff_t>(first), [](char c) {
            return std::isupper(static_cast<unsigned char>(c)) || c == '_' ||
                   std::isdigit(static_cast<unsigned char>(c));
        })) {
        f.module = stem.substr(0, first);
        f.tag = stem.substr(first + 1);
    } else {
        f.tag = stem;
    }
}

MsRdrKind classify(const MsRdrFile& f) {
    const std::string ext = fs::path(f.name).extension().string();
    const std::string& t = f.text;
    if (f.name.find("somas") != std::string::npos) return MsRdrKind::Somas;
    if (ext == ".pb") return MsRdrKind::GraphProto;
    if (ext == ".dat") return MsRdrKind::GraphDat;
    if (ext == ".json") return MsRdrKind::StreamExecOrder;
    if (ext == ".ir") {
        if (f.name.find("task_debug_info") != std::string::npos ||
            (t.rfind("op_name:", 0) == 0 && t.find("task_index:") != std::string::npos))
            return MsRdrKind::TaskInfo;
        return MsRdrKind::GraphIr;
    }
    if (t.find("execution order ==") != std::string::npos ||
        f.name.find("exec_order") != std::string::npos)
        return MsRdrKind::ExecOrder;
    if (f.name.find("mem_address") != std::string::npos ||
        t.find("kernel_inputs ") != std::string::npos)
        return MsRdrKind::MemAddress;
    if (!t.empty() || f.bytes == 0) return MsRdrKind::Text;
    return MsRdrKind::Other;
}

/// A file named as MindSpore's recorders name theirs (<MODULE>_<tag>_<14 digits>.<ext>).
bool hasRdrName(const std::string& name) {
    MsRdrFile f;
    f.name = name;
    splitName(f);
    return !f.timestamp.empty() && !f.module.empty();
}

/// The graph names MindSpore's documentation shows for an RDR folder ("hwopt_d_before_graph_0.ir").
bool hasDocGraphName(const std::string& name) {
    return fs::path(name).extension() == ".ir" && name.find("_graph_") != std::string::npos &&
           name.rfind("ms_output_trace_code_graph_", 0) != 0;
}

int rankOf(const fs::path& rdrDir) {
    const std::string r = rdrDir.parent_path().filename().string();
    return r.rfind("rank_", 0) == 0 ? static_cast<int>(toInt(r.substr(5), 0)) : 0;
}

void collect(const fs::path& p, std::vector<fs::path>& found) {
    std::error_code ec;
    for (fs::directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string n = it->path().filename().string();
        if (n.rfind("rank_", 0) == 0 && isMsRdrFolder((it->path() / "rdr").string()))
            found.push_back(it->path() / "rdr");
    }
}

}  // namespace

const char* msRdrKindName(MsRdrKind k) {
    switch (k) {
        case MsRdrKind::GraphIr:
            return "graph_ir";
        case MsRdrKind::GraphProto:
            return "graph_proto";
        case MsRdrKind::GraphDat:
            return "graph_dat";
        case MsRdrKind::ExecOrder:
            return "exec_order";
        case MsRdrKind::StreamExecOrder:
            return "stream_exec_order";
        case MsRdrKind::MemAddress:
            return "mem_address";
        case MsRdrKind::TaskInfo:
            return "task_info";
        case MsRdrKind::Somas:
            return "somas";
        case MsRdrKind::Text:
            return "text";
        case MsRdrKind::Other:
            return "other";
    }
    return "other";
}

int MsRdrExport::failingIndex(size_t order) const {
    if (failures.empty() || order >= execOrders.size()) return -1;
    const auto& ops = execOrders[order].ops;
    for (const auto& f : failures) {
        if (f.op.empty()) continue;
        for (size_t i = 0; i < ops.size(); ++i)
            if (ops[i].fullName == f.op) return static_cast<int>(i);
        // A short name ("Add-op8") against full scope names.
        for (size_t i = 0; i < ops.size(); ++i)
            if (endsWith(ops[i].fullName, "/" + f.op)) return static_cast<int>(i);
    }
    return -1;
}

MsExecOrder parseMsExecOrder(const std::string& text) {
    MsExecOrder out;
    const auto ls = lines(text);
    for (size_t i = 0; i < ls.size() && out.ops.size() < kMaxRows; ++i) {
        const std::string_view l = ls[i];
        if (l.rfind("execution_order size:", 0) == 0) {
            out.declaredSize = toInt(l.substr(21));
            continue;
        }
        if (l.empty() || l[0] == '=' || l[0] == '\t' || l.back() != ':') continue;
        const int64_t idx = toInt(l.substr(0, l.size() - 1));
        if (idx < 0) continue;
        MsExecOp op;
        op.index = idx;
        // Then three tab-indented lines: the node, its stream label, its graph id.
        std::vector<std::string_view> detail;
        for (size_t k = i + 1;
             k < ls.size() && detail.size() < 3 && !ls[k].empty() && ls[k][0] == '\t'; ++k)
            detail.push_back(ls[k].substr(1));
        i += detail.size();
        if (!detail.empty()) {
            op.debugString = std::string(detail[0]);
            op.fullName = fullNameIn(detail[0]);
        }
        if (detail.size() > 1) op.streamLabel = std::string(asciiTrim(detail[1]));
        if (detail.size() > 2) op.graphId = std::string(asciiTrim(detail[2]));
        out.ops.push_back(std::move(op));
    }
    if (!out.ops.empty() && !out.ops.front().graphId.empty())
        out.graphId = toInt(out.ops.front().graphId);
    return out;
}

std::vector<MsStreamNode> parseMsStreamOrder(const std::string& json, std::string* error) {
    std::vector<MsStreamNode> out;
    rapidjson::Document d;
    d.Parse(json.c_str(), json.size());
    if (d.HasParseError()) {
        if (error)
            *error = std::string("not JSON: ") + rapidjson::GetParseError_En(d.GetParseError()) +
                     " at byte " + std::to_string(d.GetErrorOffset());
        return out;
    }
    if (!d.IsArray()) {
        if (error) *error = "not a JSON array of nodes";
        return out;
    }
    auto num = [](const rapidjson::Value& o, const char* k) -> int64_t {
        if (!o.HasMember(k)) return -1;
        const auto& v = o[k];
        if (v.IsInt64()) return v.GetInt64();
        if (v.IsUint64()) return static_cast<int64_t>(std::min<uint64_t>(v.GetUint64(), INT64_MAX));
        if (v.IsString()) return toInt(v.GetString());
        return -1;
    };
    auto str = [](const rapidjson::Value& o, const char* k) -> std::string {
        if (!o.HasMember(k)) return {};
        const auto& v = o[k];
        if (v.IsString()) return v.GetString();
        if (v.IsInt64()) return std::to_string(v.GetInt64());
        return {};
    };
    for (const auto& n : d.GetArray()) {
        if (!n.IsObject() || out.size() >= kMaxRows) continue;
        MsStreamNode s;
        s.index = num(n, "index");
        s.nodeName = str(n, "node_name");
        s.logicId = num(n, "logic_id");
        s.streamId = num(n, "stream_id");
        s.nodeInfo = str(n, "node_info");
        s.eventId = num(n, "event_id");
        s.labelIds = str(n, "label_id");
        s.activeStreamIds = str(n, "active_stream_id");
        out.push_back(std::move(s));
    }
    return out;
}

std::vector<MsMemOp> parseMsMemAddress(const std::string& text) {
    std::vector<MsMemOp> out;
    const auto ls = lines(text);
    MsMemOp* cur = nullptr;
    std::vector<MsAddress>* list = nullptr;
    int64_t expect = 0;
    for (const std::string_view l : ls) {
        if (out.size() >= kMaxRows) break;
        if (l.empty()) {
            cur = nullptr;
            list = nullptr;
            continue;
        }
        if (list && expect > 0 && (l[0] == '&' || l.rfind("0x", 0) == 0)) {
            auto a = addresses(l);
            list->insert(list->end(), a.begin(), a.end());
            --expect;
            continue;
        }
        auto section = [&](std::string_view key, std::vector<MsAddress>& target) {
            if (l.rfind(key, 0) != 0 || !cur) return false;
            list = &target;
            expect = std::max<int64_t>(0, toInt(l.substr(key.size()), 0));
            return true;
        };
        if (cur && (section("kernel_inputs ", cur->inputs) ||
                    section("kernel_workspaces ", cur->workspaces) ||
                    section("kernel_outputs ", cur->outputs)))
            continue;
        out.push_back(MsMemOp{std::string(asciiTrim(l)), {}, {}, {}});
        cur = &out.back();
        list = nullptr;
    }
    return out;
}

std::vector<MsTask> parseMsTaskInfo(const std::string& text) {
    std::vector<MsTask> out;
    for (const std::string_view l : lines(text)) {
        if (out.size() >= kMaxRows) break;
        if (l.rfind("op_name:", 0) == 0) {
            MsTask t;
            t.op = std::string(asciiTrim(l.substr(8)));
            out.push_back(std::move(t));
            continue;
        }
        if (out.empty()) continue;
        MsTask& t = out.back();
        if (l.rfind("task_index:", 0) == 0) {
            size_t p = 0;
            while (p < l.size()) {
                size_t tab = l.find('\t', p);
                if (tab == std::string_view::npos) tab = l.size();
                const std::string_view kv = l.substr(p, tab - p);
                const size_t colon = kv.find(':');
                if (colon != std::string_view::npos) {
                    const std::string_view k = kv.substr(0, colon);
                    const int64_t v = toInt(kv.substr(colon + 1));
                    if (k == "task_index")
                        t.taskIndex = v;
                    else if (k == "task_num")
                        t.taskNum = v;
                    else if (k == "task0_stream_id")
                        t.streamId = v;
                    else if (k == "task0_type")
                        t.type = v;
                    else if (k == "task0_dump_flag")
                        t.dumpFlag = v;
                }
                p = tab + 1;
            }
        } else if (l.rfind("input address:", 0) == 0) {
            t.inputs = addresses(l.substr(14));
        } else if (l.rfind("output address:", 0) == 0) {
            t.outputs = addresses(l.substr(15));
        } else if (l.rfind("workspace address:", 0) == 0) {
            t.workspaces = addresses(l.substr(18));
        }
    }
    return out;
}

std::vector<MsFailure> findMsFailures(const std::string& text, const std::string& file) {
    std::vector<MsFailure> out;
    const auto ls = lines(text);
    for (size_t i = 0; i < ls.size() && out.size() < 64; ++i) {
        const std::string_view l = ls[i];
        MsFailure f;
        if (size_t p = l.find("Dump node ("); p != std::string_view::npos) {
            const size_t close = l.find(')', p + 11);
            if (close == std::string_view::npos) continue;
            f.op = std::string(l.substr(p + 11, close - p - 11));
        } else if (size_t q = l.find("Task fail infos task_id: "); q != std::string_view::npos) {
            const std::string_view rest = l.substr(q + 25);
            f.taskId = toInt(rest.substr(0, rest.find(',')));
            if (size_t s = rest.find("stream_id: "); s != std::string_view::npos) {
                const std::string_view sv = rest.substr(s + 11);
                f.streamId = toInt(sv.substr(0, sv.find(',')));
            }
        } else {
            std::string lower(l.substr(0, 512));
            for (auto& c : lower)
                c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
            size_t k = lower.find("fault kernel name");
            if (k == std::string::npos) k = lower.find("fault op name");
            if (k == std::string::npos) continue;
            size_t v = l.find_first_of(":=", k);
            if (v == std::string_view::npos) continue;
            const std::string_view name = asciiTrim(l.substr(v + 1));
            size_t end = 0;
            while (end < name.size() && isTokenChar(name[end])) ++end;
            if (end == 0) continue;
            f.op = std::string(name.substr(0, end));
        }
        f.where = file + ":" + std::to_string(i + 1);
        f.line = std::string(asciiTrim(l.substr(0, 1024)));
        out.push_back(std::move(f));
    }
    return out;
}

bool isMsRdrFolder(const std::string& dir) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return false;
    if (fs::exists(fs::path(dir) / "rdr_index.json", ec)) return false;  // the studio's own
    // Named like MindSpore's recorders' files; or, in a folder named rdr, graph IR files
    // named as the documentation shows them (a dump's graphs/ folder is not an export).
    const bool rdrFolder = fs::path(dir).filename() == "rdr";
    size_t seen = 0;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end && seen < 256;
         it.increment(ec), ++seen) {
        if (!it->is_regular_file(ec)) continue;
        const std::string n = it->path().filename().string();
        if (hasRdrName(n) || (rdrFolder && hasDocGraphName(n))) return true;
    }
    return false;
}

std::vector<std::string> findMsRdrFolders(const std::string& path) {
    std::error_code ec;
    fs::path p(path);
    if (fs::is_regular_file(p, ec)) p = p.parent_path();
    if (!fs::is_directory(p, ec)) return {};
    if (isMsRdrFolder(p.string())) return {p.string()};
    std::vector<fs::path> found;
    if (isMsRdrFolder((p / "rdr").string())) found.push_back(p / "rdr");
    collect(p, found);
    if (found.empty())
        for (fs::directory_iterator it(p, ec), end; !ec && it != end; it.increment(ec))
            if (it->is_directory(ec)) collect(it->path(), found);
    std::sort(found.begin(), found.end(), [](const fs::path& a, const fs::path& b) {
        return std::make_pair(rankOf(a), a.string()) < std::make_pair(rankOf(b), b.string());
    });
    std::vector<std::string> out;
    for (const auto& f : found) out.push_back(f.string());
    return out;
}

Result<MsRdrExport> readMsRdrExport(const std::string& path) {
    const auto folders = findMsRdrFolders(path);
    if (folders.empty())
        return Error{"no MindSpore RDR export (rank_*/rdr with <MODULE>_<tag>_<time>.* files) in " +
                     path};
    MsRdrExport e;
    e.folder = folders.front();
    e.rank = rankOf(fs::path(e.folder));
    std::error_code ec;
    std::vector<fs::path> paths;
    for (fs::directory_iterator it(e.folder, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file(ec) && paths.size() < kMaxFiles) paths.push_back(it->path());
    if (paths.size() >= kMaxFiles)
        e.problems.push_back("more than 4096 files: only the first 4096 are read");
    std::sort(paths.begin(), paths.end());
    for (const fs::path& p : paths) {
        MsRdrFile f;
        f.path = p.string();
        f.name = p.filename().string();
        f.bytes = fs::file_size(p, ec);
        splitName(f);
        std::string content;
        bool truncated = false;
        if (!readFile(p, kMaxTextBytes, content, truncated)) {
            f.error = "cannot be read";
            e.problems.push_back(f.name + ": cannot be read");
            e.files.push_back(std::move(f));
            continue;
        }
        const std::string ext = p.extension().string();
        if (ext != ".pb" && looksText(content)) {
            f.text = std::move(content);
            f.truncated = truncated;
            if (truncated) e.problems.push_back(f.name + ": larger than 64 MiB, shown cut");
        } else if (ext == ".pb") {
            f.text = std::move(content);  // binary: kept for the graph decoder
            f.truncated = truncated;
        }
        f.kind = classify(f);
        switch (f.kind) {
            case MsRdrKind::ExecOrder: {
                MsExecOrder o = parseMsExecOrder(f.text);
                o.file = f.name;
                if (o.ops.empty())
                    e.problems.push_back(f.name + ": no execution order entry found");
                if (o.graphId < 0) {
                    const size_t g = f.tag.find_last_of("._");
                    if (g != std::string::npos) o.graphId = toInt(f.tag.substr(g + 1));
                }
                e.execOrders.push_back(std::move(o));
                break;
            }
            case MsRdrKind::StreamExecOrder: {
                std::string err;
                auto nodes = parseMsStreamOrder(f.text, &err);
                if (!err.empty()) {
                    f.error = err;
                    e.problems.push_back(f.name + ": " + err);
                }
                e.streamOrder.insert(e.streamOrder.end(), nodes.begin(), nodes.end());
                break;
            }
            case MsRdrKind::MemAddress: {
                auto m = parseMsMemAddress(f.text);
                e.memory.insert(e.memory.end(), m.begin(), m.end());
                break;
            }
            case MsRdrKind::TaskInfo: {
                auto t = parseMsTaskInfo(f.text);
                e.tasks.insert(e.tasks.end(), t.begin(), t.end());
                break;
            }
            default:
                break;
        }
        if (f.kind != MsRdrKind::GraphProto && !f.text.empty()) {
            auto fails = findMsFailures(f.text, f.name);
            e.failures.insert(e.failures.end(), fails.begin(), fails.end());
        }
        e.files.push_back(std::move(f));
    }
    // Logs beside the export (MindSpore writes them per rank: rank_<id>/logs/*.log, or the
    // GLOG_log_dir the user chose next to it): where the task-failure lines are.
    const fs::path rankDir = fs::path(e.folder).parent_path();
    std::vector<fs::path> logs;
    for (const fs::path& d : {rankDir, rankDir / "logs", rankDir / "log", rankDir.parent_path()})
        for (fs::directory_iterator it(d, ec), end; !ec && it != end && logs.size() < 64;
             it.increment(ec)) {
            const std::string n = it->path().filename().string();
            if (it->is_regular_file(ec) &&
                (endsWith(n, ".log") || n.find(".log.") != std::string::npos ||
                 n.rfind("mindspore", 0) == 0))
                logs.push_back(it->path());
        }
    for (const fs::path& l : logs) {
        std::string text;
        bool truncated = false;
        if (!readFile(l, kMaxLogBytes, text, truncated) || !looksText(text)) continue;
        auto fails = findMsFailures(text, l.string());
        e.failures.insert(e.failures.end(), fails.begin(), fails.end());
    }
    return e;
}

}  // namespace ts::rdr
