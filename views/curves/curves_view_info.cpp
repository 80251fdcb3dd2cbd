#include "views/curves/curves_view_info.h"

#include "views/curves/curves_view.h"

ViewInfo curvesViewInfo() {
    ViewInfo info;
    info.name = QStringLiteral("curves");
    info.title = QObject::tr("Curves");
    info.create = [](SessionContext* ctx, QWidget* parent) -> QWidget* {
        return new CurvesView(ctx, parent);
    };
    info.openByDefault = false;
    return info;
}
