#include "core/summary/summary_file.h"

#include <filesystem>

namespace ts::summary {

Result<std::unique_ptr<SummaryFile>> SummaryFile::open(const std::string& path,
                                                       std::optional<Dialect> dialect) {
    auto s = RecordStream::open(path);
    if (!s) return Error{s.error()};
    std::unique_ptr<SummaryFile> f(new SummaryFile());
    f->m_stream = std::move(s.value());
    f->m_dialect =
        dialect ? dialect : dialectOfName(std::filesystem::path(path).filename().string());
    if (f->m_dialect) f->m_decoder.emplace(*f->m_dialect);
    return f;
}

void SummaryFile::problem(uint64_t offset, const std::string& what) {
    if (m_problems.size() < 100)
        m_problems.push_back("byte " + std::to_string(offset) + ": " + what);
}

Status SummaryFile::poll(const std::function<bool(SummaryEvent&&)>& onEvent, JobControl* job) {
    std::string_view rec;
    uint64_t offset = 0;
    for (;;) {
        if (job && job->cancelled()) return {};
        const auto o = m_stream->next(rec, offset);
        if (job) job->setDone(m_stream->bytesRead());
        switch (o) {
            case RecordStream::Outcome::Pending:
                return {};
            case RecordStream::Outcome::ReadError:
                return Error{path() + ": read error at byte " + std::to_string(offset)};
            case RecordStream::Outcome::Damaged:
            case RecordStream::Outcome::TooLarge:
                ++m_counts.records;
                m_counts.damaged = true;
                m_counts.damagedAt = offset;
                problem(offset, o == RecordStream::Outcome::Damaged
                                    ? "record length fails its CRC: the rest of the file "
                                      "cannot be read"
                                    : "record length beyond 1 GiB: taken as damage, the rest "
                                      "of the file cannot be read");
                return {};
            case RecordStream::Outcome::BadCrc:
                ++m_counts.records;
                ++m_counts.badCrc;
                problem(offset, "record payload fails its CRC (skipped)");
                continue;
            case RecordStream::Outcome::Record:
                break;
        }
        ++m_counts.records;
        if (!m_decoder) {
            m_dialect = sniffDialect(rec);
            if (!m_dialect)
                return Error{path() +
                             ": the first record is neither a MindSpore summary Event nor a "
                             "TensorBoard Event"};
            m_decoder.emplace(*m_dialect);
        }
        std::string err;
        auto ev = m_decoder->decode(rec, &err);
        if (!ev) {
            ++m_counts.undecodable;
            problem(offset, err);
            continue;
        }
        if (!ev->fileVersion.empty() && m_counts.fileVersion.empty())
            m_counts.fileVersion = ev->fileVersion;
        if (!onEvent(std::move(*ev))) return {};
    }
}

}  // namespace ts::summary
