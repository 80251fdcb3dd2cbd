// trainscope-cli logs FILE...: log records from text logs (glog, MindSpore, Ascend plog,
// tracebacks), folders of them, or a session's logs table, filtered by level, sub-module
// and text.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "app/cli/session_open.h"
#include "core/log/log_filter.h"
#include "core/log/logger.h"
#include "core/log_store/log_store.h"
#include "importers/logs/log_file_importer.h"

namespace ts::cli {
namespace {

std::vector<log::LogRecord> readRecords(const std::string& path, const log::LogFilter& filter,
                                        const log::LogMatcher& matcher) {
    std::vector<log::LogRecord> out;
    if (store::isSqliteFile(path)) {
        auto store = openSession(path, store::TraceStore::Mode::ReadOnly);
        log::LogQuery q;
        q.filter = filter;
        q.limit = INT64_MAX;
        auto rows = log::queryLogs(*store, q);
        if (!rows) throw CliError{path + ": " + rows.error()};
        for (auto& row : rows.value()) out.push_back(std::move(row.record));
        return out;
    }
    auto parsed = importers::logs::readLogFile(path);
    if (!parsed) throw CliError{path + ": " + parsed.error()};
    for (auto& r : parsed->records)
        if (matcher.matches(r)) out.push_back(std::move(r));
    return out;
}

// A folder (e.g. rank_0/logs) stands for the log files in it, in name order.
std::vector<std::string> expandFolders(const std::vector<std::string>& paths) {
    std::vector<std::string> out;
    for (const auto& path : paths) {
        std::error_code ec;
        if (!std::filesystem::is_directory(path, ec)) {
            out.push_back(path);
            continue;
        }
        std::vector<std::string> files;
        for (const auto& e : std::filesystem::directory_iterator(path, ec)) {
            if (!e.is_regular_file(ec)) continue;
            const std::string f = e.path().string();
            if (importers::logs::sniffLogText(f, importers::readHead(f)) > 0) files.push_back(f);
        }
        if (files.empty()) throw CliError{path + ": no log files in this folder"};
        std::sort(files.begin(), files.end());
        out.insert(out.end(), files.begin(), files.end());
    }
    return out;
}

void writeRecord(JsonWriter& w, const log::LogRecord& r) {
    w.StartObject();
    w.Key("ts_ns");
    if (r.tsNs)
        w.Int64(*r.tsNs);
    else
        w.Null();
    kv(w, "level", std::string(log::levelName(r.level)));
    kv(w, "module", r.module);
    kv(w, "file", r.file);
    auto optInt = [&](const char* key, int64_t v) {
        w.Key(key);
        if (v)
            w.Int64(v);
        else
            w.Null();
    };
    optInt("line", r.line);
    optInt("pid", r.pid);
    optInt("tid", r.tid);
    kv(w, "message", r.message);
    w.EndObject();
}

int runLogs(const Args& args) {
    log::LogFilter filter;
    if (auto level = args.value("level")) {
        const auto l = log::parseLevel(*level);
        if (!l)
            throw CliError{"--level: '" + *level +
                           "' is not a level (0..4 or DEBUG, INFO, "
                           "WARNING, ERROR, CRITICAL)"};
        filter.minLevel = *l;
    }
    filter.modules = args.values("module");
    filter.text = args.valueOr("grep", "");
    filter.regex = args.has("regex");
    auto matcher = log::LogMatcher::create(filter);
    if (!matcher) throw CliError{matcher.error()};

    std::vector<log::LogRecord> records;
    for (const auto& path : expandFolders(args.positional)) {
        auto part = readRecords(path, filter, matcher.value());
        TS_LOG(CLI, INFO) << path << ": " << part.size() << " matching records";
        records.insert(records.end(), std::make_move_iterator(part.begin()),
                       std::make_move_iterator(part.end()));
    }
    if (args.json) {
        rapidjson::StringBuffer buf;
        JsonWriter w(buf);
        w.StartObject();
        w.Key("records");
        w.StartArray();
        for (const auto& r : records) writeRecord(w, r);
        w.EndArray();
        kv(w, "count", static_cast<int64_t>(records.size()));
        w.EndObject();
        printJson(buf);
        return 0;
    }
    for (const auto& r : records) std::cout << log::formatRecord(r) << "\n";
    std::cout.flush();
    return 0;
}

TS_CLI_COMMAND("logs", "print log records from log files, log folders or sessions, filtered",
               "FILE... [--level L] [--module M]... [--grep TEXT [--regex]] [--json]",
               {{"level", true, "lowest level shown: 0..4 or DEBUG|INFO|WARNING|ERROR|CRITICAL"},
                {"module", true, "only this sub-module (repeatable)", true},
                {"grep", true, "only records whose message, module or file holds TEXT"},
                {"regex", false, "--grep TEXT is an ECMAScript regular expression"}},
               &runLogs, 1, -1);

}  // namespace
}  // namespace ts::cli
