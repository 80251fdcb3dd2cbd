// The Python package's events: events.rank<r>.jsonl files in the run's folder, tailed and
// turned into log notes, steps, scalars, announced traces and dumps, findings and stops.
#include "core/run/command_run_supervisor.h"

#include <cstdlib>
#include <filesystem>

#include "core/run/hook_events.h"

namespace ts::run::supervision {

namespace fs = std::filesystem;

void Supervisor::tailEvents(bool final) {
    const int64_t t = now();
    if (!final && t - m_lastEventScan < 100 * kMs) return;
    m_lastEventScan = t;
    std::error_code ec;
    for (fs::directory_iterator it(m_paths.runDir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        if (name.rfind("events.rank", 0) != 0 || !name.ends_with(".jsonl")) continue;
        if (m_events.count(name)) continue;
        const int rank = std::atoi(name.c_str() + 11);
        m_events.emplace(name, EventTail(it->path().string(), rank));
    }
    for (auto& entry : m_events) {  // (clang 14 cannot capture a structured binding)
        EventTail& e = entry.second;
        const std::string bytes = e.tail.readNew();
        e.splitter.feed(bytes, [&](std::string_view line) { onEventLine(e.rank, line); });
    }
}

void Supervisor::onEventLine(int rank, std::string_view line) {
    if (line.empty()) return;
    std::string error;
    auto ev = parseHookEvent(line, &error);
    if (!ev) {
        if (++m_badEvents <= 3)
            m_st.warnings.push_back("an event of the Python package was not understood (" + error +
                                    ")");
        return;
    }
    const int64_t ts = ev->ts > 0 ? ev->ts : now();
    auto note = [&](log::Level level, std::string text) {
        log::LogRecord r;
        r.tsNs = ts;
        r.level = level;
        r.module = "TRAINSCOPE";
        r.pid = ev->pid;
        r.message = std::move(text);
        m_batch.records.push_back(std::move(r));
    };
    switch (ev->type) {
        case HookEvent::Type::Hello: {
            std::string text = "trainscope_hooks in pid " + std::to_string(ev->pid) + " (rank " +
                               std::to_string(ev->rank) + "): ";
            text += ev->torch.empty() ? "torch not importable, hooks off" : "torch " + ev->torch;
            for (const std::string& f : ev->features) text += ", " + f;
            note(log::Level::Info, text);
            break;
        }
        case HookEvent::Type::Warning:
            note(log::Level::Warning, ev->text);
            break;
        case HookEvent::Type::Step:
            if (rank == 0) m_lastStep = std::max(m_lastStep, ev->step);
            break;
        case HookEvent::Type::Scalar:
            if (rank != 0) break;
            if (ev->text == "train/loss") m_lastLoss = ev->value;
            m_batch.scalars.push_back({{ev->text, ev->step, ev->value}, ts, true});
            break;
        case HookEvent::Type::Trace:
            m_batch.traces.push_back(ev->text);
            break;
        case HookEvent::Type::DumpFile:
            m_batch.dumpFiles.emplace_back(ev->text, ev->step);
            break;
        case HookEvent::Type::Overflow: {
            debug::OverflowRecord f;
            f.runId = m_runId;
            f.step = ev->step;
            f.op = ev->op;
            f.scope =
                m_spec.nproc > 1 ? "rank" + std::to_string(rank) + "/" + ev->scope : ev->scope;
            f.seqid = ev->seqid;
            f.tensor = ev->tensor;
            f.nan = ev->nan;
            f.posinf = ev->posinf;
            f.neginf = ev->neginf;
            f.ts = ts;
            m_batch.findings.push_back(std::move(f));
            break;
        }
        case HookEvent::Type::Stop: {
            note(log::Level::Warning, "stop requested by the run: " + ev->text);
            std::lock_guard<std::mutex> lock(m_st.mu);
            if (m_st.stopReason.empty()) {
                m_st.stopReason = ev->text;
                m_st.stopFromRun = true;
            }
            m_runStop = true;
            m_runStopRank = rank;
            break;
        }
    }
}

}  // namespace ts::run::supervision
