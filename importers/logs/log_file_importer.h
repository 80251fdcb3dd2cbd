#pragma once
// The text log importer ("log_text"): glog/MindSpore C++ and Python logs, Ascend plog,
// Python tracebacks and any other text lines, into the session's `logs` table.
#include <string>
#include <string_view>
#include <vector>

#include "core/common/job_control.h"
#include "core/common/result.h"
#include "core/log/log_record.h"
#include "core/log/log_tokenizer.h"
#include "importers/registry.h"

namespace ts::importers {

/// Registry entry for text logs.
Importer logFileImporter();

namespace logs {

using log::TokenizerStats;

/// Sniff score: 60 when the first lines hold a record header or a traceback; 10 for a
/// text file named like a log (*.log, *.txt, *.log.N, glog's *.log.LEVEL.*); else 0
/// (binary data, JSON).
int sniffLogText(const std::string& path, std::string_view head);

/// Reads a whole log file (plain or gzip) into records; error when it cannot be read.
struct ParsedLog {
    std::vector<log::LogRecord> records;
    TokenizerStats stats;
};
Result<ParsedLog> readLogFile(const std::string& path, JobControl* control = nullptr);

/// Imports `path` as one new source of kind "log_text".
ImportReport importLogFile(const std::string& path, store::TraceStore& store, JobControl& control);

}  // namespace logs
}  // namespace ts::importers
