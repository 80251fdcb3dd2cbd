#include "importers/logs/log_file_importer.h"

#include <zlib.h>

#include <filesystem>
#include <sstream>

#include "core/log/log_line_parser.h"
#include "core/log_store/log_store.h"

namespace ts::importers {
namespace logs {

using log::isTracebackStart;
using log::LogTokenizer;
using log::parseHeaderLine;

namespace {

constexpr int64_t kBatch = 5000;

bool nameLooksLikeLog(const std::string& path) {
    std::string name = std::filesystem::path(path).filename().string();
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (name.ends_with(".gz")) name.resize(name.size() - 3);
    return name.ends_with(".log") || name.ends_with(".txt") ||
           name.find(".log.") != std::string::npos || name.starts_with("plog");
}

bool looksLikeJson(std::string_view head) {
    const size_t i = head.find_first_not_of(" \t\r\n");
    if (i == std::string_view::npos) return false;
    if (head[i] == '{') return true;
    if (head[i] != '[') return false;
    const size_t j = head.find_first_not_of(" \t\r\n", i + 1);
    return j == std::string_view::npos || head[j] == '{' || head[j] == '"' || head[j] == '[' ||
           head[j] == ']' || std::isdigit(static_cast<unsigned char>(head[j]));
}

// Streams the lines of a (possibly gzip) file to `fn`; false + error when unreadable.
template <class Fn>
bool forEachLine(const std::string& path, JobControl* control, std::string& error, Fn fn) {
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    gzFile f = gzopen(path.c_str(), "rb");
    if (!f) {
        error = "cannot open " + path;
        return false;
    }
    if (control && !ec) control->setTotal(size);
    std::string buf(1 << 20, '\0'), carry;
    while (true) {
        const int n = gzread(f, buf.data(), static_cast<unsigned>(buf.size()));
        if (n < 0) {
            int code = 0;
            error = std::string("read error: ") + gzerror(f, &code);
            gzclose(f);
            return false;
        }
        if (n == 0) break;
        std::string_view chunk(buf.data(), static_cast<size_t>(n));
        size_t pos = 0;
        while (true) {
            const size_t nl = chunk.find('\n', pos);
            if (nl == std::string_view::npos) {
                carry.append(chunk.substr(pos));
                break;
            }
            if (carry.empty()) {
                fn(chunk.substr(pos, nl - pos));
            } else {
                carry.append(chunk.substr(pos, nl - pos));
                fn(std::string_view(carry));
                carry.clear();
            }
            pos = nl + 1;
        }
        if (control) {
            control->setDone(static_cast<uint64_t>(gzoffset(f)));
            if (control->cancelled()) break;
        }
    }
    if (!carry.empty()) fn(std::string_view(carry));
    gzclose(f);
    return true;
}

std::string statsJson(const TokenizerStats& s) {
    std::ostringstream o;
    o << "{\"lines\":" << s.lines << ",\"records\":" << s.records
      << ",\"continuation_lines\":" << s.continuationLines << ",\"formats\":{";
    bool first = true;
    for (const auto& [k, v] : s.formats) {
        o << (first ? "" : ",") << '"' << k << "\":" << v;
        first = false;
    }
    o << "}}";
    return o.str();
}

}  // namespace

int sniffLogText(const std::string& path, std::string_view head) {
    if (head.find('\0') != std::string_view::npos) return 0;
    if (looksLikeJson(head)) return 0;
    size_t pos = 0;
    for (int i = 0; i < 30 && pos < head.size(); ++i) {
        size_t nl = head.find('\n', pos);
        const bool complete = nl != std::string_view::npos;
        if (!complete) nl = head.size();
        const std::string_view line = head.substr(pos, nl - pos);
        if ((complete || head.size() < 4096) && (parseHeaderLine(line) || isTracebackStart(line)))
            return 60;
        pos = nl + 1;
    }
    return nameLooksLikeLog(path) ? 10 : 0;
}

Result<ParsedLog> readLogFile(const std::string& path, JobControl* control) {
    ParsedLog out;
    LogTokenizer tok([&out](log::LogRecord&& r) { out.records.push_back(std::move(r)); });
    std::string error;
    if (!forEachLine(path, control, error, [&tok](std::string_view l) { tok.addLine(l); }))
        return Error{error};
    tok.finish();
    out.stats = tok.stats();
    return out;
}

ImportReport importLogFile(const std::string& path, store::TraceStore& store, JobControl& control) {
    ImportReport report;
    report.path = path;
    report.kind = "log_text";
    auto source = store.beginSource(path, "log_text");
    if (!source) {
        report.error = source.error();
        return report;
    }
    report.sourceId = source.value();
    std::vector<log::LogRecord> batch;
    std::string writeError;
    auto flushBatch = [&] {
        if (batch.empty() || !writeError.empty()) return;
        if (auto s = log::insertLogs(store, batch, report.sourceId, std::nullopt); !s)
            writeError = s.error();
        batch.clear();
    };
    LogTokenizer tok([&](log::LogRecord&& r) {
        ++report.events;
        if (r.tsNs) report.seeTime(*r.tsNs, *r.tsNs);
        batch.push_back(std::move(r));
        if (static_cast<int64_t>(batch.size()) >= kBatch) flushBatch();
    });
    std::string readError;
    const bool read =
        forEachLine(path, &control, readError, [&tok](std::string_view l) { tok.addLine(l); });
    tok.finish();
    flushBatch();
    if (control.cancelled()) {
        (void)store.deleteSource(report.sourceId);
        report.status = store::SourceStatus::Cancelled;
        report.sourceId = 0;
        return report;
    }
    report.extraJson = statsJson(tok.stats());
    if (!read || !writeError.empty()) {
        report.error = !read ? readError : writeError;
        report.status = report.events > 0 && writeError.empty() ? store::SourceStatus::Partial
                                                                : store::SourceStatus::Failed;
    } else {
        report.status = store::SourceStatus::Complete;
    }
    recordSource(store, report);
    return report;
}

}  // namespace logs

Importer logFileImporter() {
    Importer imp;
    imp.name = "log_text";
    imp.description = "text logs (glog, MindSpore, Ascend plog, Python tracebacks; *.log, *.txt)";
    imp.sniff = [](const std::string& path, std::string_view head) {
        return logs::sniffLogText(path, head);
    };
    imp.run = [](const std::string& path, store::TraceStore& store, JobControl& control,
                 const ImportOptions&) { return logs::importLogFile(path, store, control); };
    return imp;
}

}  // namespace ts::importers
