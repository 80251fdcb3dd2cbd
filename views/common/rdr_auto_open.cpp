#include "views/common/rdr_auto_open.h"

#include "core/debug/rdr/ms_rdr_reader.h"
#include "core/debug/rdr/rdr_reader.h"
#include "views/common/session_context.h"

bool rdrShouldOpenAfterRun(const QString& status, const QString& exportDir) {
    if (exportDir.isEmpty() || status != QLatin1String("failed")) return false;
    return !ts::rdr::findRdrFolders(exportDir.toStdString()).empty() ||
           !ts::rdr::findMsRdrFolders(exportDir.toStdString()).empty();
}

bool openRdrAfterRun(SessionContext* ctx, const QString& status, const QString& exportDir) {
    if (!ctx || !rdrShouldOpenAfterRun(status, exportDir)) return false;
    ctx->requestOpen(exportDir);
    return true;
}
