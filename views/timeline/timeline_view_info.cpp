#include "views/timeline/timeline_view_info.h"

#include "views/timeline/timeline_view.h"

ViewInfo timelineViewInfo() {
    ViewInfo v;
    v.name = QStringLiteral("timeline");
    v.title = QObject::tr("Timeline");
    v.create = [](SessionContext* ctx, QWidget* parent) -> QWidget* {
        return new TimelineView(ctx, parent);
    };
    v.openByDefault = true;
    return v;
}
