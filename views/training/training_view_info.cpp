#include "views/training/training_view_info.h"

#include "views/training/training_view.h"

ViewInfo trainingViewInfo() {
    ViewInfo v;
    v.name = QStringLiteral("training");
    v.title = QObject::tr("Training");
    v.create = [](SessionContext* ctx, QWidget* parent) -> QWidget* {
        return new TrainingView(ctx, parent);
    };
    v.openByDefault = false;
    return v;
}
