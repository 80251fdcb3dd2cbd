// The run's row in the session: the one place the supervisor thread touches SQLite. The
// connection opened here is handed to the recorder thread (State::store) once the processes
// start; a start that fails ends the row as failed.
#include "core/run/command_run_supervisor.h"

#include "core/run/run_names.h"
#include "core/store/trace_store.h"

namespace ts::run::supervision {

bool Supervisor::beginRunRow() {
    auto store = store::TraceStore::open(m_st.options.sessionPath, store::TraceStore::Mode::Create);
    if (!store) return fail("cannot open the session: " + store.error());
    m_st.store = std::move(store.value());
    // Unnamed: "<script> #N", numbered among the session's runs of that script.
    std::string name = m_spec.name;
    if (name.empty()) {
        auto next = nextRunName(*m_st.store, scriptOf(m_spec));
        name = next ? next.value() : m_spec.displayName();
    }
    auto id = m_st.store->beginRun(name, launchSpecToJson(m_spec), "command");
    if (!id) return fail("cannot record the run in the session: " + id.error());
    m_runId = id.value();
    return true;
}

void Supervisor::endRunRowFailed(const std::string& reason) {
    if (!m_st.store || m_runId <= 0) return;
    CommandResult r;
    r.runId = m_runId;
    r.reason = reason;
    (void)m_st.store->finishRun(m_runId, store::RunStatus::Failed, reason, r.toJson());
}

}  // namespace ts::run::supervision
