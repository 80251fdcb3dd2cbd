#include "views/rdr/rdr_view_info.h"

#include "core/debug/rdr/rdr_reader.h"
#include "views/rdr/rdr_view.h"

ViewInfo rdrViewInfo() {
    ViewInfo v;
    v.name = QStringLiteral("rdr");
    v.title = QObject::tr("Crash record");
    v.create = [](SessionContext* ctx, QWidget* parent) -> QWidget* {
        return new RdrView(ctx, parent);
    };
    v.accepts = [](const QString& path) {
        return !ts::rdr::findRdrFolders(path.toStdString()).empty();
    };
    v.openByDefault = false;
    return v;
}
