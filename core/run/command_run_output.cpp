// The processes' output: both pipes of every process polled, split into lines, parsed into
// log records (the log tokenizer) and, on rank 0, scalars (the scalar line parser).
#include "core/run/command_run_supervisor.h"

#include <poll.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace ts::run::supervision {

std::string exceptionLine(const std::string& message) {
    std::vector<std::string_view> lines;
    std::string_view rest(message);
    while (!rest.empty()) {
        const size_t nl = rest.find('\n');
        lines.push_back(rest.substr(0, nl));
        if (nl == std::string_view::npos) break;
        rest.remove_prefix(nl + 1);
    }
    size_t after = 0;
    for (size_t i = 0; i < lines.size(); ++i)
        if (lines[i].starts_with("  File ") || lines[i].starts_with("Traceback ")) after = i + 1;
    for (size_t i = after; i < lines.size(); ++i) {
        const std::string_view l = lines[i];
        if (l.find_first_not_of(" \t\r") != std::string_view::npos && l[0] != ' ' && l[0] != '\t')
            return std::string(l);
    }
    return lines.empty() ? std::string() : std::string(lines.back());
}

void Supervisor::onRecord(Proc& p, log::LogRecord&& r) {
    if (r.pid == 0) r.pid = p.child->pid();
    if (!r.tsNs) r.tsNs = m_lineNs;
    if (r.module == "PYTHON" && r.message.rfind("Traceback", 0) == 0)
        p.lastException = exceptionLine(r.message);
    m_batch.records.push_back(std::move(r));
}

void Supervisor::onLine(Proc& p, Stream& s, std::string_view line) {
    ++m_lines;
    s.lastLineNs = m_lineNs;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (m_st.options.echo) m_st.options.echo(p.rank, s.err, line);
    if (p.rank == 0) {
        for (ScalarPoint& sp : m_scalars.parse(line)) {
            m_lastStep = std::max(m_lastStep, sp.step);
            if (sp.tag == "train/loss") m_lastLoss = sp.value;
            m_batch.scalars.push_back({std::move(sp), m_lineNs, false});
        }
    }
    s.tokenizer.addLine(line);
    m_lastLine.assign(line.substr(0, 300));
}

bool Supervisor::drain(Proc& p, Stream& s, int fd) {
    char buf[65536];
    size_t total = 0;
    while (total < kReadChunk) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n > 0) {
            total += static_cast<size_t>(n);
            s.splitter.feed(std::string_view(buf, static_cast<size_t>(n)),
                            [&](std::string_view line) { onLine(p, s, line); });
            continue;
        }
        if (n == 0) return false;
        if (errno == EINTR) continue;
        return errno == EAGAIN || errno == EWOULDBLOCK;
    }
    return true;
}

void Supervisor::closeStream(Proc& p, Stream& s) {
    s.splitter.finish([&](std::string_view line) { onLine(p, s, line); });
    s.tokenizer.finish();
    if (s.err)
        p.child->closeStderr();
    else
        p.child->closeStdout();
}

void Supervisor::pollPipes() {
    std::vector<pollfd> fds;
    std::vector<std::pair<Proc*, Stream*>> owners;
    for (Proc& p : m_procs) {
        if (p.child->stdoutFd() >= 0) {
            fds.push_back({p.child->stdoutFd(), POLLIN, 0});
            owners.emplace_back(&p, p.out.get());
        }
        if (p.child->stderrFd() >= 0) {
            fds.push_back({p.child->stderrFd(), POLLIN, 0});
            owners.emplace_back(&p, p.err.get());
        }
    }
    if (fds.empty()) {
        ::usleep(kPollMs * 1000);
        return;
    }
    const int n = ::poll(fds.data(), fds.size(), kPollMs);
    m_lineNs = now();
    if (n <= 0) return;
    for (size_t i = 0; i < fds.size(); ++i) {
        if (!(fds[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
        auto [p, s] = owners[i];
        if (!drain(*p, *s, fds[i].fd)) closeStream(*p, *s);
    }
}

void Supervisor::flushIdle() {
    const int64_t t = now();
    for (Proc& p : m_procs)
        for (Stream* s : {p.out.get(), p.err.get()})
            if (s->tokenizer.pending() && t - s->lastLineNs > kIdleFlushNs) s->tokenizer.finish();
}

}  // namespace ts::run::supervision
