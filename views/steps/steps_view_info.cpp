#include "views/steps/steps_view_info.h"

#include "views/steps/steps_view.h"

ViewInfo stepsViewInfo() {
    ViewInfo v;
    v.name = QStringLiteral("steps");
    v.title = QObject::tr("Steps");
    v.create = [](SessionContext* ctx, QWidget* parent) -> QWidget* {
        return new StepsView(ctx, parent);
    };
    v.openByDefault = false;
    return v;
}
