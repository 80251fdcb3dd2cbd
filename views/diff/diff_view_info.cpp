#include "views/diff/diff_view_info.h"

#include "views/diff/diff_view.h"

ViewInfo diffViewInfo() {
    ViewInfo v;
    v.name = QStringLiteral("diff");
    v.title = QObject::tr("Diff");
    v.create = [](SessionContext* ctx, QWidget* parent) -> QWidget* {
        return new DiffView(ctx, parent);
    };
    v.openByDefault = false;
    return v;
}
