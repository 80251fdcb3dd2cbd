#include "core/log/output_sinks.h"

#include "core/common/clock.h"

#include <pwd.h>
#include <unistd.h>

#include <cstdlib>
#include <ctime>
#include <filesystem>

namespace ts::log {

void StderrSink::write(const LogRecord& record, std::string_view line) {
    if (record.level < m_threshold) return;
    // stderr is unbuffered: one write(2) per record, not one for the line and one for '\n'.
    thread_local std::string buf;
    buf.assign(line);
    buf += '\n';
    std::fwrite(buf.data(), 1, buf.size(), stderr);
}

void StderrSink::flush() {
    std::fflush(stderr);
}

Result<std::unique_ptr<GlogFileSink>> GlogFileSink::create(std::string dir, std::string program,
                                                           Level lowest, int64_t maxBytes) {
    std::error_code ec;
    std::filesystem::create_directories(dir, ec);
    if (ec || !std::filesystem::is_directory(dir))
        return Error{"cannot create log folder " + dir + ": " + ec.message()};
    if (access(dir.c_str(), W_OK) != 0) return Error{"log folder is not writable: " + dir};
    std::unique_ptr<GlogFileSink> s(new GlogFileSink());
    s->m_dir = std::move(dir);
    s->m_program = program.empty() ? "trainscope" : std::move(program);
    char host[256] = {0};
    if (gethostname(host, sizeof host - 1) != 0 || !host[0])
        std::snprintf(host, sizeof host, "localhost");
    s->m_host = host;
    if (const char* u = std::getenv("USER"); u && *u) {
        s->m_user = u;
    } else if (const passwd* pw = getpwuid(getuid())) {
        s->m_user = pw->pw_name;
    } else {
        s->m_user = "invalid-user";
    }
    s->m_lowest = lowest > Level::Error ? Level::Error : lowest;
    s->m_maxBytes = maxBytes > 0 ? maxBytes : int64_t{50} << 20;
    return s;
}

GlogFileSink::~GlogFileSink() {
    for (File& f : m_file)
        if (f.f) std::fclose(f.f);
}

bool GlogFileSink::open(int level) {
    File& file = m_file[level];
    if (file.f) std::fclose(file.f);
    file = File{};
    const int64_t now = nowNs();
    const std::string base = m_dir + "/" +
                             glogFileName(m_program, m_host, m_user, static_cast<Level>(level), now,
                                          static_cast<int64_t>(getpid()));
    std::string path = base;
    for (int n = 1; std::filesystem::exists(path); ++n) path = base + "." + std::to_string(n);
    file.f = std::fopen(path.c_str(), "w");
    if (!file.f) return false;
    m_files.push_back(path);
    const time_t t = static_cast<time_t>(now / 1000000000);
    std::tm tm{};
    localtime_r(&t, &tm);
    const int n =
        std::fprintf(file.f,
                     "Log file created at: %04d/%02d/%02d %02d:%02d:%02d\nRunning on machine: %s\n"
                     "Log line format: [LEVEL] MODULE(pid,tid,program):yyyy-mm-dd-hh:mm:ss.mmm.uuu "
                     "[file:line] function] msg\n",
                     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                     m_host.c_str());
    file.bytes = n > 0 ? n : 0;
    return true;
}

void GlogFileSink::write(const LogRecord& record, std::string_view line) {
    const int lowest = static_cast<int>(m_lowest);
    const int top = std::min(std::max(static_cast<int>(record.level), lowest), 3);
    for (int level = lowest; level <= top; ++level) {
        File& file = m_file[level];
        if ((!file.f || file.bytes >= m_maxBytes) && !open(level)) continue;
        std::fwrite(line.data(), 1, line.size(), file.f);
        std::fputc('\n', file.f);
        file.bytes += static_cast<int64_t>(line.size()) + 1;
        if (record.level >= Level::Error) std::fflush(file.f);
    }
}

void GlogFileSink::flush() {
    for (File& f : m_file)
        if (f.f) std::fflush(f.f);
}

}  // namespace ts::log
