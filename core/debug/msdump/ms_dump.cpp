#include "core/debug/msdump/ms_dump.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "core/common/csv.h"
#include "core/debug/msdump/npy_file.h"

namespace ts::debug::msdump {

namespace fs = std::filesystem;

namespace {

constexpr size_t kMaxCsvBytes = size_t{256} << 20;
constexpr int kMaxScanDepth = 7;
constexpr size_t kMaxScannedEntries = 2'000'000;

std::vector<std::string> split(std::string_view s, char sep) {
    std::vector<std::string> out;
    size_t start = 0;
    for (size_t i = 0; i <= s.size(); ++i)
        if (i == s.size() || s[i] == sep) {
            out.emplace_back(s.substr(start, i - start));
            start = i + 1;
        }
    return out;
}

bool allDigits(std::string_view s) {
    return !s.empty() && s.size() <= 20 && std::all_of(s.begin(), s.end(), [](char c) {
        return std::isdigit(static_cast<unsigned char>(c));
    });
}

bool endsWith(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}

std::optional<int64_t> toInt(std::string_view s) {
    if (!allDigits(s)) return std::nullopt;
    try {
        return static_cast<int64_t>(std::stoull(std::string(s)));
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

std::optional<double> toDouble(const std::string& s) {
    if (s.empty()) return std::nullopt;
    std::string t = s;
    for (auto& c : t) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (t == "nan") return std::numeric_limits<double>::quiet_NaN();
    if (t == "inf" || t == "+inf" || t == "infinity")
        return std::numeric_limits<double>::infinity();
    if (t == "-inf" || t == "-infinity") return -std::numeric_limits<double>::infinity();
    try {
        size_t used = 0;
        const double v = std::stod(s, &used);
        return used == s.size() ? std::optional<double>(v) : std::nullopt;
    } catch (const std::exception&) {
        return std::nullopt;
    }
}

Result<std::string> readText(const std::string& path) {
    std::error_code ec;
    const auto size = fs::file_size(path, ec);
    if (ec) return Error{"cannot read " + path};
    if (size > kMaxCsvBytes) return Error{path + ": larger than 256 MiB"};
    std::ifstream in(path, std::ios::binary);
    if (!in) return Error{"cannot open " + path};
    return std::string(std::istreambuf_iterator<char>(in), {});
}

std::string key(const std::string& opType, const std::string& opName, int64_t task, int64_t stream,
                uint64_t ts, const std::string& io, int slot) {
    return opType + '|' + opName + '|' + std::to_string(task) + '|' + std::to_string(stream) + '|' +
           std::to_string(ts) + '|' + io + '|' + std::to_string(slot);
}

}  // namespace

std::string fileSafeName(std::string_view full) {
    std::string s(full);
    for (char& c : s)
        if (c == '/' || c == '.' || c == '\\' || c == ' ') c = '_';
    return s;
}

std::string Tensor::path() const {
    return name.opType + "/" + std::to_string(seqid) + "/" + name.io + "/" +
           std::to_string(name.slot);
}

std::optional<FileName> parseFileName(std::string_view name) {
    FileName f;
    std::string_view base = name;
    if (endsWith(base, ".npy")) {
        f.npy = true;
        base.remove_suffix(4);
    }
    const auto parts = split(base, '.');
    const size_t n = parts.size();
    if (f.npy) {
        // ... .{ts}.{io}.{slot}.{format}[.{dtype}]
        for (size_t k : {n >= 4 ? n - 4 : 0, n >= 3 ? n - 3 : 0}) {
            if (k < 5 || (parts[k] != "input" && parts[k] != "output") || !allDigits(parts[k + 1]))
                continue;
            if (!allDigits(parts[k - 1]) || !allDigits(parts[k - 2]) || !allDigits(parts[k - 3]))
                continue;
            f.opType = parts[0];
            for (size_t i = 1; i + 3 < k; ++i) f.opName += (i > 1 ? "." : "") + parts[i];
            if (f.opType.empty() || f.opName.empty()) return std::nullopt;
            f.taskId = *toInt(parts[k - 3]);
            f.streamId = *toInt(parts[k - 2]);
            f.timestamp = static_cast<uint64_t>(*toInt(parts[k - 1]));
            f.io = parts[k];
            f.slot = static_cast<int>(std::min<int64_t>(*toInt(parts[k + 1]), 1 << 20));
            f.format = parts[k + 2];
            if (k + 3 < n) f.dtype = parts[k + 3];
            return f;
        }
        return std::nullopt;
    }
    // Async "bin" dump: {op_type}.{op_name}.{task_id}.{stream_id}.{timestamp}
    if (n < 5 || !allDigits(parts[n - 1]) || !allDigits(parts[n - 2]) || !allDigits(parts[n - 3]))
        return std::nullopt;
    f.opType = parts[0];
    for (size_t i = 1; i + 3 < n; ++i) f.opName += (i > 1 ? "." : "") + parts[i];
    if (f.opType.empty() || f.opName.empty()) return std::nullopt;
    f.taskId = *toInt(parts[n - 3]);
    f.streamId = *toInt(parts[n - 2]);
    f.timestamp = static_cast<uint64_t>(*toInt(parts[n - 1]));
    return f;
}

Result<std::vector<StatRow>> parseStatisticCsv(std::string_view text,
                                               std::vector<std::string>* problems) {
    std::vector<StatRow> rows;
    size_t pos = 0, lineNo = 0;
    std::vector<std::string> header;
    while (pos < text.size()) {
        size_t end = text.find('\n', pos);
        if (end == std::string_view::npos) end = text.size();
        const std::string_view line = text.substr(pos, end - pos);
        pos = end + 1;
        ++lineNo;
        if (line.empty() || line == "\r") continue;
        auto fields = splitCsvLine(line);
        if (header.empty()) {
            header = std::move(fields);
            if (std::find(header.begin(), header.end(), "Op Name") == header.end())
                return Error{"statistic.csv: the first line is not its header (no 'Op Name')"};
            continue;
        }
        if (fields.size() > header.size() && fields.back().empty()) fields.pop_back();
        if (fields.size() != header.size()) {
            if (problems && problems->size() < 100)
                problems->push_back("statistic.csv line " + std::to_string(lineNo) + ": " +
                                    std::to_string(fields.size()) + " fields, the header has " +
                                    std::to_string(header.size()));
            continue;
        }
        StatRow r;
        for (size_t i = 0; i < header.size(); ++i) {
            const std::string& h = header[i];
            const std::string& v = fields[i];
            auto u = [&]() -> std::optional<uint64_t> {
                auto x = toInt(v);
                return x ? std::optional<uint64_t>(static_cast<uint64_t>(*x)) : std::nullopt;
            };
            if (h == "Op Type")
                r.opType = v;
            else if (h == "Op Name")
                r.opName = v;
            else if (h == "Task ID")
                r.taskId = toInt(v).value_or(0);
            else if (h == "Stream ID")
                r.streamId = toInt(v).value_or(0);
            else if (h == "Timestamp")
                r.timestamp = static_cast<uint64_t>(toInt(v).value_or(0));
            else if (h == "IO" || h == "Input/Output")
                r.io = v;
            else if (h == "Slot")
                r.slot = static_cast<int>(toInt(v).value_or(-1));
            else if (h == "Data Size")
                r.dataSize = u();
            else if (h == "Data Type")
                r.dtype = v;
            else if (h == "Shape")
                r.shape = v;
            else if (h == "Max Value")
                r.max = toDouble(v);
            else if (h == "Min Value")
                r.min = toDouble(v);
            else if (h == "Avg Value")
                r.avg = toDouble(v);
            else if (h == "L2Norm Value")
                r.l2norm = toDouble(v);
            else if (h == "Count")
                r.count = u();
            else if (h == "NaN Count")
                r.nan = u();
            else if (h == "Negative Inf Count")
                r.negInf = u();
            else if (h == "Positive Inf Count")
                r.posInf = u();
            else if (h == "Zero Count")
                r.zero = u();
            else if (h == "Negative Zero Count")
                r.negZero = u();
            else if (h == "Positive Zero Count")
                r.posZero = u();
            else
                r.other[h] = v;
        }
        if (r.opName.empty()) {
            if (problems && problems->size() < 100)
                problems->push_back("statistic.csv line " + std::to_string(lineNo) +
                                    ": no op name");
            continue;
        }
        rows.push_back(std::move(r));
    }
    if (header.empty()) return Error{"statistic.csv is empty"};
    return rows;
}

Result<std::vector<std::string>> readExecutionOrder(const std::string& csvPath) {
    auto text = readText(csvPath);
    if (!text) return Error{text.error()};
    std::vector<std::string> out;
    bool first = true;
    for (auto& line : split(text.value(), '\n')) {
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.empty()) continue;
        if (first && line.find('/') == std::string::npos &&
            line.find("-op") == std::string::npos) {  // a header line ("op_name", ...)
            first = false;
            continue;
        }
        first = false;
        // Some versions write "index,name" or "task,stream,name": the name is the last field.
        const auto fields = splitCsvLine(line);
        out.push_back(fields.back());
    }
    return out;
}

Result<Iteration> readIteration(const std::string& dir,
                                const std::vector<std::string>& executionOrder) {
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) return Error{"not a folder: " + dir};
    Iteration it;
    it.dir = dir;
    const fs::path p(dir);
    const std::string last = p.filename().string();
    it.iteration = last == "constants" ? -1 : toInt(last).value_or(-1);
    it.graphId = toInt(p.parent_path().filename().string()).value_or(-1);
    it.net = p.parent_path().parent_path().filename().string();
    const std::string rankDir = p.parent_path().parent_path().parent_path().filename().string();
    if (rankDir.rfind("rank_", 0) == 0)
        it.rank = static_cast<int>(toInt(rankDir.substr(5)).value_or(0));

    std::vector<std::pair<std::string, std::string>> files;  // name, path
    for (const auto& e :
         fs::directory_iterator(dir, fs::directory_options::skip_permission_denied, ec)) {
        std::error_code ec2;
        if (!e.is_regular_file(ec2)) continue;
        files.emplace_back(e.path().filename().string(), e.path().string());
    }
    std::sort(files.begin(), files.end());
    std::map<std::string, std::string> mapping;  // numeric file name -> real name
    std::vector<StatRow> stats;
    for (const auto& [name, path] : files) {
        if (name == "mapping.csv") {
            it.sideFiles.push_back(path);
            auto t = readText(path);
            if (!t) {
                it.problems.push_back(t.error());
                continue;
            }
            for (const auto& line : split(t.value(), '\n')) {
                const auto f = splitCsvLine(line);
                if (f.size() >= 2 && !f[0].empty()) mapping[f[0]] = f[1];
            }
        } else if (name == "statistic.csv") {
            it.sideFiles.push_back(path);
            auto t = readText(path);
            if (!t) {
                it.problems.push_back(t.error());
                continue;
            }
            auto rows = parseStatisticCsv(t.value(), &it.problems);
            if (!rows)
                it.problems.push_back(rows.error());
            else
                stats = std::move(rows.value());
        }
    }
    // Full names from the execution order: file-safe name -> (full name, position).
    std::map<std::string, std::pair<std::string, int64_t>> fullOf;
    for (size_t i = 0; i < executionOrder.size(); ++i)
        fullOf.emplace(fileSafeName(executionOrder[i]),
                       std::pair{executionOrder[i], static_cast<int64_t>(i)});
    auto resolve = [&](Tensor& t) {
        const std::string safe = fileSafeName(t.name.opName);
        if (auto f = fullOf.find(safe); f != fullOf.end()) {
            t.fullName = f->second.first;
            t.orderIndex = f->second.second;
        } else {
            t.fullName = t.name.opName;
        }
    };
    std::map<std::string, size_t> byKey;
    for (const auto& [name, path] : files) {
        if (name == "mapping.csv" || name == "statistic.csv") continue;
        std::string real = name;
        if (auto m = mapping.find(name); m != mapping.end()) real = m->second;
        auto fn = parseFileName(real);
        if (endsWith(name, ".json")) {
            it.sideFiles.push_back(path);
            continue;
        }
        if (!fn) {
            it.skipped.push_back({path, "not a MindSpore dump file name"});
            continue;
        }
        if (!fn->npy) {
            it.skipped.push_back(
                {path, fn->opType == "Opdebug"
                           ? "overflow debug record in Ascend's device format (read it with "
                             "msaccucmp)"
                           : "async dump in Ascend's device format (file_format \"bin\"): "
                             "convert it with msaccucmp.py convert -t npy"});
            continue;
        }
        Tensor t;
        t.file = path;
        t.name = std::move(*fn);
        resolve(t);
        byKey[key(t.name.opType, fileSafeName(t.name.opName), t.name.taskId, t.name.streamId,
                  t.name.timestamp, t.name.io, t.name.slot)] = it.tensors.size();
        it.tensors.push_back(std::move(t));
    }
    size_t statsOnly = 0;
    for (auto& r : stats) {
        const std::string k =
            key(r.opType, fileSafeName(r.opName), r.taskId, r.streamId, r.timestamp, r.io, r.slot);
        if (auto f = byKey.find(k); f != byKey.end()) {
            it.tensors[f->second].stats = std::move(r);
            continue;
        }
        Tensor t;
        t.name.opType = r.opType;
        t.name.opName = r.opName;
        t.name.taskId = r.taskId;
        t.name.streamId = r.streamId;
        t.name.timestamp = r.timestamp;
        t.name.io = r.io;
        t.name.slot = r.slot;
        t.name.dtype = r.dtype;
        t.stats = std::move(r);
        resolve(t);
        it.tensors.push_back(std::move(t));
        ++statsOnly;
    }
    it.statisticsOnly = statsOnly > 0 && statsOnly == it.tensors.size();
    std::stable_sort(it.tensors.begin(), it.tensors.end(), [](const Tensor& a, const Tensor& b) {
        if (a.name.timestamp != b.name.timestamp) return a.name.timestamp < b.name.timestamp;
        if (a.orderIndex != b.orderIndex) return a.orderIndex < b.orderIndex;
        if (a.name.opName != b.name.opName) return a.name.opName < b.name.opName;
        if (a.name.io != b.name.io) return a.name.io == "input";
        return a.name.slot < b.name.slot;
    });
    // seqid: how many ops of the same type ran before (an op is one op name).
    std::map<std::string, int64_t> nextSeq;
    std::map<std::string, int64_t> seqOfOp;
    for (auto& t : it.tensors) {
        auto s = seqOfOp.find(t.name.opName);
        if (s == seqOfOp.end()) s = seqOfOp.emplace(t.name.opName, nextSeq[t.name.opType]++).first;
        t.seqid = s->second;
    }
    return it;
}

namespace {

bool dumpFileName(const std::string& name) {
    if (name == "statistic.csv") return true;
    auto f = parseFileName(name);
    return f.has_value();
}

/// A folder whose files are dump files (tensors, statistics).
bool isIterationDir(const fs::path& dir) {
    std::error_code ec;
    size_t seen = 0;
    for (const auto& e :
         fs::directory_iterator(dir, fs::directory_options::skip_permission_denied, ec)) {
        if (++seen > 4096) break;
        std::error_code ec2;
        if (e.is_regular_file(ec2) && dumpFileName(e.path().filename().string())) return true;
    }
    return false;
}

void walk(const fs::path& dir, int depth, Tree& t, size_t& entries) {
    if (depth > kMaxScanDepth || entries > kMaxScannedEntries) return;
    std::error_code ec;
    std::vector<fs::path> subdirs;
    for (const auto& e :
         fs::directory_iterator(dir, fs::directory_options::skip_permission_denied, ec)) {
        if (++entries > kMaxScannedEntries) return;
        std::error_code ec2;
        const std::string name = e.path().filename().string();
        if (e.is_directory(ec2) && !e.is_symlink(ec2)) {
            if (name == ".dump_metadata") {
                for (const auto& m : fs::directory_iterator(e.path(), ec2))
                    t.metadataFiles.push_back(m.path().string());
                continue;
            }
            subdirs.push_back(e.path());
        }
    }
    std::sort(subdirs.begin(), subdirs.end());
    for (const fs::path& d : subdirs) {
        const std::string name = d.filename().string();
        const fs::path rank = d.parent_path();
        if (name == "execution_order" || name == "graphs") {
            const int r =
                rank.filename().string().rfind("rank_", 0) == 0
                    ? static_cast<int>(toInt(rank.filename().string().substr(5)).value_or(0))
                    : 0;
            std::error_code ec2;
            for (const auto& f : fs::directory_iterator(d, ec2)) {
                const std::string fn = f.path().filename().string();
                const std::string_view pre =
                    name == "graphs" ? "ms_output_trace_code_graph_" : "ms_execution_order_graph_";
                const std::string_view ext = name == "graphs" ? ".ir" : ".csv";
                if (fn.rfind(pre, 0) == 0 && endsWith(fn, ext)) {
                    auto id = toInt(std::string_view(fn).substr(
                        pre.size(), fn.size() - pre.size() - ext.size()));
                    if (id)
                        (name == "graphs" ? t.graphFiles : t.executionOrderFiles)[{r, *id}] =
                            f.path().string();
                }
            }
            continue;
        }
        if (isIterationDir(d)) {
            IterationRef ref;
            ref.dir = d.string();
            ref.iteration = name == "constants" ? -1 : toInt(name).value_or(-1);
            ref.graphId = toInt(d.parent_path().filename().string()).value_or(-1);
            ref.net = d.parent_path().parent_path().filename().string();
            const std::string r = d.parent_path().parent_path().parent_path().filename().string();
            ref.rank =
                r.rfind("rank_", 0) == 0 ? static_cast<int>(toInt(r.substr(5)).value_or(0)) : 0;
            t.iterations.push_back(std::move(ref));
            continue;
        }
        walk(d, depth + 1, t, entries);
    }
}

}  // namespace

Result<Tree> scanTree(const std::string& path) {
    std::error_code ec;
    fs::path root(path);
    if (fs::is_regular_file(root, ec)) root = root.parent_path();
    if (!fs::is_directory(root, ec)) return Error{"not a folder: " + path};
    Tree t;
    t.root = root.string();
    if (isIterationDir(root)) {
        IterationRef ref;
        ref.dir = root.string();
        const std::string name = root.filename().string();
        ref.iteration = name == "constants" ? -1 : toInt(name).value_or(-1);
        ref.graphId = toInt(root.parent_path().filename().string()).value_or(-1);
        ref.net = root.parent_path().parent_path().filename().string();
        const std::string r = root.parent_path().parent_path().parent_path().filename().string();
        ref.rank = r.rfind("rank_", 0) == 0 ? static_cast<int>(toInt(r.substr(5)).value_or(0)) : 0;
        t.iterations.push_back(ref);
        // The rank folder's execution order and graphs, three levels up.
        const fs::path rankDir = root.parent_path().parent_path().parent_path();
        for (const char* side : {"execution_order", "graphs"}) {
            Tree sideTree;
            size_t n = 0;
            if (fs::is_directory(rankDir / side, ec)) {
                walk(rankDir, kMaxScanDepth, sideTree, n);  // depth limit: only this level
                for (auto& [k, v] : sideTree.executionOrderFiles) t.executionOrderFiles[k] = v;
                for (auto& [k, v] : sideTree.graphFiles) t.graphFiles[k] = v;
            }
        }
    } else {
        size_t entries = 0;
        walk(root, 0, t, entries);
    }
    if (t.iterations.empty()) return Error{path + ": no MindSpore dump iteration folder found"};
    std::sort(t.iterations.begin(), t.iterations.end(),
              [](const IterationRef& a, const IterationRef& b) {
                  return std::tie(a.rank, a.net, a.graphId, a.iteration) <
                         std::tie(b.rank, b.net, b.graphId, b.iteration);
              });
    return t;
}

Result<Iteration> readIteration(const Tree& tree, const IterationRef& ref) {
    std::vector<std::string> order;
    if (auto f = tree.executionOrderFiles.find({ref.rank, ref.graphId});
        f != tree.executionOrderFiles.end())
        if (auto o = readExecutionOrder(f->second)) order = std::move(o.value());
    return readIteration(ref.dir, order);
}

bool looksLikeDump(const std::string& path) {
    auto t = scanTree(path);
    return t.ok();
}

Result<TensorStats> statsOf(const std::string& npyPath, JobControl* job) {
    auto r = npy::Reader::open(npyPath);
    if (!r) return Error{r.error()};
    StatsAccumulator acc;
    std::vector<double> block;
    for (;;) {
        if (job && job->cancelled()) return Error{"cancelled"};
        auto n = r.value()->next(block);
        if (!n) return Error{n.error()};
        if (n.value() == 0) break;
        acc.add(block.data(), block.size());
    }
    return acc.result();
}

Result<NonFinite> nonFiniteOf(const Tensor& t) {
    NonFinite out;
    if (!t.file.empty()) {
        auto s = statsOf(t.file);
        if (!s) return Error{s.error()};
        out.nan = s->nan;
        out.posInf = s->posinf;
        out.negInf = s->neginf;
        out.known = true;
        return out;
    }
    if (t.stats && (t.stats->nan || t.stats->posInf || t.stats->negInf)) {
        out.nan = t.stats->nan.value_or(0);
        out.posInf = t.stats->posInf.value_or(0);
        out.negInf = t.stats->negInf.value_or(0);
        out.fromStatistics = true;
        out.known = true;
    } else if (t.stats && (t.stats->max || t.stats->min)) {
        // Only max/min/avg columns: a NaN or Inf among them shows the tensor had one.
        auto bad = [](const std::optional<double>& v) { return v && !std::isfinite(*v); };
        out.fromStatistics = true;
        out.known = true;
        if (bad(t.stats->max) || bad(t.stats->min) || bad(t.stats->avg)) {
            if ((t.stats->max && std::isnan(*t.stats->max)) ||
                (t.stats->avg && std::isnan(*t.stats->avg)))
                out.nan = 1;
            if (t.stats->max && std::isinf(*t.stats->max) && *t.stats->max > 0) out.posInf = 1;
            if (t.stats->min && std::isinf(*t.stats->min) && *t.stats->min < 0) out.negInf = 1;
        }
    }
    return out;
}

}  // namespace ts::debug::msdump
