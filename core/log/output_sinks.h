#pragma once
// The sinks behind GLOG_logtostderr and GLOG_log_dir: stderr and glog-named rotating files.
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

#include "core/common/result.h"
#include "core/log/logger.h"

namespace ts::log {

/// Writes records at or above `threshold` to stderr, one line each.
class StderrSink : public LogSink {
public:
    explicit StderrSink(Level threshold = Level::Debug) : m_threshold(threshold) {}
    void write(const LogRecord& record, std::string_view line) override;
    void flush() override;

private:
    Level m_threshold;
};

/// glog-style files in `dir`: one file per level from `lowest` to ERROR, named
/// <program>.<host>.<user>.log.<LEVEL>.<yyyymmdd-hhmmss>.<pid>; the file of level L holds
/// every record >= L (a record below `lowest` goes to the `lowest` file). A file is opened
/// on its first record and replaced by a new one once it holds `maxBytes`. Files start
/// with glog's three header lines.
class GlogFileSink : public LogSink {
public:
    /// Creates `dir` (and parents); error when it cannot be made or written.
    static Result<std::unique_ptr<GlogFileSink>> create(std::string dir, std::string program,
                                                        Level lowest, int64_t maxBytes);
    ~GlogFileSink() override;
    void write(const LogRecord& record, std::string_view line) override;
    void flush() override;
    const std::string& dir() const { return m_dir; }
    /// Paths of every file this sink has opened, in order.
    const std::vector<std::string>& files() const { return m_files; }

private:
    GlogFileSink() = default;
    struct File {
        FILE* f = nullptr;
        int64_t bytes = 0;
    };
    bool open(int level);
    std::string m_dir, m_program, m_host, m_user;
    Level m_lowest = Level::Info;
    int64_t m_maxBytes = 0;
    File m_file[4];  // DEBUG, INFO, WARNING, ERROR
    std::vector<std::string> m_files;
};

}  // namespace ts::log
