#include "core/run/child_process.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

namespace ts::run {
namespace {

namespace fs = std::filesystem;

bool isExecutableFile(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) &&
           ::access(path.c_str(), X_OK) == 0;
}

void closeFd(int& fd) {
    if (fd >= 0) ::close(fd);
    fd = -1;
}

// What the child writes to the error pipe when it cannot exec: the stage and errno.
struct ExecFailure {
    int stage;  // 1 chdir, 2 exec
    int err;
};

// Only async-signal-safe calls from here on (the parent has other threads).
[[noreturn]] void childMain(const char* path, char* const* argv, char* const* envp, const char* cwd,
                            int devNull, int outW, int errW, int failW, pid_t parent, int maxFd) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != parent) ::_exit(127);  // the parent died before prctl
    ::setsid();  // a session and a group of its own: its family (process_family.h)
    for (int s : {SIGINT, SIGTERM, SIGPIPE, SIGQUIT, SIGHUP, SIGCHLD}) ::signal(s, SIG_DFL);
    sigset_t none;
    sigemptyset(&none);
    ::sigprocmask(SIG_SETMASK, &none, nullptr);
    ::dup2(devNull, 0);
    ::dup2(outW, 1);
    ::dup2(errW, 2);
    ExecFailure f{0, 0};
    if (cwd && *cwd && ::chdir(cwd) != 0) {
        f = {1, errno};
    } else {
        if (::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC) != 0)
            for (int fd = 3; fd < maxFd; ++fd) ::fcntl(fd, F_SETFD, FD_CLOEXEC);
        ::execve(path, argv, envp);
        f = {2, errno};
    }
    [[maybe_unused]] ssize_t n = ::write(failW, &f, sizeof f);
    ::_exit(127);
}

}  // namespace

std::string signalName(int sig) {
    switch (sig) {
        case SIGINT:
            return "SIGINT";
        case SIGTERM:
            return "SIGTERM";
        case SIGKILL:
            return "SIGKILL";
        case SIGSEGV:
            return "SIGSEGV";
        case SIGABRT:
            return "SIGABRT";
        case SIGBUS:
            return "SIGBUS";
        case SIGFPE:
            return "SIGFPE";
        case SIGILL:
            return "SIGILL";
        case SIGHUP:
            return "SIGHUP";
        case SIGQUIT:
            return "SIGQUIT";
        case SIGPIPE:
            return "SIGPIPE";
        default:
            return "signal " + std::to_string(sig);
    }
}

std::string resolveProgram(const std::string& program, const EnvList& env, const std::string& cwd) {
    if (program.empty()) return {};
    if (program.find('/') != std::string::npos) {
        fs::path p(program);
        if (p.is_relative() && !cwd.empty()) p = fs::path(cwd) / p;
        return isExecutableFile(p.string()) ? p.string() : std::string();
    }
    std::string path = "/usr/local/bin:/usr/bin:/bin";
    for (const auto& [k, v] : env)
        if (k == "PATH") path = v;
    size_t start = 0;
    while (start <= path.size()) {
        size_t end = path.find(':', start);
        if (end == std::string::npos) end = path.size();
        std::string dir = path.substr(start, end - start);
        if (dir.empty()) dir = ".";
        fs::path cand = fs::path(dir) / program;
        if (cand.is_relative() && !cwd.empty()) cand = fs::path(cwd) / cand;
        if (isExecutableFile(cand.string())) return cand.string();
        start = end + 1;
    }
    return {};
}

Result<std::unique_ptr<ChildProcess>> ChildProcess::spawn(const SpawnOptions& o) {
    const std::string path = resolveProgram(o.program, o.env, o.cwd);
    if (path.empty()) {
        if (o.program.find('/') != std::string::npos)
            return Error{"cannot start '" + o.program + "': no executable file there" +
                         (o.cwd.empty() ? std::string() : " (relative to " + o.cwd + ")")};
        return Error{"cannot start '" + o.program + "': not found on the PATH"};
    }
    if (!o.cwd.empty() && !fs::is_directory(o.cwd))
        return Error{"cannot start '" + o.program + "': the working folder '" + o.cwd +
                     "' does not exist"};
    // Everything the child needs, prepared before fork (no allocation after it).
    std::vector<std::string> argStore;
    argStore.push_back(o.program);
    argStore.insert(argStore.end(), o.args.begin(), o.args.end());
    std::vector<char*> argv;
    for (auto& a : argStore) argv.push_back(a.data());
    argv.push_back(nullptr);
    std::vector<std::string> envStore;
    for (const auto& [k, v] : o.env) envStore.push_back(k + "=" + v);
    std::vector<char*> envp;
    for (auto& e : envStore) envp.push_back(e.data());
    envp.push_back(nullptr);
    rlimit lim{};
    const int maxFd = ::getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur < 65536
                          ? static_cast<int>(lim.rlim_cur)
                          : 65536;

    int out[2] = {-1, -1}, err[2] = {-1, -1}, fail[2] = {-1, -1};
    const int devNull = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (devNull < 0 || ::pipe2(out, O_CLOEXEC) != 0 || ::pipe2(err, O_CLOEXEC) != 0 ||
        ::pipe2(fail, O_CLOEXEC) != 0) {
        const std::string why = std::strerror(errno);
        for (int fd : {devNull, out[0], out[1], err[0], err[1], fail[0], fail[1]})
            if (fd >= 0) ::close(fd);
        return Error{"cannot start '" + o.program + "': " + why};
    }
    const pid_t parent = ::getpid();
    const pid_t pid = ::fork();
    if (pid == 0)
        childMain(path.c_str(), argv.data(), envp.data(), o.cwd.c_str(), devNull, out[1], err[1],
                  fail[1], parent, maxFd);
    const int forkErr = errno;
    for (int fd : {devNull, out[1], err[1], fail[1]}) ::close(fd);
    if (pid < 0) {
        for (int fd : {out[0], err[0], fail[0]}) ::close(fd);
        return Error{"cannot start '" + o.program + "': fork failed: " + std::strerror(forkErr)};
    }
    // (No setpgid here: the child's setsid would fail on a group leader. spawn() returns
    // after the exec, so the group exists by then.)
    ExecFailure f{0, 0};
    ssize_t n;
    do {
        n = ::read(fail[0], &f, sizeof f);
    } while (n < 0 && errno == EINTR);
    ::close(fail[0]);
    if (n == static_cast<ssize_t>(sizeof f)) {
        ::waitpid(pid, nullptr, 0);
        ::close(out[0]);
        ::close(err[0]);
        if (f.stage == 1)
            return Error{"cannot start '" + o.program + "': cannot enter the working folder '" +
                         o.cwd + "': " + std::strerror(f.err)};
        return Error{"cannot start '" + o.program + "' (" + path + "): " + std::strerror(f.err)};
    }
    ::fcntl(out[0], F_SETFL, ::fcntl(out[0], F_GETFL) | O_NONBLOCK);
    ::fcntl(err[0], F_SETFL, ::fcntl(err[0], F_GETFL) | O_NONBLOCK);
    std::unique_ptr<ChildProcess> c(new ChildProcess);
    c->m_pid = pid;
    c->m_out = out[0];
    c->m_err = err[0];
    return c;
}

ChildProcess::~ChildProcess() {
    if (!m_ended && m_pid > 0) {
        ::kill(-m_pid, SIGKILL);
        ::kill(m_pid, SIGKILL);
        ::waitpid(m_pid, nullptr, 0);
    }
    closeFd(m_out);
    closeFd(m_err);
}

void ChildProcess::closeStdout() {
    closeFd(m_out);
}
void ChildProcess::closeStderr() {
    closeFd(m_err);
}

bool ChildProcess::signalGroup(int sig) {
    if (m_ended) return false;
    if (::kill(-m_pid, sig) != 0) ::kill(m_pid, sig);  // the group may not exist yet
    return true;
}

bool ChildProcess::poll() {
    if (m_ended) return true;
    int status = 0;
    const pid_t r = ::waitpid(m_pid, &status, WNOHANG);
    if (r != m_pid) return false;
    m_ended = true;
    if (WIFEXITED(status)) m_exitCode = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) m_signal = WTERMSIG(status);
    return true;
}

std::string ChildProcess::describeEnd() const {
    if (!m_ended) return "running";
    if (m_signal) {
        const char* text = ::strsignal(*m_signal);
        return signalName(*m_signal) + (text ? std::string(" (") + text + ")" : std::string());
    }
    return "exit code " + std::to_string(m_exitCode.value_or(-1));
}

}  // namespace ts::run
