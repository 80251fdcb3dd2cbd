// The start of a command run: the run's folders, the processes' environments, the watched
// folders and the processes themselves; fail() ends a start that cannot go on.
#include "core/run/command_run_supervisor.h"

#include <filesystem>

#include "core/common/cuda_paths.h"

namespace ts::run::supervision {

namespace fs = std::filesystem;

bool Supervisor::fail(const std::string& why) {
    std::string reason = why;
    for (Proc& p : m_procs) p.child.reset();  // kills what was started
    endRunRowFailed(reason);
    {
        std::lock_guard<std::mutex> lock(m_st.mu);
        m_st.result.runId = m_runId;
        m_st.result.status = store::RunStatus::Failed;
        m_st.result.reason = reason;
        m_st.progress.state = CommandState::Ended;
    }
    m_st.finishStart(Error{reason});
    return false;
}

bool Supervisor::prepare() {
    if (!m_st.options.sessionPath.empty()) {
        if (!beginRunRow()) return false;
        m_paths = runPathsFor(m_st.options.sessionPath, m_runId, m_st.options.pythonDir);
        std::error_code ec;
        fs::create_directories(m_paths.profileDir, ec);
        if (!ec && m_spec.recordCuda) fs::create_directories(m_paths.cudaDir, ec);
        if (ec)
            return fail("cannot create the run's folder " + m_paths.runDir + ": " + ec.message());
        if (m_spec.recordCuda) {
            m_paths.cuptiLibrary = m_st.options.cuptiLibrary;
            if (m_paths.cuptiLibrary.empty()) {
                auto lib = cuptiCollectorPath();
                if (!lib) return fail("record CUDA activity: " + lib.error());
                m_paths.cuptiLibrary = lib.value();
            }
        }
    } else {
        m_spec.pythonHooks = false;  // supervising only: no folder for the package's events
        m_spec.profile = false;
        m_spec.recordCuda = false;
    }
    const bool needsPort = m_spec.ranks == RankScheme::Torch;
    const int port = m_spec.masterPort > 0 ? m_spec.masterPort
                     : needsPort           ? pickFreePort(m_spec.masterAddr)
                                           : 0;
    const EnvList base = currentEnvironment();
    std::vector<ProcessEnvironment> envs;
    for (int r = 0; r < m_spec.nproc; ++r) {
        auto e = buildProcessEnvironment(m_spec, base, m_paths, r, port);
        if (!e) return fail(e.error());
        envs.push_back(std::move(e.value()));
    }
    if (m_spec.pythonHooks && m_paths.pythonDir.empty())
        m_st.warnings.push_back(
            "the Python package of command runs was not found (set TRAINSCOPE_PYTHON_DIR): "
            "no profiler, dumps, overflow checks or loss from PyTorch hooks");
    // Watched folders: the user's, the profiler's, the crash records'.
    for (const std::string& d : m_spec.watchDirs) {
        fs::path p(d);
        if (p.is_relative())
            p = (m_spec.cwd.empty() ? fs::current_path() : fs::path(m_spec.cwd)) / p;
        m_st.watcher.addFolder(p.lexically_normal().string());
    }
    if (m_spec.profile) m_st.watcher.addFolder(m_paths.profileDir);
    if (m_spec.recordCuda) m_st.watcher.addFolder(m_paths.cudaDir);
    if (!envs[0].rdrPath.empty()) m_st.watcher.addFolder(envs[0].rdrPath);
    m_st.watcher.snapshotExisting();
    for (int r = 0; r < m_spec.nproc; ++r) {
        SpawnOptions o{m_spec.program, m_spec.args, m_spec.cwd, envs[static_cast<size_t>(r)].full};
        // Every process the rank starts inherits the token: its family (process_family.h).
        const std::string token = ProcessFamily::makeToken(r);
        o.env.emplace_back(kFamilyVariable, token);
        auto c = ChildProcess::spawn(o);
        if (!c)
            return fail(m_spec.nproc > 1 ? "rank " + std::to_string(r) + ": " + c.error()
                                         : c.error());
        Proc p;
        p.rank = r;
        p.child = std::move(c.value());
        p.family = std::make_unique<ProcessFamily>(p.child->pid(), token);
        m_procs.push_back(std::move(p));
    }
    for (Proc& p : m_procs) {
        Proc* pp = &p;
        auto emit = [this, pp](log::LogRecord&& rec) { onRecord(*pp, std::move(rec)); };
        p.out = std::make_unique<Stream>(false, emit);
        p.err = std::make_unique<Stream>(true, emit);
    }
    {
        std::lock_guard<std::mutex> lock(m_st.mu);
        m_st.result.runId = m_runId;
        m_st.result.runDir = m_paths.runDir;
        m_st.result.environment = envs[0].changes;
        m_st.progress.runId = m_runId;
        m_st.progress.state = CommandState::Running;
        m_st.progress.processes = processStates();
    }
    m_st.recorder = std::thread([&st = m_st] { runRecorder(st); });
    m_st.finishStart({});
    return true;
}

}  // namespace ts::run::supervision
