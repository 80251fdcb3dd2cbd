// CommandRun's recorder thread: the only user of the session connection. It writes what the
// supervisor hands over, imports what appears in the watched folders, and closes the run.
#include <chrono>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>

#include "core/common/clock.h"
#include "core/debug/rdr/rdr_store.h"
#include "core/log_store/log_store.h"
#include "core/run/command_run_state.h"
#include "core/run/file_tail.h"
#include "core/session/source_label.h"
#include "core/store/scalar_writer.h"
#include "core/store/trace_store.h"
#include "core/summary/summary_file.h"
#include "core/summary/summary_store.h"
#include "core/timeline/clock_bases.h"

namespace ts::run {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kMs = 1'000'000;
constexpr int64_t kScanEveryNs = 500 * kMs;
constexpr size_t kTrackPrinted = 100'000;  // printed scalars remembered until hooks report

std::string canonical(const std::string& p) {
    std::error_code ec;
    const fs::path c = fs::weakly_canonical(p, ec);
    return ec ? p : c.string();
}

// A TensorBoard event file or a MindSpore summary file read as it grows (core/summary: the
// decoder the importers use): complete records only, the rest read on a later poll.
struct TfTail {
    explicit TfTail(std::string p) : path(std::move(p)) {}
    std::string path;
    std::unique_ptr<summary::SummaryFile> file;
    bool failed = false;
};

class Recorder {
public:
    explicit Recorder(CommandRun::State& st)
        : m_st(st), m_store(st.store.get()), m_runId(st.result.runId) {}

    void run() {
        for (;;) {
            RunBatch batch;
            bool last = false;
            {
                std::unique_lock<std::mutex> lock(m_st.mu);
                m_st.cv.wait_for(lock, std::chrono::milliseconds(100), [&] {
                    return m_st.supervisorDone || m_st.queuedRecords > 50'000;
                });
                std::swap(batch, m_st.queue);
                m_st.queuedRecords = 0;
                last = m_st.supervisorDone;
            }
            write(batch);
            const int64_t now = nowNs();
            if (last || now - m_lastScan >= kScanEveryNs) {
                m_lastScan = now;
                scanFolders(now, last);
            }
            if (last) break;
        }
        finish();
    }

private:
    void warn(std::string text) {
        std::lock_guard<std::mutex> lock(m_st.mu);
        m_st.warnings.push_back(std::move(text));
    }

    Status insertScalars(const std::vector<QueuedScalar>& rows) {
        if (rows.empty()) return {};
        store::ScalarWriter q(*m_store, m_runId);
        if (!q.ok()) return Error{q.error()};
        for (const QueuedScalar& s : rows) {
            if (s.fromHooks && m_hookTags.insert(s.point.tag).second)
                if (auto r = dropPrinted(s.point.tag); !r) return r;
            if (!s.fromHooks && m_hookTags.count(s.point.tag)) continue;
            if (std::isnan(s.point.value)) {  // SQLite has no NaN (it would be NULL): counted
                if (m_nanPoints++ == 0)
                    m_firstNan = s.point.tag + " at step " + std::to_string(s.point.step);
                continue;
            }
            auto row = q.add(s.point.tag, s.point.step, s.wallNs, s.point.value);
            if (!row) return Error{row.error()};
            ++m_scalarCounts[s.point.tag];
            ++m_scalarPoints;
            if (!s.fromHooks && m_printedTracked < kTrackPrinted) {
                m_printed[s.point.tag].push_back(row.value());
                ++m_printedTracked;
            }
        }
        return {};
    }

    // The Python package reports `tag` exactly (the value backward() ran on, per step): the
    // copies the script printed before its first report came (the package's events are
    // read a little later than the output) are removed, so the curve has one point a step.
    Status dropPrinted(const std::string& tag) {
        auto it = m_printed.find(tag);
        if (it == m_printed.end()) return {};
        auto del = m_store->db().prepare("DELETE FROM scalars WHERE rowid = ?");
        for (int64_t rowid : it->second) {
            del.bind(1, rowid);
            if (auto r = del.run(); !r) return r;
        }
        m_scalarCounts[tag] -= static_cast<int64_t>(it->second.size());
        m_scalarPoints -= static_cast<int64_t>(it->second.size());
        if (m_scalarCounts[tag] <= 0) m_scalarCounts.erase(tag);
        m_printed.erase(it);
        return {};
    }

    void write(RunBatch& b) {
        if (!m_store) {  // supervising only: nothing is recorded
            m_records += static_cast<int64_t>(b.records.size());
            publish();
            return;
        }
        if (!b.records.empty() || !b.scalars.empty() || !b.findings.empty() ||
            !b.dumpFiles.empty()) {
            Status s = m_store->begin();
            if (s) s = log::insertLogs(*m_store, b.records, std::nullopt, m_runId);
            if (s) s = insertScalars(b.scalars);
            if (s) s = debug::insertOverflowFindings(*m_store, b.findings);
            for (const auto& [path, step] : b.dumpFiles) {
                if (!s) break;
                s = addDumpFile(path, step);
            }
            if (s)
                s = m_store->commit();
            else
                (void)m_store->rollback();
            if (!s) {
                if (m_writeErrors++ == 0) warn("the session could not be written: " + s.error());
            } else {
                m_records += static_cast<int64_t>(b.records.size());
                m_findings += static_cast<int64_t>(b.findings.size());
            }
        }
        for (const std::string& t : b.traces) importTrace(t);
        publish();
    }

    Status addDumpFile(const std::string& path, int64_t step) {
        const std::string c = canonical(path);
        if (!m_dumps.insert(c).second) return {};
        m_st.watcher.markHandled(c);
        m_dumpList.push_back(c);
        return debug::insertDumpFile(*m_store, m_runId, c, step);
    }

    /// Imports a trace the Python package announced, or one a watched folder received
    /// (`fromWatcher`: the watcher keeps looking at it, and reports it `again` when it changed
    /// after this import, which then replaces the first).
    void importTrace(const std::string& path, bool fromWatcher = false, bool again = false) {
        const std::string c = canonical(path);
        if (again) forgetImport(c);
        if (!m_imported.insert(c).second) return;
        if (!fromWatcher) m_st.watcher.markHandled(c);
        if (!m_st.options.importArtifact) {
            m_traces.push_back({c, 0, 0, std::nullopt});
            return;
        }
        ArtifactImport a = m_st.options.importArtifact(c, *m_store, m_st.importControl);
        if (!a.recognised) {
            // A JSON file that is not a trace is not the run's business; a CUDA activity file
            // the importer does not recognise (still empty when taken) must not vanish.
            if (classifyArtifact(c) == ArtifactKind::Cuda)
                warn("CUDA activity " + c + " was not recognised (" + std::to_string(fileSize(c)) +
                     " bytes)");
            return;
        }
        if (a.sourceId > 0) {
            (void)m_store->setSourceRun(a.sourceId, m_runId);
            if (a.status != store::SourceStatus::Failed) placeCycle(a.sourceId, c);
            if (m_profileSource == 0 && a.status != store::SourceStatus::Failed) {
                (void)m_store->setRunProfileSource(m_runId, a.sourceId);
                m_profileSource = a.sourceId;
            }
        }
        if (a.status == store::SourceStatus::Failed)
            warn("trace " + c + " was not imported: " + a.error);
        m_traces.push_back({c, a.sourceId, a.slices, a.status});
    }

    /// Each profiler cycle of the run is named by its number ("cycle 3"; per rank
    /// when the file names one: "rank1 cycle 3"), and a trace on a clock started with its
    /// recording (torch's exporter without Kineto starts every cycle at 0) is placed on the
    /// timeline where its file was written, so cycles line up in time instead of stacking.
    void placeCycle(int64_t sourceId, const std::string& path) {
        std::string who;
        const std::string file = fs::path(path).filename().string();
        if (file.starts_with("rank")) who = file.substr(0, file.find('.')) + " ";
        const int cycle = ++m_cycles[who];
        (void)session::labelSource(*m_store, sourceId, who + "cycle " + std::to_string(cycle));
        store::Statement q = m_store->db().prepare(
            "SELECT ts_min, ts_max FROM sources WHERE id = ? AND ts_min IS NOT NULL");
        q.bind(1, sourceId);
        if (!q.step() || !timeline::isRelativeClock(q.int64(0))) return;
        std::error_code ec;
        const auto written = fs::last_write_time(path, ec);
        if (ec) return;
        const int64_t fileNs = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                   std::chrono::file_clock::to_sys(written).time_since_epoch())
                                   .count();
        const std::vector<timeline::SourceExtent> extent{{sourceId, q.int64(0), q.int64(1), {}}};
        auto offset = timeline::alignmentOffset(*m_store, extent, sourceId,
                                                timeline::AlignMode::FileTime, 0, fileNs);
        if (offset)
            (void)timeline::writeAlignment(
                *m_store, {sourceId, timeline::AlignMode::FileTime, offset.value()});
    }

    /// A watched file changed after its import: its first source (a part of it) goes.
    void forgetImport(const std::string& c) {
        m_imported.erase(c);
        for (auto it = m_traces.begin(); it != m_traces.end(); ++it) {
            if (it->path != c) continue;
            if (it->sourceId > 0) (void)m_store->deleteSource(it->sourceId);
            if (it->sourceId == m_profileSource) m_profileSource = 0;
            m_traces.erase(it);
            break;
        }
    }

    static int64_t fileSize(const std::string& path) {
        std::error_code ec;
        const auto n = fs::file_size(path, ec);
        return ec ? -1 : static_cast<int64_t>(n);
    }

    void addRdr(const std::string& indexPath) {
        const std::string folder = fs::path(indexPath).parent_path().string();
        auto e = rdr::readRdrExport(folder);
        if (!e) {
            warn("crash record " + folder + " cannot be read: " + e.error());
            return;
        }
        if (auto s = rdr::insertRdrRecord(*m_store, m_runId, e.value()); !s) {
            warn("crash record " + folder + " was not recorded: " + s.error());
            return;
        }
        m_rdr.push_back(e->folder);
    }

    void tailTf(TfTail& t) {
        if (t.failed) return;
        if (!t.file) {
            auto f = summary::SummaryFile::open(t.path);
            if (!f) {
                t.failed = true;
                warn("summary file " + t.path + " cannot be read: " + f.error());
                return;
            }
            t.file = std::move(f.value());
        }
        // Scalars go through insertScalars (printed scalars of the same tag give way to
        // them, as for every scalar of a command run); the other kinds are stored as-is.
        std::vector<QueuedScalar> rows;
        std::vector<summary::SummaryEvent> others;
        const Status read = t.file->poll([&](summary::SummaryEvent&& ev) {
            summary::SummaryEvent rest;
            rest.wallTime = ev.wallTime;
            rest.step = ev.step;
            for (auto& it : ev.items) {
                if (it.kind == summary::ValueKind::Scalar) {
                    if (!std::isnan(it.scalar))
                        rows.push_back({{it.tag, ev.step, it.scalar},
                                        summary::wallTimeNs(ev.wallTime),
                                        false});
                } else if (it.kind != summary::ValueKind::Skipped) {
                    rest.items.push_back(std::move(it));
                }
            }
            if (!rest.items.empty()) others.push_back(std::move(rest));
            return true;
        });
        if (!read) {
            t.failed = true;
            warn("summary file " + t.path + " cannot be read: " + read.error());
        }
        if (rows.empty() && others.empty()) return;
        Status s = m_store->begin();
        if (s) s = insertScalars(rows);
        if (s && !others.empty()) {
            summary::SummaryWriter w(*m_store, m_runId, 0);
            for (const auto& ev : others)
                if (s) s = w.write(ev);
        }
        if (s)
            s = m_store->commit();
        else
            (void)m_store->rollback();
        if (!s && m_writeErrors++ == 0) warn("the session could not be written: " + s.error());
    }

    void scanFolders(int64_t now, bool all) {
        if (!m_store) return;
        for (const ArtifactWatcher::Found& f : m_st.watcher.scan(now, all)) {
            switch (f.kind) {
                case ArtifactKind::Trace:
                case ArtifactKind::Nsys:
                case ArtifactKind::Cuda:
                    importTrace(f.path, /*fromWatcher=*/true, f.again);
                    break;
                case ArtifactKind::Hdf5: {
                    if (f.again) break;  // a dump is recorded by its path: read when shown
                    Status s = addDumpFile(f.path, -1);
                    if (!s) warn("dump " + f.path + " was not recorded: " + s.error());
                    break;
                }
                case ArtifactKind::TfEvents:
                    m_tf.emplace(f.path, TfTail(f.path));
                    break;
                case ArtifactKind::Rdr:
                    if (f.again) break;  // the recorder writes its index last, once
                    addRdr(f.path);
                    break;
                case ArtifactKind::Other:
                    break;
            }
        }
        for (auto& [path, t] : m_tf) tailTf(t);
        publish();
    }

    void publish() {
        std::lock_guard<std::mutex> lock(m_st.mu);
        CommandProgress& p = m_st.progress;
        p.records = m_records;
        p.scalarPoints = m_scalarPoints;
        p.traces = static_cast<int64_t>(m_traces.size());
        p.dumpFiles = static_cast<int64_t>(m_dumpList.size());
        p.overflowFindings = m_findings;
        p.rdrRecords = static_cast<int64_t>(m_rdr.size());
    }

    /// What --record-cuda gave: a run of a CPU-only program records nothing (not an error,
    /// but said), a file CUPTI dropped records from is incomplete.
    void cudaWarnings() {
        if (!m_store || !m_st.options.spec.recordCuda) return;
        const std::string dir =
            canonical(runPathsFor(m_st.options.sessionPath, m_runId, "").cudaDir) + "/";
        int files = 0;
        for (const TraceImportInfo& t : m_traces) {
            if (!t.path.starts_with(dir)) continue;
            ++files;
            if (t.status == store::SourceStatus::Partial)
                warn("CUDA activity " + t.path +
                     " is incomplete (records CUPTI dropped, or the process ended before its "
                     "flush): see the import problems of its source");
        }
        if (files == 0)
            warn(
                "no CUDA activity was recorded: the program made no CUDA call (the collector "
                "is loaded by the CUDA driver when a process initialises CUDA), or its "
                "processes were killed before they could write");
    }

    void finish() {
        cudaWarnings();
        CommandResult r;
        {
            std::lock_guard<std::mutex> lock(m_st.mu);
            if (m_nanPoints > 0)
                m_st.warnings.push_back(
                    std::to_string(m_nanPoints) +
                    " scalar values were NaN and are not drawn (the first: " + m_firstNan + ")");
            if (m_st.droppedRecords > 0)
                m_st.warnings.push_back(std::to_string(m_st.droppedRecords) +
                                        " log lines were dropped: the session could not keep up");
            r = m_st.result;
            r.warnings = m_st.warnings;
        }
        r.scalars = m_scalarCounts;
        r.traces = m_traces;
        r.dumps = m_dumpList;
        r.rdr = m_rdr;
        r.overflowFindings = m_findings;
        r.logLines = std::max(r.logLines, m_records);
        if (m_store)
            if (auto s = m_store->finishRun(m_runId, r.status, r.reason, r.toJson()); !s)
                r.warnings.push_back("the end of the run could not be recorded: " + s.error());
        std::lock_guard<std::mutex> lock(m_st.mu);
        m_st.progress.elapsedS = r.durationS;
        m_st.result = std::move(r);
        m_st.progress.state = CommandState::Ended;
    }

    CommandRun::State& m_st;
    store::TraceStore* m_store;  // null: supervising only
    int64_t m_runId;
    int64_t m_lastScan = 0;
    int64_t m_records = 0, m_findings = 0, m_scalarPoints = 0;
    int m_writeErrors = 0;
    int64_t m_profileSource = 0;  // the run's profile source (the first trace imported)
    std::set<std::string> m_hookTags, m_imported, m_dumps;
    std::map<std::string, int> m_cycles;  // profiler cycles imported, per rank ("" or "rankN ")
    std::map<std::string, int64_t> m_scalarCounts;
    std::map<std::string, std::vector<int64_t>> m_printed;  // rowids of printed scalars by tag
    size_t m_printedTracked = 0;
    int64_t m_nanPoints = 0;  // scalar values that were NaN (not stored)
    std::string m_firstNan;
    std::vector<TraceImportInfo> m_traces;
    std::vector<std::string> m_dumpList, m_rdr;
    std::map<std::string, TfTail> m_tf;
};

}  // namespace

void runRecorder(CommandRun::State& st) {
    Recorder(st).run();
}

}  // namespace ts::run
