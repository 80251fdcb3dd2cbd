// The Chrome Trace Event Format importer ("chrome_json"): JSON array or object form, plain,
// gzip or zip. Stages: InputStream (bytes) -> readChromeJson (the trace JSON tokenizer, one
// event at a time, on its own thread) -> EventPipe (batches) -> ChromeTraceBuilder (trackers that
// own the writes).
#include <rapidjson/document.h>

#include <filesystem>
#include <thread>

#include "core/common/json.h"
#include "core/common/json_read.h"
#include "core/store/store_writer.h"
#include "importers/chrome_trace/chrome_json_reader.h"
#include "importers/chrome_trace/chrome_trace_builder.h"
#include "importers/chrome_trace/event_pipe.h"
#include "importers/registry.h"

namespace ts::importers {
namespace {

int sniffChrome(const std::string& path, std::string_view head) {
    std::string name = std::filesystem::path(path).filename().string();
    for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (head.size() >= 4 && head.substr(0, 4) == std::string_view("PK\x03\x04", 4))
        return name.ends_with(".zip") ? 60 : 30;
    const size_t i = head.find_first_not_of(" \t\r\n\xEF\xBB\xBF");
    if (i == std::string_view::npos)
        return name.ends_with(".json") || name.ends_with(".json.gz") ? 10 : 0;
    const char c = head[i];
    int score = 0;
    if (c == '[' || c == '{') score = 40;
    if (head.find("\"traceEvents\"") != std::string_view::npos ||
        head.find("\"ph\"") != std::string_view::npos)
        score = 80;
    // A file named like a trace still goes here, so a damaged one gets a clear JSON error.
    if (score == 0 && (name.ends_with(".json") || name.ends_with(".json.gz"))) score = 10;
    return score;
}

ImportReport runChrome(const std::string& path, store::TraceStore& store, JobControl& control,
                       const ImportOptions&) {
    ImportReport report;
    report.path = path;
    report.kind = "chrome_json";
    auto in = InputStream::open(path);
    if (!in) {
        report.error = in.error();
        return report;
    }
    control.setTotal(in.value()->fileSize());
    auto source = store.beginSource(path, "chrome_json");
    if (!source) {
        report.error = source.error();
        return report;
    }
    report.sourceId = source.value();
    chrome::ReadOutcome outcome;
    std::string writeError, alignment, window;
    {
        store::StoreWriter writer(store, report.sourceId);
        chrome::ChromeTraceBuilder builder(writer, report);
        // The tokenizer runs on its own thread and hands events over in batches; this
        // thread builds tracks and writes to the store.
        chrome::EventPipe pipe;
        std::thread parser([&] {
            outcome = chrome::readChromeJson(*in.value(), control, pipe);
            pipe.close();
        });
        while (chrome::EventPipe::Batch* batch = pipe.next()) {
            for (size_t i = 0; i < batch->count; ++i) builder.add(batch->events[i]);
            pipe.release(batch);
        }
        parser.join();
        if (outcome.kind != chrome::ReadOutcome::Kind::Cancelled &&
            outcome.kind != chrome::ReadOutcome::Kind::NotChromeTrace &&
            outcome.kind != chrome::ReadOutcome::Kind::NotJson) {
            builder.finish();
            alignment = builder.clockAlignmentJson();
            if (!builder.spillError().empty()) writeError = builder.spillError();
            if (outcome.kind == chrome::ReadOutcome::Kind::Truncated)
                writer.logProblem("json_truncated", outcome.errorOffset, {}, outcome.error);
        }
        if (outcome.nonObjectEvents > 0) {
            report.skipped += outcome.nonObjectEvents;
            report.skippedReasons["json_event_not_object"] += outcome.nonObjectEvents;
            for (int64_t i = 0; i < outcome.nonObjectEvents; ++i)
                writer.logProblem("json_event_not_object", -1, {},
                                  "a value in the events array that is not an object");
        }
        if (writeError.empty()) writeError = writer.error();
        window = builder.windowJson();
    }
    using K = chrome::ReadOutcome::Kind;
    if (outcome.kind == K::Cancelled || control.cancelled()) {
        (void)store.deleteSource(report.sourceId);
        report = ImportReport{};
        report.path = path;
        report.kind = "chrome_json";
        report.status = store::SourceStatus::Cancelled;
        report.error = "cancelled";
        return report;
    }
    std::string extra = "{\"top_level_keys\":[";
    for (size_t i = 0; i < outcome.topLevelKeys.size(); ++i) {
        if (i) extra += ',';
        ts::json::appendQuoted(extra, outcome.topLevelKeys[i]);
    }
    extra += "],\"wrapper\":" + ts::json::quote(in.value()->wrapper());
    if (!alignment.empty()) extra += ",\"clock_alignment\":" + alignment;
    if (outcome.baseTimeNs) extra += ",\"base_time_ns\":" + std::to_string(*outcome.baseTimeNs);
    extra += ",\"memory\":" + window;
    for (const auto& [key, text] : outcome.metadata) {
        // Kept as JSON only when it parses: the stats stay one valid document.
        rapidjson::Document doc;
        if (!ts::json::parse(doc, text)) continue;
        extra += key == "deviceProperties" ? ",\"device_properties\":" : ",\"distributed_info\":";
        extra += text;
    }
    extra += "}";
    report.extraJson = extra;
    report.error = outcome.error;
    if (!writeError.empty()) {
        report.status = store::SourceStatus::Failed;
        report.error = "store write failed: " + writeError;
    } else if (outcome.kind == K::NotJson || outcome.kind == K::NotChromeTrace) {
        report.status = store::SourceStatus::Failed;
    } else if (outcome.kind == K::Truncated) {
        report.status = store::SourceStatus::Partial;
    } else if (report.events > 0 && report.skippedReasons.count("json_missing_ph") &&
               report.events == report.skippedReasons.at("json_missing_ph")) {
        report.status = store::SourceStatus::Failed;
        report.error = "not a Chrome trace: no event has a \"ph\" phase";
    } else {
        report.status = store::SourceStatus::Complete;
    }
    recordSource(store, report);  // a failed one keeps nothing but its sources row
    (void)store.buildIndexes();
    return report;
}

}  // namespace

Importer chromeJsonImporter() {
    return Importer{"chrome_json", "Chrome trace JSON (.json, .json.gz, .zip)", sniffChrome,
                    runChrome};
}

}  // namespace ts::importers
