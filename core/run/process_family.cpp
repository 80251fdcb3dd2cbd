#include "core/run/process_family.h"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <unordered_map>

namespace ts::run {
namespace {

struct ProcStat {
    pid_t pid = 0, ppid = 0, pgrp = 0, session = 0;
    char state = '?';
    uint64_t startTime = 0;
};

// /proc/<pid>/stat: "pid (comm) state ppid pgrp session tty tpgid flags minflt cminflt
// majflt cmajflt utime stime cutime cstime priority nice threads itrealvalue starttime ...";
// comm may hold spaces and parentheses, so fields are counted after its last ')'.
bool readStat(pid_t pid, ProcStat& out) {
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
    std::FILE* f = std::fopen(path, "r");
    if (!f) return false;
    char buf[1024];
    const size_t n = std::fread(buf, 1, sizeof buf - 1, f);
    std::fclose(f);
    buf[n] = '\0';
    const char* close = std::strrchr(buf, ')');
    if (!close) return false;
    out.pid = pid;
    char* p = const_cast<char*>(close) + 1;
    while (*p == ' ') ++p;
    out.state = *p++;
    long long field[20] = {};
    for (int i = 0; i < 20; ++i) {  // fields 4 .. 23
        char* end = nullptr;
        field[i] = std::strtoll(p, &end, 10);
        if (end == p) return false;
        p = end;
    }
    out.ppid = static_cast<pid_t>(field[0]);
    out.pgrp = static_cast<pid_t>(field[1]);
    out.session = static_cast<pid_t>(field[2]);
    out.startTime = static_cast<uint64_t>(field[18]);  // field 22
    return true;
}

std::vector<ProcStat> processTable() {
    std::vector<ProcStat> all;
    DIR* d = ::opendir("/proc");
    if (!d) return all;
    while (const dirent* e = ::readdir(d)) {
        char* end = nullptr;
        const long pid = std::strtol(e->d_name, &end, 10);
        if (pid <= 0 || *end != '\0') continue;
        ProcStat s;
        if (readStat(static_cast<pid_t>(pid), s)) all.push_back(s);
    }
    ::closedir(d);
    return all;
}

}  // namespace

std::string ProcessFamily::makeToken(int rank) {
    const auto now = std::chrono::steady_clock::now().time_since_epoch().count();
    return std::to_string(::getpid()) + "." + std::to_string(now) + "." + std::to_string(rank);
}

bool ProcessFamily::hasToken(pid_t pid) const {
    if (m_token.empty()) return false;
    char path[64];
    std::snprintf(path, sizeof path, "/proc/%d/environ", static_cast<int>(pid));
    std::FILE* f = std::fopen(path, "r");
    if (!f) return false;  // another user's process: not ours to signal anyway
    std::string want(kFamilyVariable);
    want += '=';
    want += m_token;
    std::string entry;
    bool found = false;
    for (int c; !found && (c = std::fgetc(f)) != EOF;) {
        if (c != '\0') {
            if (entry.size() <= want.size()) entry += static_cast<char>(c);
            continue;
        }
        found = entry == want;
        entry.clear();
    }
    found = found || entry == want;
    std::fclose(f);
    return found;
}

void ProcessFamily::refresh() {
    const std::vector<ProcStat> table = processTable();
    std::unordered_map<pid_t, const ProcStat*> byPid;
    for (const ProcStat& s : table) byPid[s.pid] = &s;
    // Members still there (same start time: not a reused pid).
    std::vector<Member> kept;
    for (const Member& m : m_members) {
        auto it = byPid.find(m.pid);
        if (it != byPid.end() && it->second->startTime == m.startTime)
            kept.push_back({m.pid, m.startTime, it->second->state == 'Z'});
    }
    auto known = [&](pid_t pid) {
        return std::any_of(kept.begin(), kept.end(), [&](const Member& m) { return m.pid == pid; });
    };
    // New members: of the session or group, or a child of a member, to a fixed point; then
    // any other process that carries the token (each looked at once).
    for (bool grew = true; grew;) {
        grew = false;
        for (const ProcStat& s : table) {
            if (known(s.pid)) continue;
            if (s.pid == m_leader || s.session == m_leader || s.pgrp == m_leader || known(s.ppid)) {
                kept.push_back({s.pid, s.startTime, s.state == 'Z'});
                grew = true;
            }
        }
    }
    const pid_t self = ::getpid();
    std::unordered_map<pid_t, uint64_t> strangers;
    for (const ProcStat& s : table) {
        if (s.pid == self || known(s.pid)) continue;
        auto seen = m_strangers.find(s.pid);
        if (seen != m_strangers.end() && seen->second == s.startTime) {
            strangers.emplace(s.pid, s.startTime);
            continue;
        }
        if (hasToken(s.pid))
            kept.push_back({s.pid, s.startTime, s.state == 'Z'});
        else
            strangers.emplace(s.pid, s.startTime);
    }
    m_strangers = std::move(strangers);
    m_members = std::move(kept);
}

std::vector<pid_t> ProcessFamily::running() const {
    std::vector<pid_t> out;
    for (const Member& m : m_members)
        if (!m.zombie) out.push_back(m.pid);
    return out;
}

void ProcessFamily::signal(int sig) const {
    ::kill(-m_leader, sig);  // the group, while any process is in it
    for (const Member& m : m_members)
        if (!m.zombie) ::kill(m.pid, sig);
}

}  // namespace ts::run
