#include "views/advice/advice_view_info.h"

#include "views/advice/advice_view.h"

ViewInfo adviceViewInfo() {
    ViewInfo v;
    v.name = QStringLiteral("advice");
    v.title = QObject::tr("Advice");
    v.create = [](SessionContext* ctx, QWidget* parent) -> QWidget* {
        return new AdviceView(ctx, parent);
    };
    v.openByDefault = false;
    return v;
}
