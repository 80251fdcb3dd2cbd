#include "views/stats/stats_view_info.h"

#include "views/stats/stats_view.h"

ViewInfo statsViewInfo() {
    ViewInfo v;
    v.name = QStringLiteral("stats");
    v.title = QObject::tr("Op statistics");
    v.create = [](SessionContext* ctx, QWidget* parent) -> QWidget* {
        return new StatsView(ctx, parent);
    };
    v.openByDefault = true;
    return v;
}
