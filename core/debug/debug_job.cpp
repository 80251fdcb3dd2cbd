#include "core/debug/debug_job.h"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <filesystem>

#include "core/common/json.h"
#include "core/engine/train/trainer.h"
#include "core/log/logger.h"
#include "core/store/trace_store.h"

namespace ts::debug {

/// Findings and dump files into the session: a connection of its own, one transaction per
/// step. A store error is reported once and the run goes on.
class DebugJob::StoreSink final : public OverflowSink {
public:
    StoreSink(std::unique_ptr<store::TraceStore> st, int64_t runId)
        : m_store(std::move(st)), m_runId(runId) {}
    void add(const OverflowRecord& f) override {
        m_pending.push_back(f);
        m_pending.back().runId = m_runId;
    }
    void flush() override {
        if (m_pending.empty() || !m_store) return;
        if (auto s = insertOverflowFindings(*m_store, m_pending); !s) problem(s.error());
        m_pending.clear();
    }
    void dumpFile(const std::string& path, int64_t step) override {
        if (!m_store) return;
        if (auto s = insertDumpFile(*m_store, m_runId, path, step); !s) problem(s.error());
    }
    std::vector<std::string> problems;

private:
    void problem(const std::string& e) {
        if (problems.empty())
            TS_LOG(DEBUG, ERROR) << "cannot record overflow findings in the session: " << e;
        if (problems.size() < 4) problems.push_back("session: " + e);
    }
    std::unique_ptr<store::TraceStore> m_store;
    int64_t m_runId;
    std::vector<OverflowRecord> m_pending;
};

Result<std::unique_ptr<DebugJob>> DebugJob::attach(const DebugJobOptions& o,
                                                   engine::Trainer& trainer,
                                                   const std::string& sessionPath, int64_t runId) {
    if (!o.active()) return std::unique_ptr<DebugJob>();
    std::unique_ptr<DebugJob> job(new DebugJob());
    job->m_trainer = &trainer;
    bool check = o.overflowCheck, stop = o.stopOnOverflow;
    std::string dumpDir = o.overflowDumpDir;
    if (!o.dumpConfigJson.empty() || !o.dumpConfigPath.empty()) {
        auto cfg = !o.dumpConfigJson.empty() ? parseDumpConfig(o.dumpConfigJson)
                                             : loadDumpConfig(o.dumpConfigPath);
        if (!cfg) return Error{cfg.error()};
        check = check || cfg->checkOverflow;
        stop = stop || cfg->stopOnOverflow;
        if (dumpDir.empty()) {
            const std::string& p = cfg->dumpPath;
            dumpDir = p.size() > 3 && p.compare(p.size() - 3, 3, ".h5") == 0
                          ? std::filesystem::path(p).parent_path().string()
                          : p;
            if (dumpDir.empty()) dumpDir = ".";
        }
        job->m_dump = std::make_unique<DumpObserver>(std::move(cfg.value()));
        if (auto s = job->m_dump->open(); !s) return Error{s.error()};
    }
    std::unique_ptr<store::TraceStore> st;
    if (!sessionPath.empty()) {
        auto opened = store::TraceStore::open(sessionPath, store::TraceStore::Mode::Create);
        if (!opened) return Error{opened.error()};
        st = std::move(opened.value());
    }
    job->m_sink = std::make_unique<StoreSink>(std::move(st), runId);
    if (check) {
        if (dumpDir.empty())
            dumpDir = sessionPath.empty() ? "overflow_dumps" : sessionPath + ".dumps";
        OverflowOptions oo;
        oo.stopOnFirst = stop;
        oo.dumpDir = dumpDir;
        engine::Trainer* t = &trainer;
        job->m_overflow = std::make_unique<OverflowObserver>(
            oo, job->m_sink.get(), [t](const std::string& why) { t->requestStop(why); });
    }
    // The dumper first: in load mode it replaces inputs before anyone else looks at them.
    if (job->m_dump) trainer.dispatcher().addObserver(job->m_dump.get());
    if (job->m_overflow) trainer.dispatcher().addObserver(job->m_overflow.get());
    return job;
}

DebugJob::~DebugJob() {
    if (m_trainer) {
        if (m_dump) m_trainer->dispatcher().removeObserver(m_dump.get());
        if (m_overflow) m_trainer->dispatcher().removeObserver(m_overflow.get());
    }
}

void DebugJob::finish(engine::TrainResult& r) {
    if (m_finished) return;
    m_finished = true;
    if (m_dump) {
        m_trainer->dispatcher().removeObserver(m_dump.get());
        const DumpSummary& s = m_dump->finish();
        if (m_sink)
            for (const auto& [path, step] : s.files) m_sink->dumpFile(path, step);
        for (const auto& e : s.errors) r.warnings.push_back("dump: " + e);
        if (s.loadMismatches > 0)
            r.warnings.push_back("load mode: " + std::to_string(s.loadMismatches) +
                                 " recorded inputs did not fit the live ones and were not used");
    }
    if (m_overflow) {
        m_trainer->dispatcher().removeObserver(m_overflow.get());
        if (m_sink) m_sink->flush();
        const OverflowSummary& s = m_overflow->summary();
        for (const auto& e : s.errors) r.warnings.push_back("overflow dump: " + e);
        if (s.hasFirst) {
            const OverflowRecord& f = s.first;
            r.warnings.push_back("overflow check: " + std::to_string(s.findings) +
                                 " tensors with NaN/Inf; first: " + f.tensor + " of " + f.op + "/" +
                                 std::to_string(f.seqid) + " (" + f.scope + ") at step " +
                                 std::to_string(f.step));
        }
        if (m_sink)
            for (const auto& p : m_sink->problems) r.warnings.push_back(p);
    }
}

std::string DebugJob::summaryJson() const {
    rapidjson::StringBuffer buf;
    rapidjson::Writer<rapidjson::StringBuffer> w(buf);
    w.StartObject();
    if (m_dump) {
        const DumpSummary& s = m_dump->summary();
        w.Key("dump");
        w.StartObject();
        w.Key("files");
        w.StartArray();
        for (const auto& f : s.files) w.String(f.first.c_str());
        w.EndArray();
        json::kv(w, "tensors", s.tensors);
        json::kv(w, "bytes", s.bytes);
        w.Key("write_seconds");
        w.Double(s.writeSeconds);
        json::kv(w, "loaded_inputs", s.loadedInputs);
        w.EndObject();
    }
    if (m_overflow) {
        const OverflowSummary& s = m_overflow->summary();
        w.Key("overflow");
        w.StartObject();
        json::kv(w, "checked_tensors", s.checkedTensors);
        json::kv(w, "findings", s.findings);
        json::kv(w, "loss_scale_steps", s.lossScaleSteps);
        w.Key("first");
        if (!s.hasFirst) {
            w.Null();
        } else {
            const OverflowRecord& f = s.first;
            w.StartObject();
            json::kv(w, "step", f.step);
            json::kv(w, "op", f.op);
            json::kv(w, "seqid", f.seqid);
            json::kv(w, "scope", f.scope);
            json::kv(w, "tensor", f.tensor);
            json::kv(w, "nan", f.nan);
            json::kv(w, "posinf", f.posinf);
            json::kv(w, "neginf", f.neginf);
            w.EndObject();
        }
        w.Key("dump_files");
        w.StartArray();
        for (const auto& f : s.dumpFiles) w.String(f.c_str());
        w.EndArray();
        w.EndObject();
    }
    w.EndObject();
    return buf.GetString();
}

}  // namespace ts::debug
