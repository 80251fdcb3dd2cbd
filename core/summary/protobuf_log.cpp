#include "core/summary/protobuf_log.h"

#include <google/protobuf/stubs/logging.h>

#include <string>

#include "core/log/logger.h"

namespace ts::summary {

namespace {
void toLogger(google::protobuf::LogLevel level, const char* file, int line,
              const std::string& message) {
    if (level >= google::protobuf::LOGLEVEL_FATAL)
        TS_LOG(IMPORTER, ERROR) << "protobuf " << file << ":" << line << ": " << message;
    else
        TS_LOG(IMPORTER, DEBUG) << "protobuf " << file << ":" << line << ": " << message;
}
}  // namespace

void routeProtobufLog() {
    static const bool installed = [] {
        google::protobuf::SetLogHandler(&toLogger);
        return true;
    }();
    (void)installed;
}

}  // namespace ts::summary
