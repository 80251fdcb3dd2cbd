#include "views/query/query_view_info.h"

#include "views/query/query_view.h"

ViewInfo queryViewInfo() {
    ViewInfo info;
    info.name = QStringLiteral("query");
    info.title = QObject::tr("SQL");
    info.create = [](SessionContext* ctx, QWidget* parent) -> QWidget* {
        return new QueryView(ctx, parent);
    };
    info.openByDefault = false;
    return info;
}
