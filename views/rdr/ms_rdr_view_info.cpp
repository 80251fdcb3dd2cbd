#include "views/rdr/ms_rdr_view_info.h"

#include "core/debug/rdr/ms_rdr_reader.h"
#include "views/rdr/ms_rdr_view.h"

ViewInfo msRdrViewInfo() {
    ViewInfo v;
    v.name = QStringLiteral("msrdr");
    v.title = QObject::tr("MindSpore RDR");
    v.create = [](SessionContext* ctx, QWidget* parent) -> QWidget* {
        return new MsRdrView(ctx, parent);
    };
    v.accepts = [](const QString& path) {
        return !ts::rdr::findMsRdrFolders(path.toStdString()).empty();
    };
    return v;
}
