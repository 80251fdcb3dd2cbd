#include "importers/summary/summary_importer.h"

#include <chrono>
#include <filesystem>

#include "core/common/json.h"
#include "core/engine/train/tb_events.h"
#include "core/log/logger.h"
#include "core/store/trace_store.h"
#include "core/summary/lineage_file.h"
#include "core/summary/summary_file.h"
#include "core/summary/summary_store.h"
#include "importers/summary/summary_run.h"

namespace ts::importers {
namespace summary_import {

namespace fs = std::filesystem;

namespace {

constexpr int64_t kLiveSeconds = 60;

bool modifiedWithin(const std::string& path, int64_t seconds) {
    std::error_code ec;
    const auto t = fs::last_write_time(path, ec);
    if (ec) return false;
    const auto age =
        std::chrono::duration_cast<std::chrono::seconds>(fs::file_time_type::clock::now() - t);
    return age.count() <= seconds;
}

bool endsWith(const std::string& s, std::string_view suffix) {
    return s.size() >= suffix.size() &&
           s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

void addSkips(ImportReport& r, const std::string& reason, int64_t n) {
    if (n <= 0) return;
    r.skipped += n;
    r.skippedReasons[reason] += n;
}

}  // namespace

std::string defaultRunName(const std::string& path) {
    const fs::path p(path);
    const std::string folder = p.parent_path().filename().string();
    return folder.empty() || folder == "." ? p.filename().string() : folder;
}

int sniffMindSporeSummary(const std::string& path, std::string_view head) {
    const std::string name = fs::path(path).filename().string();
    if (summary::isLineageFileName(name)) return 0;
    if (name.find(".summary.") != std::string::npos && endsWith(name, "_MS")) return 95;
    if (name.find("tfevents") != std::string::npos) return 0;
    engine::tb::RecordReader r(head);
    std::string_view rec;
    if (r.next(rec) != engine::tb::RecordReader::Outcome::Record) return 0;
    return summary::sniffDialect(rec) == summary::Dialect::MindSpore ? 70 : 0;
}

int sniffMindSporeLineage(const std::string& path, std::string_view head) {
    if (!summary::isLineageFileName(fs::path(path).filename().string())) return 0;
    engine::tb::RecordReader r(head);
    std::string_view rec;
    return r.next(rec) == engine::tb::RecordReader::Outcome::Record ? 95 : 0;
}

ImportReport importSummaryFile(const std::string& path, store::TraceStore& store,
                               JobControl& control, const Options& o) {
    ImportReport report;
    report.path = path;
    report.kind = o.kind;
    auto file = summary::SummaryFile::open(path, o.dialect);
    if (!file) {
        report.error = file.error();
        return report;
    }
    std::error_code ec;
    control.setTotal(fs::file_size(path, ec));
    auto target =
        beginSummaryRun(store, path, o.kind, o.runName.empty() ? defaultRunName(path) : o.runName);
    if (!target) {
        report.error = target.error();
        return report;
    }
    report.sourceId = target->sourceId;
    if (target->createdRun) report.createdRunId = target->runId;
    summary::SummaryWriter writer(store, target->runId, target->sourceId);
    std::string writeError;
    int64_t sinceCommit = 0;
    if (auto s = store.begin(); !s) writeError = s.error();
    const Status read = file.value()->poll(
        [&](summary::SummaryEvent&& ev) {
            if (auto s = writer.write(ev); !s) {
                writeError = s.error();
                return false;
            }
            if (++sinceCommit >= 4096) {  // keep transactions bounded on large files
                sinceCommit = 0;
                if (auto c = store.commit(); !c) {
                    writeError = c.error();
                    return false;
                }
                if (auto b = store.begin(); !b) {
                    writeError = b.error();
                    return false;
                }
            }
            return true;
        },
        &control);
    if (writeError.empty() && !control.cancelled())
        if (auto s = writer.writeFinalMetrics(writer.metricTags()); !s) writeError = s.error();
    if (writeError.empty() && !control.cancelled()) {
        if (auto s = store.commit(); !s) writeError = s.error();
    } else if (store.inTransaction()) {
        (void)store.rollback();
    }
    if (control.cancelled()) {
        discardSummaryRun(store, *target);
        report.status = store::SourceStatus::Cancelled;
        report.sourceId = 0;
        report.createdRunId = 0;
        return report;
    }
    const summary::SummaryFile& f = *file.value();
    const auto& c = f.counts();
    const auto& w = writer.counts();
    report.events = w.keptTotal();
    report.counterSamples = w.kept.count("scalar") ? w.kept.at("scalar") : 0;
    if (w.wallMinNs) report.seeTime(*w.wallMinNs, *w.wallMaxNs);
    for (const auto& [reason, n] : w.skipped) addSkips(report, reason, n);
    addSkips(report, "record_bad_crc", c.badCrc);
    addSkips(report, "record_not_an_event", c.undecodable);
    const bool cut = !c.damaged && f.pendingBytes() > 0;  // after damage nothing is read
    // A file modified in the last minute is taken for one a run still writes: its cut last
    // record is the one being written, not damage.
    const bool live = o.live || (cut && modifiedWithin(path, kLiveSeconds));
    if (c.damaged) addSkips(report, "record_length_damaged", 1);
    if (cut) addSkips(report, live ? "record_still_being_written" : "record_cut", 1);

    std::vector<std::pair<std::string, std::string>> problems;  // key, message
    for (const auto& p : f.problems()) problems.emplace_back("summary_record", p);
    if (cut)
        problems.emplace_back(live ? "summary_still_being_written" : "summary_cut",
                              "byte " + std::to_string(f.pendingOffset()) +
                                  ": the file ends inside a record (" +
                                  std::to_string(f.pendingBytes()) + " bytes)");
    for (const auto& [reason, n] : w.skipped)
        problems.emplace_back(reason, std::to_string(n) + " value(s) not imported: " + reason);
    logImportProblems(store, report.sourceId, problems);

    std::string kinds = "{";
    for (const auto& [k, n] : w.kept)
        kinds += (kinds.size() > 1 ? "," : "") + json::quote(k) + ":" + std::to_string(n);
    kinds += "}";
    report.extraJson =
        "{\"records\":" + std::to_string(c.records) +
        ",\"run_id\":" + std::to_string(target->runId) +
        ",\"run\":" + json::quote(target->runName) +
        ",\"created_run\":" + (target->createdRun ? "true" : "false") +
        ",\"dialect\":" + json::quote(f.dialect() ? summary::dialectName(*f.dialect()) : "") +
        ",\"file_version\":" + json::quote(c.fileVersion) + ",\"kept\":" + kinds +
        ",\"truncated\":" + (cut ? "true" : "false") +
        ",\"cut_at\":" + std::to_string(cut ? f.pendingOffset() : 0) +
        ",\"damaged_at\":" + (c.damaged ? std::to_string(c.damagedAt) : "null") + "}";
    if (!writeError.empty()) {
        report.error = writeError;
        report.status = store::SourceStatus::Failed;
    } else if (!read) {
        report.error = read.error();
        report.status =
            report.events > 0 ? store::SourceStatus::Partial : store::SourceStatus::Failed;
    } else if (c.records == 0) {
        report.error = cut ? "the file ends inside its first record" : "the file holds no record";
        report.status = cut && live ? store::SourceStatus::Partial : store::SourceStatus::Failed;
    } else if (report.events == 0 && report.skipped > 0) {
        report.error = "no value could be imported (" + std::to_string(report.skipped) +
                       " skipped: see skipped_reasons)";
        report.status = store::SourceStatus::Failed;
    } else {
        report.status =
            report.skipped > 0 ? store::SourceStatus::Partial : store::SourceStatus::Complete;
        if (c.damaged)
            report.error = "damaged at byte " + std::to_string(c.damagedAt) +
                           ": a record length fails its CRC, the rest is unreadable";
        else if (cut)
            report.error = live ? "still being written: " + std::to_string(f.pendingBytes()) +
                                      " bytes of an incomplete record at byte " +
                                      std::to_string(f.pendingOffset())
                                : "cut at byte " + std::to_string(f.pendingOffset()) +
                                      ": the file ends inside a record";
        else if (c.badCrc > 0)
            report.error = std::to_string(c.badCrc) + " record(s) failed their CRC (skipped)";
    }
    finishSummaryRun(store, *target, report);
    recordSource(store, report);
    return report;
}

ImportReport importLineageFile(const std::string& path, store::TraceStore& store,
                               JobControl& control, const std::string& runName) {
    ImportReport report;
    report.path = path;
    report.kind = "mindspore_lineage";
    auto lin = summary::readLineageFile(path);
    if (!lin) {
        report.error = lin.error();
        return report;
    }
    if (control.cancelled()) {
        report.status = store::SourceStatus::Cancelled;
        return report;
    }
    auto target =
        beginSummaryRun(store, path, report.kind, runName.empty() ? defaultRunName(path) : runName);
    if (!target) {
        report.error = target.error();
        return report;
    }
    report.sourceId = target->sourceId;
    if (target->createdRun) report.createdRunId = target->runId;
    const summary::Lineage& l = lin.value();
    std::string writeError;
    if (auto s = store.begin(); !s) writeError = s.error();
    auto put = [&](const char* kind, const std::map<std::string, summary::LineageParam>& m) {
        for (const auto& [k, v] : m) {
            if (!writeError.empty()) return;
            if (auto s = summary::writeRunParam(store, target->runId, target->sourceId, kind, k,
                                                v.value, v.text);
                !s)
                writeError = s.error();
            else
                ++report.events;
        }
    };
    put("hparam", l.hparams);
    put("metric", l.metrics);
    if (writeError.empty()) {
        if (auto s = store.commit(); !s) writeError = s.error();
    } else if (store.inTransaction()) {
        (void)store.rollback();
    }
    addSkips(report, "record_bad_crc", l.badCrc);
    addSkips(report, "record_not_a_lineage_event", l.undecodable);
    if (l.damaged) addSkips(report, "record_length_damaged", 1);
    if (l.cutAt) addSkips(report, "record_cut", 1);
    std::vector<std::pair<std::string, std::string>> problems;
    for (const auto& p : l.problems) problems.emplace_back("lineage_record", p);
    logImportProblems(store, report.sourceId, problems);
    std::string kinds = "{";
    for (const auto& [k, n] : l.kinds)
        kinds += (kinds.size() > 1 ? "," : "") + json::quote(k) + ":" + std::to_string(n);
    kinds += "}";
    report.extraJson = "{\"records\":" + std::to_string(l.records) +
                       ",\"run_id\":" + std::to_string(target->runId) +
                       ",\"run\":" + json::quote(target->runName) +
                       ",\"created_run\":" + (target->createdRun ? "true" : "false") +
                       ",\"kinds\":" + kinds + ",\"hparams\":" + std::to_string(l.hparams.size()) +
                       ",\"metrics\":" + std::to_string(l.metrics.size()) + "}";
    if (!writeError.empty()) {
        report.error = writeError;
        report.status = store::SourceStatus::Failed;
    } else {
        report.status =
            report.skipped > 0 ? store::SourceStatus::Partial : store::SourceStatus::Complete;
        if (l.damaged)
            report.error = "damaged at byte " + std::to_string(l.damagedAt);
        else if (l.cutAt)
            report.error = "cut at byte " + std::to_string(l.cutAt);
    }
    finishSummaryRun(store, *target, report);
    recordSource(store, report);
    return report;
}

}  // namespace summary_import

Importer mindsporeSummaryImporter() {
    return Importer{"mindspore_summary", "MindSpore summary files (events.summary.*_MS)",
                    summary_import::sniffMindSporeSummary,
                    [](const std::string& path, store::TraceStore& store, JobControl& control,
                       const ImportOptions& options) {
                        summary_import::Options o;
                        o.runName = options.runName;
                        return summary_import::importSummaryFile(path, store, control, o);
                    }};
}

Importer mindsporeLineageImporter() {
    return Importer{"mindspore_lineage", "MindSpore lineage files (events.summary.*_lineage)",
                    summary_import::sniffMindSporeLineage,
                    [](const std::string& path, store::TraceStore& store, JobControl& control,
                       const ImportOptions& options) {
                        return summary_import::importLineageFile(path, store, control,
                                                                 options.runName);
                    }};
}

}  // namespace ts::importers
